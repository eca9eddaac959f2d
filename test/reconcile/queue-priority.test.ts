// kwatch reconcile's workqueue: controller-runtime 0.23's priority queue by default (initial-list adds of objects
// older than a minute and resyncs at -100, requeues keeping their run's priority), client-go's FIFO with --queue fifo.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { PriorityQueue } from '../../src/informer/workqueue/priority-queue.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

const ago = (clock: FakeClock, ms: number) => new Date(clock.now() - ms).toISOString();

async function initialRuns(queue: 'priority' | 'fifo' | undefined) {
  const clock = new FakeClock();
  const catalog = new MemoryCatalog([DEPLOYMENTS]);
  const server = catalog.lw(DEPLOYMENTS);
  // Listed in name order: a-old, b-older, c-new.
  server.apply(deployment('default', 'a-old', { metadata: { namespace: 'default', name: 'a-old', uid: 'u1', creationTimestamp: ago(clock, 120_000) } }));
  server.apply(deployment('default', 'c-new', { metadata: { namespace: 'default', name: 'c-new', uid: 'u2', creationTimestamp: ago(clock, 10_000) } }));
  server.apply(deployment('default', 'b-older', { metadata: { namespace: 'default', name: 'b-older', uid: 'u3', creationTimestamp: ago(clock, 3_600_000) } }));
  const runs: string[] = [];
  const h = await startSession({ catalog, clock, mode: 'intercept', ...(queue ? { queue } : {}), controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: (req) => void runs.push(req.name) } }] });
  await eventually(() => runs.length === 3, 'three runs');
  const starts = h.records.filter((r) => r.stage === 'reconcile' && r.op === 'start').map((r) => [r.key, r.priority]);
  const queueKind = h.session.runners[0].controller.queue;
  await h.stop();
  return { runs, starts, queueKind };
}

describe('reconcile workqueue priority', () => {
  it('by default: initial-list objects older than a minute wait at -100 behind a newer one, and the trace says each run\'s priority', async () => {
    const { runs, starts, queueKind } = await initialRuns(undefined);
    expect(queueKind).toBeInstanceOf(PriorityQueue);
    expect(runs).toEqual(['c-new', 'a-old', 'b-older']);
    expect(starts).toEqual([
      ['default/c-new', 0],
      ['default/a-old', -100],
      ['default/b-older', -100],
    ]);
  });

  it('--queue fifo: client-go\'s order (as listed), no priority on the records', async () => {
    const { runs, starts, queueKind } = await initialRuns('fifo');
    expect(queueKind).not.toBeInstanceOf(PriorityQueue);
    expect(runs).toEqual(['a-old', 'b-older', 'c-new']);
    expect(starts.every(([, p]) => p === undefined)).toBe(true);
  });

  it('a resync is -100; a requeue keeps the priority its run was handed out with', async () => {
    const clock = new FakeClock();
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web', { metadata: { namespace: 'default', name: 'web', uid: 'u1', creationTimestamp: ago(clock, 10_000) } }));
    let runs = 0;
    const h = await startSession({ catalog, clock, mode: 'intercept', resyncPeriodMs: 60_000, controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: () => (++runs === 2 ? { requeue: true } : undefined) } }] });
    await eventually(() => runs === 1, 'the initial run');
    await clock.advance(60_000);
    await eventually(() => runs === 2, 'the resync run');
    await clock.advance(1000);
    await eventually(() => runs === 3, 'the requeued run');
    const starts = h.records.filter((r) => r.stage === 'reconcile' && r.op === 'start');
    expect(starts.map((r) => r.priority)).toEqual([0, -100, -100]);
    expect((starts[1].reasons as { reason: string; priority?: number }[]).map((r) => [r.reason, r.priority])).toEqual([['resync', -100]]);
    expect((starts[2].reasons as { reason: string; priority?: number }[]).map((r) => [r.reason, r.priority])).toEqual([['reconciler requested retry', -100]]);
    await h.stop();
  });
});
