// Stopping a reconcile that never settles: --reconcile-timeout, and the signals (first waits, second exits).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { kwatch, Running } from './events-helpers.js';

const k = kubectlSim({ seed: 11, nodes: 1, pods: 6, churn: 0 }, 'kwatch-e2e-stop-');
const env = () => ({ KUBECONFIG: k.kubeconfig, KUBECACHEDIR: join(k.dir, 'cache') });
// A reconcile that never returns, and a timer that would keep the process alive on its own.
const HANGS = `setInterval(() => {}, 1000);
export default { name: 'hangs', for: 'deployments.apps', reconcile(req, ctx) { return new Promise(() => {}); } };`;

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('kwatch reconcile: stopping runs that never return', { timeout: 60_000 }, () => {
  it('the first signal says what it waits for; a second one (SIGTERM after SIGINT) exits at once, with the verdict', async () => {
    const mod = k.file('hangs.mjs', HANGS);
    const run = new Running(['reconcile', '--with', mod, '-n', 'default', '--once', '--settle-timeout', '5m', '-o', 'ndjson'], env());
    try {
      await run.waitFor((r) => r.op === 'start', 'the run to start', 25_000);
      run.child.kill('SIGINT');
      await until(() => run.stderr.includes('waiting for 1 running reconcile (again to force)'), 'the waiting line');
      const t0 = Date.now();
      run.child.kill('SIGTERM');
      const exit = await run.wait();
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(exit.code).toBe(1);
      expect(run.stderr).toMatch(/^did not settle: forced to stop with 1 reconcile still running; 0 of 0 keys would still write \(0 runs\)$/m);
    } finally {
      await run.stop('SIGKILL');
    }
  });

  it('--reconcile-timeout: a run past its deadline is an error, "deadline exceeded", exit 2', async () => {
    const mod = k.file('hangs-deadline.mjs', HANGS.replace("name: 'hangs'", "name: 'hangs-deadline'"));
    const r = await new Promise<{ code: number; stderr: string; stdout: string }>((resolve) => {
      void kwatch(['reconcile', '--with', mod, '-n', 'default', '--once', '--reconcile-timeout', '300ms', '--settle-timeout', '2s', '--for', '20s'], env()).then(resolve);
    });
    expect(r.stdout).toMatch(/reconcile\s+error\s+default\/\S+\s+.*error="deadline exceeded: the reconcile ran longer than --reconcile-timeout 300ms"/);
    expect(r.stderr).toMatch(/^errors: 1 of 1 key ended in an error/m);
    expect(r.code).toBe(2);
  });
});
