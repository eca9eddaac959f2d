// kwatch reconcile --with MODULE --inject: the faults --exec and replay have, on a module's informers and writes. The
// built CLI against the embedded server.
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { BIN, Running, run } from './events-helpers.js';
import { join } from 'node:path';

const k = kubectlSim({ seed: 11, nodes: 1, pods: 6, churn: 0 }, 'kwatch-e2e-inject-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
// A run waits for --once to settle or --for to pass: on a loaded machine that may take longer than the usual bound.
const reconcile = (...args: string[]) => run(process.execPath, [BIN, 'reconcile', ...args], env(), undefined, 90_000);
const records = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('kwatch reconcile --inject (module mode)', { timeout: 200_000 }, () => {
  it('conflict@1: the first write gets a 409, the key is retried and converges; a fault that never fired is said', async () => {
    const mod = k.file(
      'labeller.mjs',
      `export default { for: 'deployments.apps', async reconcile(req, ctx) {
        const d = await ctx.get('deployments.apps', req);
        if (d && d.metadata.labels?.checked !== 'yes') await ctx.patch(d, { metadata: { labels: { checked: 'yes' } } });
      } };`,
    );
    const r = await reconcile('--with', mod, '-n', 'default', '--once', '--writes', 'overlay', '--inject', 'conflict@1', '--inject', 'error@50', '-o', 'ndjson');
    const writes = records(r.stdout).filter((x) => x.stage === 'reconcile' && x.op === 'write');
    expect(writes[0]).toMatchObject({ injected: 'conflict@1', status: { code: 409, reason: 'Conflict' }, error: expect.stringContaining('the object has been modified') });
    expect(writes.at(-1)?.injected).toBeUndefined();
    expect(records(r.stdout).some((x) => x.op === 'error' && x.stage === 'reconcile')).toBe(true);
    expect(r.stderr).toMatch(/^converged: 1 key, \d+ runs, no write pending$/m);
    expect(r.stderr).toContain('Warning: --inject error@50 never fired');
    expect(r.code).toBe(0);
  });

  it('expire at a time: the informer\'s watch gets a 410, a fault record says so and the reflector goes back to list', async () => {
    const mod = k.file('noop.mjs', `export default { for: 'deployments.apps', reconcile() {} };`);
    // The run is stopped (Ctrl-C) once the reflector has said it backs off to list, not after a fixed --for 8s: the
    // records asserted on all come before that one. --for is a backstop.
    const run = new Running(['reconcile', '--with', mod, '-n', 'default', '--for', '60s', '--inject', 'expire@1s', '--stages', 'reflector', '-o', 'ndjson'], env());
    await run.waitFor((x) => x.op === 'backoff', 'the reflector\'s backoff after the 410', 30_000);
    const r = { code: (await run.stop('SIGINT')).code };
    const recs = run.records as Record<string, unknown>[];
    const fault = recs.findIndex((x) => x.op === 'fault');
    expect(recs[fault]).toMatchObject({ stage: 'reflector', fault: 'expire@1000ms', resource: 'deployments.apps' });
    // After the 410: the watch closes, and the reflector backs off to list and watch again (as client-go's does).
    const after = recs.slice(fault);
    expect(after.find((x) => x.op === 'watch-close')).toMatchObject({ reason: 'error', error: expect.stringContaining('injected by kwatch: expire@1000ms') });
    expect(after.some((x) => x.op === 'expired')).toBe(true);
    expect(after.find((x) => x.op === 'backoff')).toMatchObject({ next: 'list-and-watch', reason: 'watch expired' });
    expect(r.code).toBe(0);
  });

  it('bad input: a malformed spec, and a timed fault with --from-recording, are one line and exit 1', async () => {
    const mod = k.file('noop2.mjs', `export default { for: 'deployments.apps', reconcile() {} };`);
    // Two refusals of their own: at once.
    const [bad, timed] = await Promise.all([
      reconcile('--with', mod, '-n', 'default', '--inject', 'explode@3'),
      reconcile('--with', mod, '--from-recording', join(k.dir, 'none.ndjson'), '--inject', 'expire@5s'),
    ]);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('invalid --inject "explode@3"');
    expect(bad.code).toBe(1);
    expect(timed.stderr).toMatch(/--inject expire@5000ms: with --from-recording, place a watch fault at a resourceVersion/);
    expect(timed.code).toBe(1);
  });
});
