// The kubeconfig the sim writes. Plain HTTP: context "kwatch-sim", namespace default, a token that is accepted but
// never checked. TLS: the cluster carries the run's CA. With users: context "kwatch-sim" is the admin (client
// certificate) and "kwatch-sim-dev" the namespace-scoped user (bearer token). The control token goes in a file beside.
import { writePrivateFile } from './private-file.js';
import type { SimUsers } from './auth/sim-credentials.js';

export interface KubeconfigCredentials {
  /** PEM of the CA that signed an https server's certificate. */
  caPem?: string;
  users?: SimUsers;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export function kubeconfigYaml(server: string, creds: KubeconfigCredentials = {}): string {
  const cluster = creds.caPem
    ? [`    certificate-authority-data: ${b64(creds.caPem)}`]
    // Plain HTTP has no TLS to verify; @kubernetes/client-node 1.4 refuses http:// servers without this flag.
    : ['    insecure-skip-tls-verify: true'];
  const users = creds.users
    ? [
        `- name: ${creds.users.admin.name}`,
        '  user:',
        `    client-certificate-data: ${b64(creds.users.admin.certPem)}`,
        `    client-key-data: ${b64(creds.users.admin.keyPem)}`,
        `- name: ${creds.users.dev.name}`,
        '  user:',
        `    token: ${creds.users.dev.token}`,
      ]
    : ['- name: kwatch-sim', '  user:', '    token: kwatch-sim-token'];
  const context = (name: string, user: string, namespace: string) => [`- name: ${name}`, '  context:', '    cluster: kwatch-sim', `    user: ${user}`, `    namespace: ${namespace}`];
  const contexts = creds.users
    ? [...context('kwatch-sim', creds.users.admin.name, 'default'), ...context('kwatch-sim-dev', creds.users.dev.name, creds.users.dev.namespace)]
    : context('kwatch-sim', 'kwatch-sim', 'default');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kwatch-sim',
    '  cluster:',
    `    server: ${server}`,
    ...cluster,
    'users:',
    ...users,
    'contexts:',
    ...contexts,
    'current-context: kwatch-sim',
    'preferences: {}',
    '',
  ].join('\n');
}

/** Where the control token of the sim whose kubeconfig is `kubeconfigFile` is written. */
export function controlTokenFile(kubeconfigFile: string): string {
  return `${kubeconfigFile}.control-token`;
}

/** Writes the kubeconfig (0600, never through a symlink) and, given one, the control token beside it. */
export async function writeKubeconfig(file: string, server: string, creds: KubeconfigCredentials = {}, controlToken?: string): Promise<void> {
  await writePrivateFile(file, kubeconfigYaml(server, creds));
  if (controlToken !== undefined) await writePrivateFile(controlTokenFile(file), `${controlToken}\n`);
}
