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

interface Step { method: string; path: string; body?: unknown }

/**
 * One process that sends these requests in order (as an informer-fed controller does: it lists, then patches an item
 * it never read alone), over plain HTTP to the server URL of the kubeconfig kwatch wrote (its path carries the run's
 * secret); it prints each answer's status.
 */
function requests(steps: Step[]): string[] {
  const script = `
    const fs = require('node:fs');
    const server = /server: (\\S+)/.exec(fs.readFileSync(process.argv[1], 'utf8'))[1];
    const steps = ${JSON.stringify(steps)};
    (async () => {
      for (const s of steps) {
        const headers = { 'User-Agent': 'scripted-controller', 'Content-Type': 'application/merge-patch+json' };
        const r = await fetch(server + s.path, { method: s.method, headers, ...(s.body === undefined ? {} : { body: JSON.stringify(s.body) }) });
        await r.text();
        console.log(s.method, r.status);
      }
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
    const r = await exec('-n', 'default', '--once', '--quiet', '1s', '-o', 'ndjson', ...requests([{ method: 'GET', path: '/api/v1/namespaces/default/configmaps' }, { method: 'PATCH', path: '/api/v1/namespaces/default/configmaps/listed', body: { data: { a: 'c' } } }]));
    expect(r.stderr).toMatch(/^node \| PATCH 200$/m);
    const w = records(r.stdout).find((x) => x.op === 'write');
    expect(w).toMatchObject({ client: expect.stringMatching(/^node\[\d+\]$/), verb: 'patch', code: 200 });
    expect(w!.diff).toEqual([{ path: 'data.a', old: 'b', new: 'c' }]);
    expect(records(r.stdout).find((x) => x.op === 'pending')).toMatchObject({ key: 'default/listed', fields: ['data.a'] });
  });
});

describe('A8: --writes server-dry-run shows the target\'s answer', () => {
  it('as a diff against the object the target holds now, though the client never read it', async () => {
    expect((await k.kubectl('create', 'configmap', 'dry', '--from-literal=a=b', '-n', 'default')).code).toBe(0);
    const r = await exec('-n', 'default', '--writes', 'server-dry-run', '--once', '--quiet', '1s', '-o', 'ndjson', ...requests([{ method: 'PATCH', path: '/api/v1/namespaces/default/configmaps/dry', body: { data: { a: 'c', n: '1' } } }]));
    expect(r.stderr).toMatch(/^node \| PATCH 200$/m);
    const w = records(r.stdout).find((x) => x.op === 'write');
    expect(w).toMatchObject({ verb: 'patch', mode: 'server-dry-run', code: 200, answer: 'would change 2 fields: data.a, data.n' });
    expect(w!.diff).toEqual([{ path: 'data.a', old: 'b', new: 'c' }, { path: 'data.n', new: '1' }]);
    expect(records(r.stdout).find((x) => x.op === 'pending')).toMatchObject({ key: 'default/dry', fields: ['data.a', 'data.n'] });
    // Nothing was stored.
    expect((await k.kubectl('get', 'configmap', 'dry', '-n', 'default', '-o', 'jsonpath={.data.a}')).stdout).toBe('b');
  });

  it('a refused dry run shows its Status: code, reason and message', async () => {
    expect((await k.kubectl('create', 'configmap', 'dry-stale', '--from-literal=a=b', '-n', 'default')).code).toBe(0);
    const r = await exec('-n', 'default', '--writes', 'server-dry-run', '--once', '--quiet', '1s', '-o', 'ndjson', ...requests([{ method: 'PATCH', path: '/api/v1/namespaces/default/configmaps/dry-stale', body: { metadata: { resourceVersion: '1' }, data: { a: 'c' } } }]));
    expect(r.stderr).toMatch(/^node \| PATCH 409$/m);
    const w = records(r.stdout).find((x) => x.op === 'write');
    expect(w).toMatchObject({ verb: 'patch', mode: 'server-dry-run', code: 409, reason: 'Conflict', error: expect.stringMatching(/the object has been modified/) });
    expect(w!.answer).toMatch(/^refused: 409 Conflict: Operation cannot be fulfilled on configmaps "dry-stale": the object has been modified/);
    expect(records(r.stdout).find((x) => x.op === 'failed')).toMatchObject({ key: 'default/dry-stale', lastCode: 409, lastReason: 'Conflict' });
  });
});
