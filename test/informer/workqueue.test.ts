import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Tracer } from '../../src/informer/trace.js';
import type { TraceInterest, TraceRecord } from '../../src/informer/trace.js';
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

  it('never hands an item to a second waiting worker while the first processes it; done() queues it again', async () => {
    // client-go queue.go: Add of an item in `processing` only marks it dirty; Done pushes it back if dirty.
    const q = new Queue();
    const first = q.get();
    const second = q.get();
    q.add('a', { op: 'one' });
    expect((await first).item).toBe('a');
    q.add('a', { op: 'two' });
    let handed: string | undefined;
    void second.then((r) => (handed = r.item));
    await Promise.resolve();
    expect(handed).toBeUndefined();
    q.add('b');
    expect((await second).item).toBe('b');
    q.done('a');
    const again = await q.get();
    expect([again.item, again.reasons.map((r) => r.op)]).toEqual(['a', ['two']]);
  });

  it('done() of an item that was not handed out changes nothing (it stays queued once)', async () => {
    const q = new Queue();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect((await q.get()).item).toBe('a');
    expect(q.tryGet()).toBeUndefined();
  });

  it('keeps the newest 32 reasons per item by default, and at least one whatever the option says', async () => {
    const q = new Queue();
    for (let i = 0; i < 40; i++) q.add('a', { op: 'OnUpdate', rv: String(i) });
    const got = await q.get();
    expect([got.reasons.length, got.reasons[0].rv, got.reasonsDropped]).toEqual([32, '8', 8]);
    const one = new Queue({ maxReasonsPerItem: 0 });
    one.add('a', { op: 'OnAdd' }, { op: 'OnUpdate' });
    expect((await one.get()).reasons.map((r) => r.op)).toEqual(['OnUpdate']);
  });

  it('keeps only the newest reasons beyond the per-item limit and counts the rest', async () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const q = new Queue({ maxReasonsPerItem: 2, tracer });
    for (let i = 0; i < 5; i++) q.add('a', { op: 'OnUpdate', rv: String(i) });
    const got = await q.get();
    expect(got.reasons.map((r) => r.rv)).toEqual(['3', '4']);
    expect(got.reasonsDropped).toBe(3);
    // The get record counts every reason the item was queued for, the dropped ones too.
    expect(recs.find((r) => r.op === 'get')?.reasons).toBe(5);
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

  it('shutDownWithDrain waits for every item handed out, not only the first done', async () => {
    const q = new Queue();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    q.done('a');
    await Promise.resolve();
    await Promise.resolve();
    expect(drained).toBe(false);
    q.done('b');
    await p;
    expect(q.shuttingDown()).toBe(true);
  });

  it('shutDownWithDrain resolves at once when nothing is being processed; shutDown twice is one shutdown', async () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const q = new Queue({ tracer, name: 'q', controller: 'ctl' });
    q.add('a');
    await q.shutDownWithDrain();
    q.shutDown();
    expect(recs.filter((r) => r.op === 'shutdown').map((r) => [r.queue, r.controller, r.depth, r.processing, r.drain])).toEqual([['q', 'ctl', 1, 0, true]]);
    const plain = new Queue({ tracer });
    plain.shutDown();
    expect(recs.filter((r) => r.op === 'shutdown').map((r) => [r.queue, 'controller' in r, r.drain])).toEqual([
      ['q', true, true],
      ['workqueue', false, false],
    ]);
  });

  it('builds each record only for a listener that wants it: every op and its details, and none it declined', async () => {
    const clock = new FakeClock();
    /** The same run of a rate-limited queue, traced for a listener that wants only the ops `wanted` accepts. */
    const run = async (wanted: (op: string) => boolean): Promise<TraceRecord[]> => {
      const recs: TraceRecord[] = [];
      const tracer = new Tracer();
      const interest: TraceInterest = { wants: (stage, op) => stage === 'workqueue' && wanted(op), skipped: () => {} };
      tracer.subscribe((r) => recs.push(r), interest);
      const q = new RateLimitingQueue({ clock, tracer, name: 'q', controller: 'ctl', rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000_000) });
      q.add('a', { op: 'OnAdd', rv: '1' });
      q.add('a', { op: 'OnUpdate', rv: '2' });
      await q.get();
      q.add('a', { op: 'OnUpdate', rv: '3' });
      q.done('a');
      q.addAfter('b', 50, { op: 'requeue-after' });
      q.addRateLimited('c');
      q.forget('c');
      return recs;
    };
    const all = await run((op) => op !== 'get');
    expect(all.map((r) => [r.op, r.key, r.rv, r.queue, r.controller, r.depth, r.processing, r.delayMs, r.requeues])).toEqual([
      ['add', 'a', '1', 'q', 'ctl', 1, undefined, undefined, undefined],
      ['dedup', 'a', '2', 'q', 'ctl', 1, undefined, undefined, undefined],
      ['add', 'a', '3', 'q', 'ctl', 0, true, undefined, undefined],
      ['done', 'a', undefined, 'q', 'ctl', 0, undefined, undefined, undefined],
      ['requeue', 'a', undefined, 'q', 'ctl', 1, undefined, undefined, undefined],
      ['add-after', 'b', undefined, 'q', 'ctl', 1, undefined, 50, undefined],
      ['add-rate-limited', 'c', undefined, 'q', 'ctl', 1, undefined, 5, 1],
      ['add-after', 'c', undefined, 'q', 'ctl', 1, undefined, 5, undefined],
      ['forget', 'c', undefined, 'q', 'ctl', 1, undefined, undefined, 1],
    ]);
    expect(all[5].readyAt).toBe(clock.now() + 50);
    expect(all[0].reason).toEqual({ op: 'OnAdd', rv: '1' });
    const gets = await run((op) => op === 'get');
    expect(gets.map((r) => [r.op, r.key, r.reasons])).toEqual([['get', 'a', 2]]);
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

  it('an item is ready at its ready time exactly, and items due at the same time keep their add order', async () => {
    // client-go's waitingLoop hands an entry over unless its readyAt is after now.
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    const keys = ['e', 'b', 'd', 'a', 'c', 'f'];
    for (const k of keys) q.addAfter(k, 100);
    expect(q.isWaiting('a')).toBe(true);
    await clock.advance(99);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect([q.len(), q.waitingCount(), q.isWaiting('a')]).toEqual([6, 0, false]);
    const order: string[] = [];
    for (let r = q.tryGet(); r !== undefined && !r.shutdown; r = q.tryGet()) order.push(r.item);
    expect(order).toEqual(keys);
  });

  it('keeps one timer, armed for the earliest item, and re-arms it for the next one', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('late', 500);
    q.addAfter('early', 100);
    q.addAfter('later', 600);
    expect(clock.pending()).toBe(1);
    await clock.advance(100);
    expect([q.len(), clock.pending()]).toEqual([1, 1]);
    await clock.advance(400);
    expect(q.len()).toBe(2);
    await clock.advance(100);
    expect([q.len(), clock.pending()]).toEqual([3, 0]);
  });

  it('an item added again with a shorter delay comes out at the earlier time, before items due sooner than its first time', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 500);
    q.addAfter('b', 300);
    q.addAfter('c', 400);
    q.addAfter('a', 100);
    await clock.advance(100);
    expect([q.len(), (await q.get()).item]).toEqual([1, 'a']);
  });

  it('hands out many waiting items in ready-time order, whatever order they were added in', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    const delays = [80, 10, 70, 20, 60, 30, 50, 40, 90, 15, 85, 5];
    for (const d of delays) q.addAfter(`k${d}`, d);
    await clock.advance(100);
    const order: string[] = [];
    for (let r = q.tryGet(); r !== undefined && !r.shutdown; r = q.tryGet()) order.push(r.item);
    expect(order).toEqual([...delays].sort((x, y) => x - y).map((d) => `k${d}`));
  });

  it('drops waiting items and their timer at once on shutDown', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 100);
    q.addAfter('b', 200);
    q.shutDown();
    expect([q.waitingCount(), q.isWaiting('a'), clock.pending()]).toEqual([0, false, 0]);
  });

  it('ignores addAfter once shut down', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.shutDown();
    q.addAfter('a', 100);
    q.addAfter('b', 0);
    expect([q.waitingCount(), clock.pending(), q.len()]).toEqual([0, 0, 0]);
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

  it('defaults to client-go\'s controller rate limiter: 5 ms, then 10 ms for the same item', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock });
    expect([q.addRateLimited('a'), q.addRateLimited('b'), q.addRateLimited('a')]).toEqual([5, 5, 10]);
    expect(q.numRequeues('a')).toBe(2);
  });

  it('once shut down, addRateLimited queues nothing but still counts the failure in the rate limiter', () => {
    // client-go rate_limiting_queue.go: AddRateLimited is AddAfter(item, rateLimiter.When(item)); When runs (and
    // counts a requeue) before AddAfter sees the shutdown and drops the item.
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock });
    q.shutDown();
    expect(q.addRateLimited('a')).toBeUndefined();
    expect(q.addRateLimited('a')).toBeUndefined();
    expect([q.numRequeues('a'), q.waitingCount(), q.len(), clock.pending()]).toEqual([2, 0, 0, 0]);
  });

  it('traces add-rate-limited with the delay and the requeue count, and forget with the count it clears', () => {
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => recs.push(r));
    const q = new RateLimitingQueue({ clock: new FakeClock(), tracer, name: 'q', rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000_000) });
    q.addRateLimited('a', { op: 'requeue', rv: '4' });
    q.addRateLimited('a');
    q.forget('a');
    expect(recs.filter((r) => r.op !== 'add-after').map((r) => [r.op, r.key, r.delayMs, r.requeues])).toEqual([
      ['add-rate-limited', 'a', 5, 1],
      ['add-rate-limited', 'a', 10, 2],
      ['forget', 'a', undefined, 2],
    ]);
  });
});
