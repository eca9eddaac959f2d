// What a write record of `kwatch reconcile --exec` diffs against (issue 37, A6 and A8): the built CLI stands between a
// controller process and the embedded API server over real HTTP.
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { KUBECTL, kwatch, type Rec } from './events-helpers.js';

const k = kubectlSim({ seed: 5, nodes: 1, pods: 0, churn: 0 }, 'kwatch-e2e-exec-diffs-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: `${k.dir}/cache` });
const exec = (...args: string[]) => kwatch(['reconcile', '--exec', ...args], env());
const sh = (script: string) => ['--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)];

function records(stdout: string): Rec[] {
  return stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);
}

/**
 * One process that lists a collection and then patches an item it never read alone (as an informer-fed controller
 * does), over plain HTTP to the server URL of the kubeconfig kwatch wrote (its path carries the run's secret).
 */
function listThenPatch(listPath: string, patchPath: string, patch: unknown): string[] {
  const script = `
    const fs = require('node:fs');
    const server = /server: (\\S+)/.exec(fs.readFileSync(process.argv[1], 'utf8'))[1];
    (async () => {
      const list = await fetch(server + ${JSON.stringify(listPath)}, { headers: { 'User-Agent': 'list-then-patch' } });
      console.log('list', list.status, (await list.json()).items.length > 0);
      const r = await fetch(server + ${JSON.stringify(patchPath)}, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json', 'User-Agent': 'list-then-patch' }, body: ${JSON.stringify(JSON.stringify(patch))} });
      console.log('patch', r.status);
    })();`;
  return ['--no-tls', '--', process.execPath, '-e', script, '{kubeconfig}'];
}

describe('A6: a write is diffed against the object of its own kind', () => {
  it('a write to /scale is diffed against the Scale of the Deployment the client was sent, not the Deployment', async () => {
    expect((await k.kubectl('create', 'deployment', 'scaled', '--image=nginx', '--replicas=1', '-n', 'default')).code).toBe(0);
    const r = await exec('-n', 'default', '-o', 'ndjson', ...sh('kubectl get deployment scaled -o name && kubectl scale deployment scaled --replicas=3'));
    expect(r.stderr).toMatch(/^sh \| deployment\.apps\/scaled scaled$/m);
    const w = records(r.stdout).find((x) => x.op === 'write');
    expect(w).toMatchObject({ verb: 'patch', subresource: 'scale', resource: 'deployments.apps', code: 200 });
    expect(w!.diff).toEqual([{ path: 'spec.replicas', old: 1, new: 3 }]);
  });

  it('kind and apiVersion, which kube leaves off the items of a list, are not fields the first patch after the list wrote', async () => {
    expect((await k.kubectl('create', 'configmap', 'listed', '--from-literal=a=b', '-n', 'default')).code).toBe(0);
    const r = await exec('-n', 'default', '--once', '--quiet', '1s', '-o', 'ndjson', ...listThenPatch('/api/v1/namespaces/default/configmaps', '/api/v1/namespaces/default/configmaps/listed', { data: { a: 'c' } }));
    expect(r.stderr).toMatch(/^node \| patch 200$/m);
    const w = records(r.stdout).find((x) => x.op === 'write');
    expect(w).toMatchObject({ client: 'list-then-patch', verb: 'patch', code: 200 });
    expect(w!.diff).toEqual([{ path: 'data.a', old: 'b', new: 'c' }]);
    expect(records(r.stdout).find((x) => x.op === 'pending')).toMatchObject({ key: 'default/listed', fields: ['data.a'] });
  });
});
