// The kubeconfig reader that spares most runs loading `yaml`: what it reads, it reads exactly as `yaml` does, and
// what it cannot be sure of, it leaves to `yaml` (undefined). Files written by the real kubectl must take the fast path.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { readSimpleYaml } from '../../src/kube/http/kubeconfig-yaml.js';
import { kubeconfigYaml } from '../../src/sim/kubeconfig.js';
import { tempDir } from '../temp-dir.js';
import { KUBECTL } from './kubectl.js';

const dir = tempDir('kwatch-kubeconfig-yaml-');

/** A kubeconfig written by kubectl config itself, the way users' files come to be. */
function kubectlWritten(): string {
  const file = join(dir, 'config');
  writeFileSync(file, '');
  const kubectl = (...args: string[]) => execFileSync(KUBECTL, ['config', ...args], { env: { ...process.env, KUBECONFIG: file }, stdio: 'pipe' });
  kubectl('set-cluster', 'prod', '--server=https://10.0.0.1:6443', '--certificate-authority=/etc/ca.crt', '--tls-server-name=api.prod');
  kubectl('set-cluster', 'dev', '--server=http://127.0.0.1:8080', '--insecure-skip-tls-verify=true');
  kubectl('set-cluster', 'dev', '--proxy-url=http://proxy.local:3128');
  kubectl('set-credentials', 'alice', '--token=abc.def-ghi');
  kubectl('set-credentials', 'bob', '--username=bob', '--password=s3cr#et: x');
  kubectl('set-credentials', 'cloud', '--exec-command=gke-gcloud-auth-plugin', '--exec-api-version=client.authentication.k8s.io/v1beta1', '--exec-arg=--verbosity', '--exec-arg=2', '--exec-env=CLOUDSDK_CORE_PROJECT=my-project', '--exec-interactive-mode=Never');
  kubectl('set-context', 'prod-alice', '--cluster=prod', '--user=alice', '--namespace=payments');
  kubectl('set-context', 'dev-bob', '--cluster=dev', '--user=bob');
  kubectl('set-context', 'cloud', '--cluster=prod', '--user=cloud');
  kubectl('use-context', 'prod-alice');
  return readFileSync(file, 'utf8');
}

/** The reader's answer: `yaml`'s document exactly, or undefined. */
function agrees(text: string): boolean {
  const fast = readSimpleYaml(text);
  if (fast === undefined) return false;
  expect(fast).toStrictEqual(YAML.parse(text));
  return true;
}

describe('readSimpleYaml', () => {
  it('reads what kubectl config writes, as yaml does (quoted values, numbers, exec plugins and all)', () => {
    const text = kubectlWritten();
    expect(text).toContain('exec:');
    expect(agrees(text)).toBe(true);
  });

  it('reads the sim\'s kubeconfig, as yaml does', () => {
    expect(agrees(kubeconfigYaml('http://127.0.0.1:6443'))).toBe(true);
  });

  it('reads the subset as yaml does', () => {
    const texts = [
      'apiVersion: v1\nkind: Config\npreferences: {}\nclusters: []\n',
      '# written by hand\napiVersion: v1\n\nclusters:\n  - name: a\n    cluster:\n      server: https://a:443\n',
      "users:\n- name: u\n  user:\n    token: 'it''s'\n    username: \"x y\"\n    password: a#b\n",
      'a:\nb: ~\nc: null\nd: NULL\ne: True\nf: false\ng: yes\nh: -flag\ni: --kubeconfig\nj: ""\nk: \'\'\n',
      'args:\n- one\n-\n- two\nenv:\n  - name: X\n    value: "1"\n',
      'nested:\n  deeper:\n    deepest:\n    - x\n  back: y\n',
      'url: https://user@host:6443/path?x=1#frag\n',
      'key:    spaced   \n',
    ];
    for (const text of texts) expect(agrees(text), text).toBe(true);
  });

  it('leaves to yaml what it is not sure of', () => {
    const texts = [
      '',
      'port: 6443\n',
      'ratio: -.5\n',
      'when: 2026-01-01\n',
      'inf: .inf\n',
      'hex: 0x1F\n',
      'a: &x foo\nb: *x\n',
      'a: !!str foo\n',
      'a: {b: c}\n',
      'a: [b, c]\n',
      'a: |\n  text\n',
      'a: >\n  text\n',
      'a: b # comment\n',
      'a: "esc\\n"\n',
      'a:\tb\n',
      'a: b\r\n',
      'a: b\na: c\n',
      '---\na: b\n',
      'a: b\n  continued\n',
      '"quoted key": v\n',
      '? complex\n: key\n',
      'a: x: y\n',
      'list:\n-   spaced\n',
      'just a scalar\n',
      'a: "open\n',
      "a: 'open\n",
      "a: 'x'y'\n",
      '  indented: root\n',
      '__proto__: x\n',
      '- - nested\n',
    ];
    for (const text of texts) expect(readSimpleYaml(text), JSON.stringify(text)).toBeUndefined();
  });
});
