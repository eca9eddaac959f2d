import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import type { ReconcileContext } from '../../src/reconcile/types.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

describe('reconcile: runs that take too long', () => {
  it('a run still going after 10s gets one still-running record; a quicker one gets none', async () => {
    const clock = new FakeClock();
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'slow'));
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'quick'));
    let release!: () => void;
    const h = await startSession({
      catalog,
      clock,
      mode: 'intercept',
      concurrency: 2,
      controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: (req) => (req.name === 'slow' ? new Promise<void>((r) => (release = r)) : undefined) } }],
    });
    await eventually(() => release !== undefined && h.session.report.runs === 1, 'both runs to start');
    await clock.advance(9_999);
    expect(h.records.filter((r) => r.op === 'still-running')).toEqual([]);
    await clock.advance(1);
    await clock.advance(30_000);
    expect(h.records.filter((r) => r.op === 'still-running')).toEqual([expect.objectContaining({ key: 'default/slow', controller: 'c', afterMs: 10_000 })]);
    release();
    await eventually(() => h.session.isIdle(), 'the slow run to end');
    await h.stop();
  });

  it('--reconcile-timeout: the run fails with deadline exceeded, its signal aborts and its later writes are refused', async () => {
    const clock = new FakeClock();
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    let ctxOf: ReconcileContext | undefined;
    let release!: () => void;
    const h = await startSession({
      catalog,
      clock,
      mode: 'intercept',
      reconcileTimeoutMs: 5_000,
      controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: (_req, ctx) => ((ctxOf ??= ctx), new Promise<void>((r) => (release = r))) } }],
    });
    await eventually(() => release !== undefined, 'the run to start');
    await clock.advance(5_000);
    await eventually(() => h.records.some((r) => r.stage === 'reconcile' && r.op === 'error'), 'the deadline');
    expect(h.records.find((r) => r.stage === 'reconcile' && r.op === 'error')).toMatchObject({ key: 'default/web', error: 'deadline exceeded: the reconcile ran longer than --reconcile-timeout 5s' });
    expect(ctxOf!.signal.aborted).toBe(true);
    await expect(ctxOf!.patch(deployment('default', 'web'), { metadata: { labels: { late: 'yes' } } })).rejects.toThrow(/deadline exceeded: ctx\.patch after the run's --reconcile-timeout is refused/);
    expect(h.records.filter((r) => r.op === 'write')).toEqual([]);
    release();
    await h.stop();
  });
});
