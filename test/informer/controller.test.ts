import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import type { ReconcileRequest, ReconcileResult } from '../../src/informer/controller.js';
import { Controller, runReconciler } from '../../src/informer/controller.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { SharedIndexInformer } from '../../src/informer/shared-informer.js';
import { Tracer } from '../../src/informer/trace.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import { ItemExponentialFailureRateLimiter } from '../../src/informer/workqueue/rate-limiters.js';

async function eventually(cond: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

function controller(reconcile: (req: ReconcileRequest) => Promise<ReconcileResult>, extra: { workers?: number; tracer?: Tracer } = {}) {
  const clock = new FakeClock();
  const c = new Controller({ reconcile, clock, waitForSync: false, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000_000), ...extra });
  const stop = new AbortController();
  const done = c.run(stop.signal);
  return { c, clock, stop, done };
}

describe('Controller', () => {
  it('reconciles an informer key with the events that queued it and read access to the cache', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([{ metadata: { name: 'a', namespace: 'ns' } }]);
    const clock = new FakeClock();
    const informer = new SharedIndexInformer({ listerWatcher: lw, clock, random: () => 0.5 });
    const seen: ReconcileRequest[] = [];
    const stop = new AbortController();
    const { done } = runReconciler(informer, { reconcile: async (req) => void seen.push(req), clock }, stop.signal);
    const running = informer.run(stop.signal);
    await eventually(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ key: 'ns/a', requeues: 0, reasons: [{ op: 'OnAdd', rv: '1001', isInInitialList: true }] });
    expect(seen[0].cache.getByKey('ns/a')?.metadata.resourceVersion).toBe('1001');
    await lw.waitForWatch(1);
    lw.remove('ns/a');
    await eventually(() => seen.length === 2);
    expect(seen[1].reasons).toMatchObject([{ op: 'OnDelete', rv: '1002', tombstone: false }]);
    expect(seen[1].cache.getByKey('ns/a')).toBeUndefined();
    stop.abort();
    await Promise.all([done, running]);
  });

  it('retries a failing key with per-key exponential backoff and forgets it after success', async () => {
    let calls = 0;
    const requeues: number[] = [];
    const { c, clock, stop, done } = controller(async (req) => {
      requeues.push(req.requeues);
      if (++calls <= 3) throw new Error('conflict');
    });
    c.enqueue('k');
    await eventually(() => calls === 1);
    await clock.advance(4);
    expect(calls).toBe(1);
    await clock.advance(1); // 5 ms
    await eventually(() => calls === 2);
    await clock.advance(10);
    await eventually(() => calls === 3);
    await clock.advance(20);
    await eventually(() => calls === 4);
    expect(requeues).toEqual([0, 1, 2, 3]);
    expect(c.queue.numRequeues('k')).toBe(0);
    expect(c.stats).toMatchObject({ errors: 3, successes: 1 });
    stop.abort();
    await done;
  });

  it('runs a key again after requeueAfterMs, and with backoff on requeue: true', async () => {
    const reasons: string[][] = [];
    const { c, clock, stop, done } = controller(async (req) => {
      reasons.push(req.reasons.map((r) => r.op));
      if (reasons.length === 1) return { requeueAfterMs: 30_000 };
      if (reasons.length === 2) return { requeue: true };
    });
    c.enqueue('k', { op: 'first' });
    await eventually(() => reasons.length === 1);
    await clock.advance(29_999);
    expect(reasons).toHaveLength(1);
    await clock.advance(1);
    await eventually(() => reasons.length === 2);
    await clock.advance(5);
    await eventually(() => reasons.length === 3);
    expect(reasons).toEqual([['first'], ['requeue-after'], ['requeue']]);
    stop.abort();
    await done;
  });

  it('never reconciles one key twice at once, and runs at most `workers` reconciles', async () => {
    const running = new Set<string>();
    let overlap = false;
    let finished = 0;
    const gates: (() => void)[] = [];
    const { c, stop, done } = controller(
      async (req) => {
        if (running.has(req.key)) overlap = true;
        running.add(req.key);
        await new Promise<void>((r) => gates.push(r));
        running.delete(req.key);
        finished++;
      },
      { workers: 3 },
    );
    for (const k of ['a', 'b', 'c', 'd', 'a', 'a']) c.enqueue(k);
    await eventually(() => gates.length === 3);
    c.enqueue('a'); // while a runs: deferred until done
    expect(c.stats.active).toBe(3);
    while (finished < 5) {
      gates.shift()?.();
      await tick();
    }
    expect(overlap).toBe(false);
    expect(c.stats.maxActive).toBe(3);
    expect(c.stats.reconciles).toBe(5); // a, b, c, d, then a again
    stop.abort();
    await done;
  });

  it('on stop lets in-flight and queued keys finish, then resolves', async () => {
    const order: string[] = [];
    let release!: () => void;
    const { c, stop, done } = controller(async (req) => {
      if (req.key === 'slow') await new Promise<void>((r) => (release = r));
      order.push(req.key);
    });
    c.enqueue('slow');
    c.enqueue('next');
    await eventually(() => release !== undefined);
    stop.abort();
    c.enqueue('after-stop');
    release();
    await done;
    expect(order).toEqual(['slow', 'next']);
  });

  it('traces start, success, error and requeue-after with durations', async () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => r.stage === 'reconcile' && recs.push(r));
    let n = 0;
    const { c, clock, stop, done } = controller(
      async () => {
        n++;
        await clock.sleep(7);
        if (n === 1) throw new Error('nope');
        if (n === 2) return { requeueAfterMs: 100 };
      },
      { tracer },
    );
    c.enqueue('k');
    for (let i = 0; i < 300 && recs.length < 6; i++) await clock.advance(1);
    expect(recs.map((r) => [r.op, r.durationMs])).toEqual([
      ['start', undefined],
      ['error', 7],
      ['start', undefined],
      ['requeue-after', 7],
      ['start', undefined],
      ['success', 7],
    ]);
    expect(recs[1].error).toBe('nope');
    stop.abort();
    await done;
  });

  it('reads the clock for a run only when a listener wants reconcile records (the default view shows none; a reading is a system call)', async () => {
    const readsFor = async (wantsReconcile: boolean | undefined) => {
      const clock = new FakeClock();
      let reads = 0;
      const counting = { now: () => (reads++, clock.now()), setTimeout: clock.setTimeout.bind(clock), sleep: clock.sleep.bind(clock) };
      const tracer = new Tracer();
      const records: TraceRecord[] = [];
      // undefined: nobody traces at all (the reads any run makes: its queue reason's time).
      if (wantsReconcile !== undefined) tracer.subscribe((r) => records.push(r), { wants: (stage) => stage === 'reconcile' && wantsReconcile, skipped: () => {} });
      let runs = 0;
      const c = new Controller({ reconcile: async () => void runs++, clock: counting, waitForSync: false, tracer });
      const stop = new AbortController();
      const done = c.run(stop.signal);
      c.enqueue('k');
      await eventually(() => runs === 1 && c.stats.active === 0);
      const readsForTheRun = reads;
      stop.abort();
      await done;
      const reconcileRecords = records.filter((r) => r.stage === 'reconcile');
      return { reads: readsForTheRun, records: reconcileRecords.map((r) => `${r.stage} ${r.op} ${r.durationMs === undefined ? '' : 'timed'}`.trim()) };
    };
    const untraced = await readsFor(undefined);
    const unwanted = await readsFor(false);
    expect(unwanted.records).toEqual([]);
    expect(unwanted.reads).toBe(untraced.reads);
    // Wanted, the run is timed: its start, its end, and the success record's time.
    const wanted = await readsFor(true);
    expect(wanted.records).toEqual(['reconcile start', 'reconcile success timed']);
    expect(wanted.reads).toBe(untraced.reads + 3);
  });
});

