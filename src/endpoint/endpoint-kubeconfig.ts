// The kubeconfig a controller behind kwatch uses: one cluster (the endpoint), one user (the run's bearer token), one
// context in the target's namespace. Written 0600; marked as kwatch's own so that a later run may replace it.
import { ENDPOINT_KUBECONFIG_MARKER } from '../wire/kubeconfig-markers.js';
import { writePrivateFile } from '../wire/private-file.js';

export { ENDPOINT_KUBECONFIG_MARKER };

export interface EndpointKubeconfig {
  server: string;
  token: string;
  namespace: string;
  caPem?: string;
}

export function endpointKubeconfigYaml(k: EndpointKubeconfig): string {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    '# written by kwatch for a controller run behind it (kwatch reconcile --exec, kwatch proxy)',
    'clusters:',
    '- name: kwatch',
    '  cluster:',
    `    server: ${k.server}`,
    // Plain HTTP on loopback has no TLS to verify; client-node refuses http:// servers without this flag.
    k.caPem ? `    certificate-authority-data: ${b64(k.caPem)}` : '    insecure-skip-tls-verify: true',
    'users:',
    '- name: kwatch',
    '  user:',
    `    token: ${k.token}`,
    'contexts:',
    '- name: kwatch',
    '  context:',
    '    cluster: kwatch',
    '    user: kwatch',
    `    namespace: ${k.namespace}`,
    'current-context: kwatch',
    'preferences:',
    '  extensions:',
    `  - name: ${ENDPOINT_KUBECONFIG_MARKER}`,
    '    extension: {}',
    '',
  ].join('\n');
}

export async function writeEndpointKubeconfig(file: string, k: EndpointKubeconfig): Promise<void> {
  await writePrivateFile(file, endpointKubeconfigYaml(k));
}

/** Whether a file's text is a kubeconfig kwatch's endpoint wrote (so it may be replaced). */
export const isEndpointKubeconfig = (text: string): boolean => text.includes(`name: ${ENDPOINT_KUBECONFIG_MARKER}`);
