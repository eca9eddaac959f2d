// The kubeconfig the sim writes. Plain HTTP: context "kwatch-sim", namespace default, a token that is accepted but
// never checked. TLS: the cluster carries the run's CA. With users: context "kwatch-sim" is the admin (client
// certificate) and "kwatch-sim-dev" the namespace-scoped user (bearer token). The control token goes in a file beside.
import { writePrivateFile } from '../wire/private-file.js';
import type { SimUsers } from './auth/sim-credentials.js';

export interface KubeconfigCredentials {
  /** PEM of the CA that signed an https server's certificate. */
  caPem?: string;
  users?: SimUsers;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/**
 * The mark that tells a kubeconfig kwatch sim wrote (which the next sim may replace) from the user's own. A comment:
 * kubectl drops comments when it rewrites a file, and a file it rewrote (or merged) may hold the user's entries.
 */
export const SIM_KUBECONFIG_COMMENT = '# kubeconfig written by kwatch sim (the next `kwatch sim --kubeconfig-out` here replaces it)';

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
    SIM_KUBECONFIG_COMMENT,
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

/**
 * Whether a file's content is a kubeconfig kwatch sim wrote: it starts with the mark, or has the exact shape sims
 * wrote before the mark (the kwatch-sim cluster, its users and contexts, nothing else).
 */
export function isSimKubeconfig(content: string): boolean {
  if (content.startsWith(`${SIM_KUBECONFIG_COMMENT}\n`)) return true;
  return /^apiVersion: v1\nkind: Config\nclusters:\n- name: kwatch-sim\n {2}cluster:\n {4}server: \S+\n/.test(content)
    && content.endsWith('\ncurrent-context: kwatch-sim\npreferences: {}\n')
    && !/^- name: (?!(kwatch-sim|kwatch-sim-dev|admin|dev)$)/m.test(content);
}

/** Whether a file's content is a control token a sim wrote beside its kubeconfig (one line of base64url). */
export function isControlTokenFile(content: string): boolean {
  return /^[A-Za-z0-9_-]{32,}\n?$/.test(content);
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
