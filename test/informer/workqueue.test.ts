import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Tracer } from '../../src/informer/trace.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import { DelayingQueue } from '../../src/informer/workqueue/delaying-queue.js';
import { Queue } from '../../src/informer/workqueue/queue.js';
import { ItemExponentialFailureRateLimiter } from '../../src/informer/workqueue/rate-limiters.js';
import { RateLimitingQueue } from '../../src/informer/workqueue/rate-limiting-queue.js';

describe('Queue', () => {
  it('dedups an item that is already waiting and merges its reasons', async () => {
    const q = new Queue();
    q.add('a', { op: 'OnAdd', rv: '1' });
    q.add('b');
    q.add('a', { op: 'OnUpdate', rv: '2' });
    expect(q.len()).toBe(2);
    const got = await q.get();
    expect(got).toMatchObject({ shutdown: false, item: 'a', reasons: [{ op: 'OnAdd', rv: '1' }, { op: 'OnUpdate', rv: '2' }] });
  });

  it('does not hand out an item being processed; re-adds it at done() with the new reasons', async () => {
    const q = new Queue();
    q.add('a', { op: 'first' });
    const first = await q.get();
    q.add('a', { op: 'while-processing' });
    expect(q.len()).toBe(0);
    expect(q.tryGet()).toBeUndefined();
    q.done('a');
    expect(q.len()).toBe(1);
    const second = await q.get();
    expect(first.reasons.map((r) => r.op)).toEqual(['first']);
    expect(second.reasons.map((r) => r.op)).toEqual(['while-processing']);
  });

  it('hands a waiting getter the next item added', async () => {
    const q = new Queue();
    const p = q.get();
    q.add('x');
    expect((await p).item).toBe('x');
    expect(q.isProcessing('x')).toBe(true);
  });

  it('keeps only the newest reasons beyond the per-item limit and counts the rest', async () => {
    const q = new Queue({ maxReasonsPerItem: 2 });
    for (let i = 0; i < 5; i++) q.add('a', { op: 'OnUpdate', rv: String(i) });
    const got = await q.get();
    expect(got.reasons.map((r) => r.rv)).toEqual(['3', '4']);
    expect(got.reasonsDropped).toBe(3);
  });

  it('ignores adds after shutDown but still drains queued items before reporting shutdown', async () => {
    const q = new Queue();
    q.add('a');
    const waiting = new Queue();
    const blocked = waiting.get();
    q.shutDown();
    waiting.shutDown();
    q.add('b');
    expect((await q.get()).item).toBe('a');
    expect((await q.get()).shutdown).toBe(true);
    expect((await blocked).shutdown).toBe(true);
  });

  it('shutDownWithDrain waits until every handed-out item is done', async () => {
    const q = new Queue();
    q.add('a');
    await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done('a');
    await p;
    expect(drained).toBe(true);
  });

  it('traces add, dedup, get, done and requeue with the depth', async () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const q = new Queue({ tracer, name: 'q' });
    q.add('a', { op: 'OnAdd', rv: '3' });
    q.add('a');
    await q.get();
    q.add('a');
    q.done('a');
    expect(recs.map((r) => [r.op, r.key, r.depth])).toEqual([
      ['add', 'a', 1],
      ['dedup', 'a', 1],
      ['get', 'a', 0],
      ['add', 'a', 0],
      ['done', 'a', 0],
      ['requeue', 'a', 1],
    ]);
    expect(recs[0].rv).toBe('3');
  });
});

describe('DelayingQueue', () => {
  it('releases items in ready-time order on the fake clock', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('late', 300);
    q.addAfter('early', 100);
    q.addAfter('now', 0);
    q.addAfter('mid', 200);
    expect(q.len()).toBe(1);
    await clock.advance(150);
    expect(q.len()).toBe(2);
    await clock.advance(200);
    const order: string[] = [];
    for (let r = q.tryGet(); r !== undefined && !r.shutdown; r = q.tryGet()) order.push(r.item);
    expect(order).toEqual(['now', 'early', 'mid', 'late']);
  });

  it('only ever moves a waiting item earlier and keeps its reasons', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 100, { op: 'one' });
    q.addAfter('a', 500, { op: 'two' });
    await clock.advance(100);
    expect(q.len()).toBe(1);
    q.addAfter('b', 500);
    q.addAfter('b', 50);
    await clock.advance(50);
    expect(q.len()).toBe(2);
    expect(q.waitingCount()).toBe(0);
    expect((await q.get()).reasons.map((r) => r.op)).toEqual(['one', 'two']);
  });

  it('drops waiting items on shutDown', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 100);
    q.shutDown();
    await clock.advance(200);
    expect(q.len()).toBe(0);
    expect(clock.pending()).toBe(0);
  });
});

describe('RateLimitingQueue', () => {
  it('backs off per item on addRateLimited and resets on forget', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000_000) });
    q.addRateLimited('a');
    q.addRateLimited('a');
    expect(q.numRequeues('a')).toBe(2);
    await clock.advance(4);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(q.len()).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });
});
