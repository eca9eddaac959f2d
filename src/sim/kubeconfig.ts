// Writes a kubeconfig for the sim (context "kwatch-sim", namespace default, a token that is accepted but never checked).
import { writeFile } from 'node:fs/promises';

export function kubeconfigYaml(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kwatch-sim',
    '  cluster:',
    `    server: ${server}`,
    // Plain HTTP has no TLS to verify; @kubernetes/client-node 1.4 refuses http:// servers without this flag.
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: kwatch-sim',
    '  user:',
    '    token: kwatch-sim-token',
    'contexts:',
    '- name: kwatch-sim',
    '  context:',
    '    cluster: kwatch-sim',
    '    user: kwatch-sim',
    '    namespace: default',
    'current-context: kwatch-sim',
    'preferences: {}',
    '',
  ].join('\n');
}

export async function writeKubeconfig(file: string, server: string): Promise<void> {
  await writeFile(file, kubeconfigYaml(server), { mode: 0o600 });
}
