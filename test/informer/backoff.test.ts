import { describe, expect, it } from 'vitest';
import { ExponentialBackoffManager, REFLECTOR_BACKOFF, initialBackoffState, nextBackoff } from '../../src/informer/backoff.js';

/** Un-jittered and max-jittered sequences of the reflector's backoff, starting at t=0 with one request per second. */
function sequence(random: number, n: number): number[] {
  let state = initialBackoffState(REFLECTOR_BACKOFF, 0);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = nextBackoff(REFLECTOR_BACKOFF, state, i * 1000, random);
    state = r.state;
    out.push(Math.round(r.ms));
  }
  return out;
}

describe('reflector backoff (client-go ExponentialBackoffManager 800ms, 30s, 2min, factor 2, jitter 1)', () => {
  it('doubles from 0.8 s and settles at the 30 s cap', () => {
    expect(sequence(0, 9)).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  it('jitter 1.0 keeps every wait in [d, 2d)', () => {
    expect(sequence(0.999999, 8)).toEqual([1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000]);
    const mid = sequence(0.5, 3);
    expect(mid).toEqual([1200, 2400, 4800]);
  });

  it('starts again from 0.8 s after more than 2 minutes without a backoff', () => {
    let state = initialBackoffState(REFLECTOR_BACKOFF, 0);
    for (let i = 0; i < 5; i++) state = nextBackoff(REFLECTOR_BACKOFF, state, i, 0).state;
    expect(nextBackoff(REFLECTOR_BACKOFF, state, 4 + 120_000, 0).ms).toBe(25600); // exactly 2 min: no reset
    expect(nextBackoff(REFLECTOR_BACKOFF, state, 4 + 120_001, 0).ms).toBe(800);
  });

  it('measures the quiet period from the previous backoff, not from the first', () => {
    let state = initialBackoffState(REFLECTOR_BACKOFF, 0);
    let t = 0;
    for (let i = 0; i < 4; i++) {
      t += 100_000; // each request 100 s after the previous: never quiet for 2 min
      const r = nextBackoff(REFLECTOR_BACKOFF, state, t, 0);
      state = r.state;
      if (i === 3) expect(r.ms).toBe(6400);
    }
  });

  it('the manager wraps the same policy with an injected clock and random', () => {
    let now = 0;
    const m = new ExponentialBackoffManager(REFLECTOR_BACKOFF, () => now, () => 0);
    expect([m.next(), m.next(), m.next()]).toEqual([800, 1600, 3200]);
    now = 200_000;
    expect(m.next()).toBe(800);
  });
});
