import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from '../../src/informer/workqueue/rate-limiters.js';

describe('rate limiters', () => {
  it('exponential: 5 ms doubling per failure, capped at 1000 s from the 19th failure', () => {
    const l = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    const got = Array.from({ length: 20 }, () => l.when('a'));
    expect(got.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(got[17]).toBe(5 * 2 ** 17); // 655.36 s, the last uncapped
    expect(got[18]).toBe(1_000_000);
    expect(got[19]).toBe(1_000_000);
    expect(l.numRequeues('a')).toBe(20);
    expect(l.when('b')).toBe(5);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(l.when('a')).toBe(5);
  });

  it('bucket: 100 immediate tokens, then one every 100 ms (10 qps), refilling with time', async () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter(10, 100, clock);
    const first = Array.from({ length: 100 }, (_, i) => l.when(`k${i}`));
    expect(first.every((d) => d === 0)).toBe(true);
    expect(l.when('x')).toBeCloseTo(100);
    expect(l.when('y')).toBeCloseTo(200);
    expect(l.when('z')).toBeCloseTo(300);
    await clock.advance(1000); // 10 tokens back, 3 were owed
    expect(l.when('w')).toBeCloseTo(0);
    expect(l.numRequeues('x')).toBe(0);
  });

  it('max-of: the longest delay of all limiters, every limiter asked', () => {
    const clock = new FakeClock();
    const l = defaultControllerRateLimiter(clock);
    expect(l.when('a')).toBe(5);
    expect(l.when('a')).toBe(10);
    for (let i = 0; i < 98; i++) l.when(`other${i}`);
    // The bucket is now empty: the next reservation waits 100 ms, more than a's 20 ms.
    expect(l.when('a')).toBeCloseTo(100);
    expect(l.numRequeues('a')).toBe(3);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    const m = new MaxOfRateLimiter(new ItemFastSlowRateLimiter(1, 50, 1), new ItemExponentialFailureRateLimiter(2, 1000));
    expect([m.when('k'), m.when('k'), m.when('k')]).toEqual([2, 50, 50]);
  });

  it('fast-slow: fast for the first maxFastAttempts, then slow', () => {
    const l = new ItemFastSlowRateLimiter(5, 10_000, 3);
    expect([l.when('a'), l.when('a'), l.when('a'), l.when('a'), l.when('a')]).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(l.numRequeues('a')).toBe(5);
    l.forget('a');
    expect(l.when('a')).toBe(5);
  });

  it('with-max-wait caps the delay, and forgets and counts through the limiter it wraps', () => {
    const l = new WithMaxWaitRateLimiter(new ItemExponentialFailureRateLimiter(100, 1_000_000), 250);
    expect([l.when('a'), l.when('a'), l.when('a')]).toEqual([100, 200, 250]);
    expect(l.numRequeues('a')).toBe(3);
    l.forget('a');
    expect([l.numRequeues('a'), l.when('a')]).toEqual([0, 100]);
  });

  it('max-of counts the most requeues any of its limiters recorded', () => {
    const fastSlow = new ItemFastSlowRateLimiter(1, 50, 1);
    const m = new MaxOfRateLimiter(new BucketRateLimiter(10, 100, new FakeClock()), fastSlow);
    m.when('k');
    m.when('k');
    expect([m.numRequeues('k'), fastSlow.numRequeues('k')]).toEqual([2, 2]);
    m.forget('k');
    expect(fastSlow.numRequeues('k')).toBe(0);
  });

  it('item-based default: 1 ms doubling per failure (client-go DefaultItemBasedRateLimiter), capped at 1000 s', () => {
    const l = defaultItemBasedRateLimiter();
    expect([l.when('a'), l.when('a'), l.when('a')]).toEqual([1, 2, 4]);
    for (let i = 0; i < 30; i++) l.when('a');
    expect(l.when('a')).toBe(1_000_000);
  });

  it('bucket: refills qps tokens a second, in part for part of a second', async () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter(10, 1, clock);
    expect(l.when('a')).toBe(0);
    await clock.advance(50); // half a token back
    expect(l.when('a')).toBeCloseTo(50);
  });

  it('bucket: a full bucket refills no further than its burst', async () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter(10, 2, clock);
    await clock.advance(60_000);
    expect([l.when('a'), l.when('a'), l.when('a')].map((d) => Math.round(d))).toEqual([0, 0, 100]);
  });
});
