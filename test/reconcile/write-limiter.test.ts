import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { MaxWritesReached, WriteLimiter } from '../../src/reconcile/write-limiter.js';

describe('write limiter', () => {
  it('lets --burst writes out at once, then paces the rest at --qps, in order', async () => {
    const clock = new FakeClock();
    const limiter = new WriteLimiter({ qps: 10, burst: 3, maxWrites: 100 }, clock);
    const t0 = clock.now();
    const done: number[] = [];
    const all = Array.from({ length: 7 }, (_, i) => limiter.take().then(() => done.push(i)));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(done).toEqual([0, 1, 2]);
    const at: number[] = [];
    for (let step = 0; step < 10 && done.length < 7; step++) {
      await clock.advance(100);
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      at.push(done.length);
    }
    await Promise.all(all);
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // One more write per 100 ms (10/s) after the burst.
    expect(at).toEqual([4, 5, 6, 7]);
    expect(clock.now() - t0).toBe(400);
  });

  it('after an idle minute the bucket holds --burst tokens, not what a minute at --qps would add', async () => {
    const clock = new FakeClock();
    const limiter = new WriteLimiter({ qps: 10, burst: 3, maxWrites: 100 }, clock);
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    await Promise.all([limiter.take(), limiter.take(), limiter.take()]);
    await clock.advance(60_000);
    const done: number[] = [];
    const all = Array.from({ length: 6 }, (_, i) => limiter.take().then(() => done.push(i)));
    await settle();
    expect(done).toEqual([0, 1, 2]);
    await clock.advance(100);
    await settle();
    expect(done).toEqual([0, 1, 2, 3]);
    await clock.advance(200);
    await Promise.all(all);
    expect(done).toHaveLength(6);
  });

  it('refuses the write past --max-writes', async () => {
    const limiter = new WriteLimiter({ qps: 1000, burst: 1000, maxWrites: 2 }, new FakeClock());
    await limiter.take();
    await limiter.take();
    await expect(limiter.take()).rejects.toBeInstanceOf(MaxWritesReached);
    await expect(limiter.take()).rejects.toThrow(/^--max-writes 2 reached/);
  });

  it('the refusal past --max-writes names itself and the cap; count is the writes let through', async () => {
    const limiter = new WriteLimiter({ qps: 1000, burst: 1000, maxWrites: 2 }, new FakeClock());
    expect(limiter.count).toBe(0);
    await limiter.take();
    expect(limiter.count).toBe(1);
    await limiter.take();
    const refused = await limiter.take().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(MaxWritesReached);
    expect(refused).toMatchObject({ name: 'MaxWritesReached', max: 2 });
    expect(limiter.count).toBe(2);
  });

  it('waits the whole of a fraction of a millisecond (ceil), not less', async () => {
    const clock = new FakeClock();
    const limiter = new WriteLimiter({ qps: 3, burst: 1, maxWrites: 100 }, clock);
    await limiter.take();
    let done = false;
    const second = limiter.take().then(() => (done = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    await clock.advance(333);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    await clock.advance(1);
    await second;
    expect(done).toBe(true);
  });

  it('a write waits only for the part of a token the bucket lacks', async () => {
    const clock = new FakeClock();
    const limiter = new WriteLimiter({ qps: 10, burst: 1, maxWrites: 100 }, clock);
    await limiter.take();
    await clock.advance(50); // half a token back
    let done = false;
    const next = limiter.take().then(() => (done = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    await clock.advance(50); // the other half: 50 ms, not 100 or 150
    await next;
    expect(done).toBe(true);
  });

  it('a write whose wait is aborted rejects, takes no token, and the writes queued behind it still go', async () => {
    const clock = new FakeClock();
    const limiter = new WriteLimiter({ qps: 10, burst: 1, maxWrites: 100 }, clock);
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    await limiter.take();
    const stop = new AbortController();
    const aborted = limiter.take(stop.signal).catch((err: unknown) => err);
    let third = false;
    const next = limiter.take().then(() => (third = true));
    await settle();
    stop.abort(new Error('run stopped'));
    expect(await aborted).toEqual(new Error('run stopped'));
    await settle();
    expect(third).toBe(false);
    // The aborted write took no token: the next one goes after one interval (100 ms at 10/s), not two.
    await clock.advance(100);
    await next;
    expect(third).toBe(true);
  });
});
