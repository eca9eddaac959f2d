import { describe, expect, it } from 'vitest';
import { untilIdle } from '../../src/kube/pipelines/until-idle.js';

describe('untilIdle', () => {
  it('waits for work queued as promise jobs to finish, and no longer', async () => {
    let pending = 3;
    const step = (): Promise<void> => Promise.resolve().then(() => (--pending > 0 ? step() : undefined));
    void step();
    const t0 = Date.now();
    await untilIdle(() => pending === 0);
    expect(pending).toBe(0);
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('gives up after maxMs, and at once when the signal aborts', async () => {
    const t0 = Date.now();
    await untilIdle(() => false, undefined, 60);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
    const ac = new AbortController();
    ac.abort();
    const t1 = Date.now();
    await untilIdle(() => false, ac.signal, 5000);
    expect(Date.now() - t1).toBeLessThan(50);
  });
});
