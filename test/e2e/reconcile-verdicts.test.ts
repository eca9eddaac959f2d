// kwatch reconcile --once as a CI gate: the built CLI against the embedded server; each exit code and
// verdict line a CI script would read.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { kwatch } from './events-helpers.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'reconcilers');
const k = kubectlSim({ seed: 11, nodes: 1, pods: 6, churn: 0 }, 'kwatch-e2e-verdicts-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
const reconcile = (...args: string[]) => kwatch(['reconcile', ...args], env());

// Each test is one or two CLI runs that mostly wait (a --settle-timeout, a retry's backoff, --qps); they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('kwatch reconcile --once verdicts', { timeout: 60_000 }, () => {
  it('a key that fails once and then succeeds is retried, as controller-runtime would: converged, exit 0', async () => {
    const mod = k.file(
      'flaky.mjs',
      `const failed = new Set();
      export default { for: 'deployments.apps', reconcile(req) {
        if (!failed.has(req.name)) { failed.add(req.name); throw new Error('Operation cannot be fulfilled: the object has been modified'); }
      } };`,
    );
    const r = await reconcile('--with', mod, '-n', 'default', '--once');
    expect(r.stderr).toMatch(/^converged: \d+ keys?, \d+ runs, no write pending$/m);
    expect(r.code).toBe(0);
  });

  it('-o ndjson ends with one verdict record (stage reconcile): the verdict, its exit code, the write mode and the verdict line, for a CI step to read', async () => {
    const quiet = k.file('does-nothing.mjs', `export default { for: 'deployments.apps', reconcile() {} };`);
    const throws = k.file('always-throws.mjs', `export default { for: 'deployments.apps', reconcile() { throw new Error('boom'); } };`);
    const [converged, errors] = await Promise.all([
      reconcile('--with', quiet, '-n', 'default', '--once', '--writes', 'overlay', '-o', 'ndjson'),
      reconcile('--with', throws, '-n', 'default', '--once', '--settle-timeout', '1s', '-o', 'ndjson'),
    ]);
    const last = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';
    for (const [r, verdict, exit, mode] of [[converged, 'converged', 0, 'overlay'], [errors, 'errors', 2, 'intercept']] as const) {
      expect(JSON.parse(last(r.stdout))).toEqual({ time: expect.any(String), stage: 'reconcile', op: 'verdict', key: null, rv: null, verdict, exit, mode, message: last(r.stderr) });
      expect(r.stdout.split('\n').filter((l) => l.includes('"op":"verdict"'))).toHaveLength(1);
      expect(r.code).toBe(exit);
    }
    expect(last(converged.stderr)).toMatch(/^converged: \d+ keys?, \d+ runs?, no write pending$/);
  });

  // A key that keeps failing (retried until --settle-timeout, then a reconcile error, exit 2) is the TypeScript
  // thrower's table run below ("where an error was thrown"): one CLI run for both.

  it('a key that errors and leaves a write pending is a reconcile error, exit 2 (not "writes pending", 1)', async () => {
    const mod = k.file(
      'writes-then-throws.mjs',
      `export default { for: 'deployments.apps', async reconcile(req, ctx) {
        const d = await ctx.get('deployments.apps', req);
        await ctx.patch(d, { metadata: { labels: { touched: 'yes' } } });
        throw new Error('failed after writing');
      } };`,
    );
    const r = await reconcile('--with', mod, '-n', 'default', '--once', '--settle-timeout', '1s');
    expect(r.stderr).toMatch(/^errors: 1 of 1 key ended in an error, 1 with writes pending/m);
    expect(r.code).toBe(2);
  });

  it('a reported loop never exits 0, even when the controller stops writing before the end', async () => {
    const mod = k.file(
      'stamps-eight.mjs',
      `const rounds = new Map();
      export default { for: 'deployments.apps', async reconcile(req, ctx) {
        const n = (rounds.get(req.name) ?? 0) + 1; rounds.set(req.name, n);
        const d = await ctx.get('deployments.apps', req);
        if (d && n <= 8) await ctx.updateStatus({ ...d, status: { ...d.status, round: n } });
      } };`,
    );
    const r = await reconcile('--with', mod, '-n', 'default', '--once', '--writes', 'overlay', '--loop-threshold', '3');
    expect(r.stderr).toMatch(/^loop: stamps-eight /m);
    expect(r.stderr).toMatch(/^not converged: \d+ keys?, \d+ runs, no write pending, \d+ loops? reported$/m);
    expect(r.code).toBe(1);
  });

  it('reaching --max-reconciles is "did not settle", exit 1, under overlay and under apply alike', async () => {
    // Each run on a Deployment of its own (the apply run's status writes reach the server, and so the other run's
    // watch, when they share one), so the two go at once.
    const [first, second] = await deployments();
    const args = (key: string) => ['--with', join(EXAMPLES, 'status-stamper.mjs'), '-n', key.split('/')[0], '--field-selector', `metadata.name=${key.split('/')[1]}`, '--once', '--max-reconciles', '12'];
    const [overlay, apply] = await Promise.all([reconcile(...args(first), '--writes', 'overlay'), reconcile(...args(second), '--writes', 'apply', '--yes')]);
    for (const r of [overlay, apply]) {
      // Exactly N runs: the limit stops the run at the 12th, not after one more.
      expect(r.stderr).toMatch(/^did not settle: stopped at --max-reconciles; 1 of 1 key would still write \(12 runs\)/m);
      expect(r.stderr).not.toMatch(/^error/m);
      expect(r.code).toBe(1);
    }
  });

  it('a run cut short by --settle-timeout with nothing pending (a reconcile that never returns, writing nothing) is "did not settle", exit 1, with the report', async () => {
    const hung = await firstDeployment();
    const mod = k.file('hangs-on-one.mjs', `export default { for: 'deployments.apps', reconcile(req) { if (req.name === ${JSON.stringify(hung)}) return new Promise(() => {}); } };`);
    const r = await reconcile('--with', mod, '-n', 'default', '--once', '--settle-timeout', '1s');
    expect(r.stderr).toMatch(/^did not settle: not settled within --settle-timeout 1(\.0)?s; 0 of \d+ keys? would still write \(\d+ runs?\)$/m);
    // It is left behind after a grace period: before, the process ended with Node's exit 13 and no report at all.
    expect(r.code).toBe(1);
  });

  it('usage and load errors exit 1 with or without --once; --help says what each exit code means', async () => {
    const mod = k.file('noop.mjs', 'export const reconcile = () => {};\n');
    // Three runs of their own: at once.
    const [plain, once, help] = await Promise.all([reconcile('widgets', '--with', mod), reconcile('widgets', '--with', mod, '--once'), reconcile('--help')]);
    for (const r of [plain, once]) {
      expect(r.stderr.trim()).toBe('error: the server doesn\'t have a resource type "widgets"');
      expect(r.code).toBe(1);
    }
    expect(help.stdout).toMatch(/^\s+1\s+not converged/m);
    expect(help.stdout).toMatch(/^\s+2\s+reconcile errors/m);
    expect(help.stdout).toMatch(/^\s+3\s+an --expect expectation did not hold/m);
  });
});

async function firstDeployment(): Promise<string> {
  const r = await k.kubectl('get', 'deployments.apps', '-n', 'default', '-o', 'jsonpath={.items[0].metadata.name}');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

/** Every Deployment as namespace/name, default's first (the seed makes more than one, in more than one namespace). */
async function deployments(): Promise<string[]> {
  const r = await k.kubectl('get', 'deployments.apps', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}');
  expect(r.code).toBe(0);
  const keys = r.stdout.trim().split(/\s+/).sort((a, b) => Number(b.startsWith('default/')) - Number(a.startsWith('default/')));
  expect(keys.length).toBeGreaterThan(1);
  return keys;
}

describe('kwatch reconcile: where an error was thrown', { timeout: 60_000 }, () => {
  it('a key that keeps failing is retried until --settle-timeout and ends as a reconcile error, exit 2; a TypeScript controller\'s error names its file:line in the table (source-mapped) and carries the stack in ndjson', async () => {
    const mod = k.file(
      'thrower.ts',
      `import type { ReconcileRequest } from 'kwatch';
interface Target { name: string }
function check(t: Target): void {
  if (t.name) throw new Error('payment API unreachable for ' + t.name);
}
export default { for: 'deployments.apps', reconcile(req: ReconcileRequest) { check({ name: req.name }); } };
`,
    );
    // The table run and the ndjson run are independent: at once. The table run is also the key that keeps failing:
    // --max-reconciles far off, so only --settle-timeout ends its retries.
    const [table, nd] = await Promise.all([
      reconcile('--with', mod, '-n', 'default', '--once', '--settle-timeout', '1s', '--max-reconciles', '1000'),
      reconcile('--with', mod, '-n', 'default', '--once', '--settle-timeout', '1s', '-o', 'ndjson'),
    ]);
    expect(table.stderr).toMatch(/^errors: \d+ of \d+ keys? ended in an error \(\d+ runs\) \(not settled within --settle-timeout 1(\.0)?s\)$/m);
    expect(table.code).toBe(2);
    expect(table.stdout).toMatch(/reconcile\s+error\s+default\/\S+\s+.*at=\S*thrower\.ts:4\b/);
    expect(table.stdout).not.toMatch(/stack=/);
    expect(table.stdout).toMatch(/│ error \(\S*thrower\.ts:4\): payment API unreachable/);
    const errors = nd.stdout.split('\n').filter((l) => l.includes('"stage":"reconcile","op":"error"')).map((l) => JSON.parse(l));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].at).toMatch(/thrower\.ts:4$/);
    expect(errors[0].stack).toMatch(/^Error: payment API unreachable[^\n]*\n\s+at check \(\S*thrower\.ts:4:\d+\)/);
  });
});

describe('kwatch reconcile: client-side write limits', { timeout: 60_000 }, () => {
  it('--max-writes stops a reconciler that writes without end: one line, exit 2; --qps paces what is sent', async () => {
    const mod = k.file(
      'flood.mjs',
      `export default { for: 'deployments.apps', async reconcile(req, ctx) {
        for (let i = 0; i < 100; i++) await ctx.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'flood-', namespace: req.namespace }, data: {} });
      } };`,
    );
    // Two runs of their own (server-dry-run stores nothing): at once; the paced one is timed on its own.
    const t0 = Date.now();
    const [capped, [paced, pacedMs]] = await Promise.all([
      reconcile('--with', mod, '-n', 'default', '--once', '--writes', 'server-dry-run', '--max-writes', '25'),
      reconcile('--with', mod, '-n', 'default', '--once', '--writes', 'server-dry-run', '--max-writes', '12', '--qps', '5', '--burst', '2', '-o', 'ndjson').then((r) => [r, Date.now() - t0] as const),
    ]);
    expect(capped.stderr.trim()).toBe('error: --max-writes 25 reached: the reconcilers sent 25 writes in this run and kwatch stopped it (raise --max-writes if that is expected)');
    expect(capped.code).toBe(2);
    // 2 at once, then 9 more at 5/s before the 12th is refused: at least 1.8 s, whatever the machine.
    expect(pacedMs).toBeGreaterThanOrEqual(1_800);
    expect(paced.stdout.split('\n').filter((l) => l.includes('"op":"write"') && l.includes('"verb":"create"')).length).toBeGreaterThanOrEqual(11);
    expect(paced.code).toBe(2);
  });
});
