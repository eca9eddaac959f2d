// kwatch reconcile end to end: the built CLI runs the example controllers (and small test modules)
// against the embedded server over HTTP, with real kubectl making the changes and judging the server.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportRows } from './report-rows.js';
import { kubectlSim } from '../sim/sim-helpers.js';
import { kwatch, Running, type Rec } from './events-helpers.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'reconcilers');
const example = (name: string) => join(EXAMPLES, name);
const k = kubectlSim({ seed: 7, nodes: 2, pods: 12, churn: 0 }, 'kwatch-e2e-reconcile-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
const reconcile = (...args: string[]) => kwatch(['reconcile', ...args], env());

async function deployments(): Promise<{ metadata: { namespace: string; name: string; annotations?: Record<string, string> } }[]> {
  const r = await k.kubectl('get', 'deployments.apps', '-A', '-o', 'json');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).items;
}

function records(stdout: string): Rec[] {
  return stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Rec);
}

describe('kwatch reconcile --writes', () => {
  it('intercept (default): one write per Deployment, nothing sent; --once exits 1 with the writes pending', async () => {
    const all = await deployments();
    const r = await reconcile('--with', example('annotator.mjs'), '-A', '--once', '-o', 'ndjson');
    expect(r.stderr).toMatch(/not converged: \d+ of \d+ keys would still write/);
    expect(r.code).toBe(1);
    const recs = records(r.stdout);
    const writes = recs.filter((x) => x.op === 'write');
    expect(writes.map((w) => w.target).sort()).toEqual(all.map((d) => `${d.metadata.namespace}/${d.metadata.name}`).sort());
    expect(writes[0]).toMatchObject({ stage: 'reconcile', controller: 'annotator', verb: 'patch', mode: 'intercept', request: { verb: 'patch', patchType: 'merge' } });
    expect(writes[0].diff).toEqual([expect.objectContaining({ path: 'metadata.annotations["example.com/owner-team"]', new: expect.stringMatching(/^team-/) })]);
    expect(recs.filter((x) => x.op === 'pending')).toHaveLength(all.length);
    for (const d of await deployments()) expect(d.metadata.annotations?.['example.com/owner-team']).toBeUndefined();
  });

  it('overlay: the annotator sees its own writes and converges (--once exits 0); the server is untouched', async () => {
    const r = await reconcile('--with', example('annotator.mjs'), '-A', '--once', '--writes', 'overlay');
    expect(r.stderr).toMatch(/^converged: \d+ keys, \d+ runs, no write pending$/m);
    expect(r.code).toBe(0);
    expect(Object.keys(reportRows(r.stdout)[0])).toEqual(['KEY', 'RUNS', 'REASONS', 'WRITES', 'RESULT', 'DURATION']);
    expect(r.stdout).toMatch(/object updated \(OnUpdate@local-\d+, local, own write\)/);
    for (const d of await deployments()) expect(d.metadata.annotations?.['example.com/owner-team']).toBeUndefined();
  });

  it('server-dry-run: the server answers each write (its 422 included) and stores nothing', async () => {
    const mod = k.file(
      'dry-run.mjs',
      `export const reconcile = async (req, ctx) => {
        const d = await ctx.get('deployments.apps', req);
        await ctx.patch(d, { metadata: { labels: { checked: 'yes' } } });
        try { await ctx.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_A_Valid_Name', namespace: req.namespace }, data: {} }); }
        catch (e) { ctx.log('create refused:', e.message); }
      };`,
    );
    const r = await reconcile('deployments', '--with', mod, '-n', 'default', '--once', '--writes', 'server-dry-run', '-o', 'ndjson');
    const recs = records(r.stdout);
    const [patch, create] = recs.filter((x) => x.op === 'write');
    expect(patch).toMatchObject({ verb: 'patch', mode: 'server-dry-run' });
    expect(Number(patch.rv)).toBeGreaterThan(0);
    expect(create).toMatchObject({ verb: 'create', mode: 'server-dry-run', status: { code: 422, reason: 'Invalid' } });
    expect(recs.find((x) => x.op === 'log')?.message).toMatch(/create refused: .*Not_A_Valid_Name.*is invalid/);
    const cms = await k.kubectl('get', 'configmaps', '-n', 'default', '-o', 'name');
    expect(cms.stdout).not.toMatch(/Not_A_Valid_Name/i);
    const labels = await k.kubectl('get', 'deployments.apps', '-n', 'default', '-o', 'jsonpath={.items[*].metadata.labels.checked}');
    expect(labels.stdout.trim()).toBe('');
  });

  it('apply is refused against a server that is not --sim unless --yes; with --yes it writes and says where first', async () => {
    const refused = await reconcile('--with', example('annotator.mjs'), '-n', 'default', '--once', '--writes', 'apply');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^error: --writes apply sends the reconciler's writes to the cluster for real: add --yes/);
    const r = await reconcile('--with', example('annotator.mjs'), '-n', 'default', '--once', '--writes', 'apply', '--yes', '--max-reconciles', '20');
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^kwatch: --writes apply: the reconciler's writes go to context "\\S+" at ${k.sim.url.replace(/[.:/]/g, '\\$&')}`));
    expect(r.stderr).toMatch(/^converged:/m);
    const annotated = (await deployments()).filter((d) => d.metadata.namespace === 'default');
    expect(annotated.length).toBeGreaterThan(0);
    for (const d of annotated) expect(d.metadata.annotations?.['example.com/owner-team']).toBe('team-default');
  });
});

describe('kwatch reconcile --once verdicts and the loop detector', () => {
  it('exits 2 when a run ends in an error, with the backoff shown', async () => {
    const mod = k.file('throws.mjs', `export default { for: 'deployments.apps', reconcile() { throw new Error('cannot reach the payment API'); } };`);
    const r = await reconcile('--with', mod, '-n', 'default', '--once', '--max-reconciles', '3');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/│ error \(\S*throws\.mjs:1\): cannot reach the payment API/);
    expect(r.stdout).toMatch(/reconcile\s+error\s+default\/\S+\s+.*backoffMs=\d+/);
    expect(r.stderr).toMatch(/^errors: 1 of 1 key ended in an error/m);
  });

  it('reports the looping status writer and the field that changes every round', async () => {
    const r = await reconcile('--with', example('status-stamper.mjs'), '-n', 'default', '--once', '--writes', 'overlay', '--loop-threshold', '3');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^loop: status-stamper default\/\S+ re-triggered itself with its own writes 4 times in a row; changing every round: status\.conditions\[type=Stamped\]\.lastUpdateTime; GenerationChangedPredicate would have broken it/m);
    expect(r.stdout).toMatch(/reconcile\s+loop\s+default\//);
    expect(r.stderr).toMatch(/stopped at --max-reconciles/);
  });
});

describe('kwatch reconcile triggers, driven by kubectl', { timeout: 60_000 }, () => {
  it('owns: a ReplicaSet change enqueues its Deployment with the related-object reason', async () => {
    const run = new Running(['reconcile', '--with', example('replica-auditor.mjs'), '-n', 'default', '-o', 'ndjson', '--for', '60s'], env());
    try {
      await run.waitFor((r) => r.op === 'success', 'the first runs', 25_000);
      const rs = JSON.parse((await k.kubectl('get', 'replicasets.apps', '-n', 'default', '-o', 'json')).stdout).items[0];
      const owner = rs.metadata.ownerReferences.find((o: { controller?: boolean }) => o.controller).name;
      expect((await k.kubectl('annotate', 'replicasets.apps', rs.metadata.name, '-n', 'default', 'touched=1')).code).toBe(0);
      const related = (r: Rec) => r.op === 'start' && (r.reasons as { reason: string; op: string }[]).some((x) => x.reason === 'related object updated' && x.op === 'OnUpdate');
      const start = await run.waitFor(related, 'the owner run', 25_000);
      expect(start.key).toBe(`default/${owner}`);
      expect(start.reasons).toEqual([expect.objectContaining({ reason: 'related object updated', resource: 'replicasets.apps', key: `default/${rs.metadata.name}`, op: 'OnUpdate' })]);
    } finally {
      await run.stop();
    }
  });

  it('watches + map: editing a ConfigMap re-runs exactly the Deployments that mount it', async () => {
    const run = new Running(['reconcile', '--with', example('configmap-roller.mjs'), '-A', '-o', 'ndjson', '--for', '60s'], env());
    try {
      await run.waitFor((r) => r.stage === 'reflector' && r.op === 'synced' && r.resource === 'configmaps', 'the configmaps sync', 25_000);
      const all = JSON.parse((await k.kubectl('get', 'deployments.apps', '-A', '-o', 'json')).stdout).items;
      const target = all[0];
      const cm = target.spec.template.spec.volumes.find((v: { configMap?: { name: string } }) => v.configMap).configMap.name;
      const mounting = all.filter((d: typeof target) => d.metadata.namespace === target.metadata.namespace && JSON.stringify(d.spec.template.spec.volumes).includes(`"${cm}"`)).map((d: typeof target) => `${d.metadata.namespace}/${d.metadata.name}`);
      const before = run.records.length;
      expect((await k.kubectl('patch', 'configmap', cm, '-n', target.metadata.namespace, '--type', 'merge', '-p', '{"data":{"edited":"yes"}}')).code).toBe(0);
      const started = () => run.records.slice(before).filter((r) => r.op === 'start');
      // Every mounting Deployment runs (each run's success comes after its start) …
      await run.waitFor(() => started().length >= mounting.length && run.records.slice(before).filter((r) => r.op === 'success').length >= mounting.length, 'the mapped runs', 25_000);
      // … and nothing else does: the workqueue stays quiet a moment longer.
      await new Promise((r) => setTimeout(r, 300));
      const runs = started();
      expect(runs.map((r) => r.key).sort()).toEqual(mounting.sort());
      expect(runs[0].reasons).toEqual([expect.objectContaining({ reason: 'related object updated', resource: 'configmaps', key: `${target.metadata.namespace}/${cm}` })]);
    } finally {
      await run.stop();
    }
  });

  // client-go 1.35's default: each informer syncs with one watch-list (sendInitialEvents) and no LIST;
  // --no-watch-list: one LIST and one WATCH, as client-go 1.34 and earlier.
  for (const sync of ['watch-list', 'list'] as const) {
    it(`two controllers share one ${sync === 'list' ? 'LIST and one WATCH' : 'watch-list'} per kind${sync === 'list' ? ' (--no-watch-list)' : ''}`, async () => {
      const r = await reconcile('--with', example('replica-auditor.mjs'), '--with', example('configmap-roller.mjs'), '-A', '--once', ...(sync === 'list' ? ['--no-watch-list'] : []), '--stages', 'http,reconcile', '-o', 'ndjson');
      expect(r.code).toBeLessThan(2);
      const http = records(r.stdout).filter((x) => x.stage === 'http' && x.op === 'request');
      const count = (re: RegExp) => http.filter((x) => re.test(String(x.url))).length;
      for (const path of [/\/apis\/apps\/v1\/deployments\?/, /\/apis\/apps\/v1\/replicasets\?/, /\/api\/v1\/configmaps\?/]) {
        expect(count(new RegExp(path.source + '(?!.*watch=)'))).toBe(sync === 'list' ? 1 : 0);
        expect(count(new RegExp(path.source + '.*watch=true'))).toBe(1);
        expect(count(new RegExp(path.source + '.*sendInitialEvents=true'))).toBe(sync === 'list' ? 0 : 1);
      }
      const starts = records(r.stdout).filter((x) => x.op === 'start');
      expect(new Set(starts.map((x) => x.controller))).toEqual(new Set(['replica-auditor', 'configmap-roller']));
    });
  }
});

describe('kwatch reconcile --from-recording', { timeout: 60_000 }, () => {
  it('replays a recording on its virtual clock: the same trace every run, owners enqueued by their ReplicaSets', async () => {
    const rec = join(k.dir, 'workloads.ndjson');
    const recording = new Running(['events', 'deployments.apps,replicasets.apps', '-n', 'default', '--record', rec, '-o', 'ndjson', '--for', '60s'], env());
    await recording.waitFor((r) => r.stage === 'reflector' && r.op === 'watch-start' && r.resource === 'replicasets.apps', 'the recording to watch', 25_000);
    const rs = JSON.parse((await k.kubectl('get', 'replicasets.apps', '-n', 'default', '-o', 'json')).stdout).items[0];
    expect((await k.kubectl('label', 'replicasets.apps', rs.metadata.name, '-n', 'default', 'replayed=yes')).code).toBe(0);
    await recording.waitFor((r) => r.stage === 'watch' && r.op === 'MODIFIED' && r.key === `default/${rs.metadata.name}`, 'the recorded update', 25_000);
    await recording.stop();
    const args = ['reconcile', '--with', example('replica-auditor.mjs'), '--from-recording', rec, '-o', 'ndjson'];
    // The two replays and the refused one read the recording only: all at once.
    const [a, b, refused] = await Promise.all([
      kwatch(args, env()),
      kwatch(args, env()),
      kwatch(['reconcile', '--with', example('replica-auditor.mjs'), '--from-recording', rec, '--writes', 'apply'], env()),
    ]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const starts = records(a.stdout).filter((r) => r.op === 'start');
    expect(starts.some((r) => (r.reasons as { reason: string; key: string }[]).some((x) => x.reason === 'related object updated' && x.key === `default/${rs.metadata.name}`))).toBe(true);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^error: --from-recording has no server to send writes to/);
  });
});

describe('kwatch reconcile: a TypeScript controller', () => {
  it('loads a .ts module on this Node (types from kwatch, an enum, a relative import) and records what it read', async () => {
    k.file('labels.ts', 'export const TEAM_LABEL: string = "example.com/team";\n');
    const mod = k.file(
      'controller.ts',
      `import { defineController, type ReconcileContext, type ReconcileRequest } from 'kwatch';
import { TEAM_LABEL } from './labels';
enum Verdict { Labelled = 'labelled', Skipped = 'skipped' }
async function reconcile(req: ReconcileRequest, ctx: ReconcileContext): Promise<void> {
  const d = await ctx.get('deployments.apps', req);
  if (!d) return;
  const verdict: Verdict = d.metadata.labels?.[TEAM_LABEL] ? Verdict.Skipped : Verdict.Labelled;
  ctx.log(verdict);
  if (verdict === Verdict.Labelled) await ctx.patch(d, { metadata: { labels: { [TEAM_LABEL]: 'platform' } } });
}
export default defineController({ name: 'ts-labeller', for: 'deployments.apps', reconcile });
`,
    );
    const rec = join(k.dir, 'ts-run.ndjson');
    const r = await reconcile('--with', mod, '-n', 'default', '--once', '--writes', 'overlay', '--record', rec, '-o', 'ndjson');
    expect(r.stderr).toMatch(/^converged:/m);
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs.filter((x) => x.op === 'log').map((x) => x.message)).toEqual(expect.arrayContaining(['labelled', 'skipped']));
    expect(recs.find((x) => x.op === 'write')).toMatchObject({ controller: 'ts-labeller', changed: ['metadata.labels["example.com/team"]'] });
    expect(r.stderr).toMatch(new RegExp(`recorded \\d+ lines to ${rec.replace(/[.]/g, '\\.')}`));
    // The recording replays the same verdict offline.
    const replayed = await kwatch(['reconcile', '--with', mod, '--from-recording', rec, '--once', '--writes', 'overlay'], env());
    expect(replayed.stderr).toMatch(/^converged:/m);
  });
});

// Runs that fail at once and never write; they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('kwatch reconcile: bad input', { timeout: 60_000 }, () => {
  it('a module without reconcile, or a missing file, is one line naming the file, exit 1', async () => {
    const mod = k.file('empty.mjs', 'export const nothing = 1;\n');
    const [r, missing] = await Promise.all([reconcile('deployments', '--with', mod, '--once'), reconcile('deployments', '--with', join(k.dir, 'nope.mjs'))]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('empty.mjs');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('nope.mjs');
  });
  // An unknown primary resource (kubectl's one-line error, exit 1) is checked on the same run, with and without
  // --once, in e2e/reconcile-verdicts.test.ts ("usage and load errors").
});
