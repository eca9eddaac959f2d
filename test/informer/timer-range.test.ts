// Node fires a timer set past 2^31 - 1 ms (about 24.8 days) after 1 ms: the real clock keeps every delay within
// the range, so a long wait (a module's requeueAfter, a server's Retry-After) never turns into a spin.
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/informer/clock.js';
import { MAX_TIMER_MS, timerMs } from '../../src/informer/duration.js';

describe('the real clock past the timer range', () => {
  it('a 3e9 ms timer and sleep do not fire at once', async () => {
    let fired = false;
    const t = realClock.setTimeout(() => { fired = true; }, 3e9);
    const ac = new AbortController();
    let slept = false;
    const sleeping = realClock.sleep(3e9, ac.signal).then(() => { slept = true; }, () => undefined);
    // The overflowed timer fired after 1 ms; 200 ms is generous on a loaded machine and never waits for the real one.
    await new Promise((r) => setTimeout(r, 200));
    expect(fired).toBe(false);
    expect(slept).toBe(false);
    t.cancel();
    ac.abort();
    await sleeping;
  });

  it('cuts delays to the range', () => {
    expect(timerMs(3e9)).toBe(MAX_TIMER_MS);
    expect(timerMs(-5)).toBe(0);
    expect(timerMs(1500)).toBe(1500);
  });
});
