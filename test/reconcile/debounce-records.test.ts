import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from './helpers.js';

describe('reconcile --debounce', () => {
  it('each held trigger is a debounce record at once, with how many are merged and when the window ends', async () => {
    const clock = new FakeClock();
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const d = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    let runs = 0;
    const h = await startSession({ catalog, clock, mode: 'intercept', debounceMs: 500, controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: () => void runs++ } }] });
    await eventually(() => h.session.hasSynced(), 'sync');
    await clock.advance(500);
    await eventually(() => runs === 1, 'the initial run');
    const before = h.records.length;
    for (let i = 1; i <= 3; i++) {
      catalog.lw(DEPLOYMENTS).apply({ ...d, spec: { replicas: i } });
      await eventually(() => h.session.factory.isIdle(), 'the update to reach the handler');
    }
    const debounced = h.records.slice(before).filter((r) => r.op === 'debounce');
    expect(runs).toBe(1);
    expect(debounced.map((r) => [r.key, r.controller, r.merged, (r.reason as { reason: string }).reason])).toEqual([
      ['default/web', 'c', 1, 'object updated'],
      ['default/web', 'c', 2, 'object updated'],
      ['default/web', 'c', 3, 'object updated'],
    ]);
    expect(debounced.every((r) => r.releaseAt === clock.now() + 500)).toBe(true);
    await clock.advance(500);
    await eventually(() => runs === 2, 'the debounced run');
    await h.stop();
  });
});
