// What each controller's cache holds: the command line's selectors on every primary, a module's `cache`
// entries (controller-runtime's ByObject), and a warning for a primary that lists nothing.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { kwatch, type Rec } from './events-helpers.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'reconcilers');
const k = kubectlSim({ seed: 11, nodes: 1, pods: 6, churn: 0 }, 'kwatch-e2e-scope-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
const records = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);

describe('kwatch reconcile: selectors and caches per controller', { timeout: 60_000 }, () => {
  it('-l applies to every primary, also one another module already watches as owned', async () => {
    const rsKeeper = k.file('rs-keeper.mjs', `export default { name: 'rs-keeper', for: 'replicasets.apps', reconcile() {} };`);
    const r = await kwatch(['reconcile', '--with', join(EXAMPLES, 'replica-auditor.mjs'), '--with', rsKeeper, '-A', '-l', 'app=tokens-api', '--once', '--stages', 'http,reconcile', '-o', 'ndjson'], env());
    expect(r.code).toBeLessThan(2);
    // The requests that sync each cache: a watch-list by default (client-go 1.35), a LIST with --no-watch-list.
    const lists = records(r.stdout).filter((x) => x.stage === 'http' && x.op === 'request' && (!/watch=/.test(String(x.url)) || /sendInitialEvents=true/.test(String(x.url)))).map((x) => String(x.url));
    for (const path of ['/apis/apps/v1/deployments?', '/apis/apps/v1/replicasets?']) {
      expect(lists.find((u) => u.includes(path))).toContain('labelSelector=app%3Dtokens-api');
    }
    const keys = records(r.stdout).filter((x) => x.op === 'start' && x.controller === 'rs-keeper').map((x) => x.key);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => String(key).startsWith('default/tokens-api-'))).toBe(true);
  });

  it("a module's cache entry scopes one resource: namespaces and a label selector", async () => {
    const mod = k.file(
      'scoped.mjs',
      `export default { name: 'scoped', for: 'deployments.apps', watches: [{ resource: 'configmaps', map: () => [] }],
        cache: { configmaps: { namespaces: ['default', 'kube-system'] }, 'deployments.apps': { labelSelector: 'app=coredns' } },
        async reconcile(req, ctx) { ctx.log('configmaps in', [...new Set((await ctx.list('configmaps')).map((c) => c.metadata.namespace))].sort().join(',')); } };`,
    );
    const r = await kwatch(['reconcile', '--with', mod, '-A', '--once', '-o', 'ndjson'], env());
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs.filter((x) => x.op === 'start').map((x) => x.key)).toEqual(['kube-system/coredns']);
    expect(recs.find((x) => x.op === 'log')?.message).toBe('configmaps in default,kube-system');
  });

  it('warns when a primary lists 0 objects', async () => {
    const r = await kwatch(['reconcile', '--with', join(EXAMPLES, 'annotator.mjs'), '-A', '-l', 'app=nothing-has-this', '--once'], env());
    expect(r.stderr).toMatch(/^Warning: annotator: deployments\.apps listed 0 objects \(check -n, -l, --field-selector and the module's cache\): nothing to reconcile$/m);
    expect(r.code).toBe(0);
  });

  it('a cache entry that is not one is one line naming the file, exit 1', async () => {
    const mod = k.file('bad-cache.mjs', `export default { for: 'deployments.apps', cache: { configmaps: { namespace: 'default' } }, reconcile() {} };`);
    const r = await kwatch(['reconcile', '--with', mod, '--once'], env());
    expect(r.stderr.trim()).toMatch(/^error: .*bad-cache\.mjs: cache\['configmaps'\]\.namespace is not a cache setting: use namespaces, labelSelector or fieldSelector$/);
    expect(r.code).toBe(1);
  });
});
