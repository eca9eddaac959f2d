// The quota controller's periodic full resync, as kube's (--resource-quota-sync-period, 5 minutes): a status.used
// written by hand is put back to the true count once 5 minutes of the sim's clock have passed, not before, even though
// nothing the quota counts changed; a resync that finds the status right writes nothing. Over HTTP, with the sim's clock
// a ManualClock the test moves: no test waits for real minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type SimClock } from '../../src/sim/clock.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, quotaSynced, until } from './sim-helpers.js';

/** kube-controller-manager's --resource-quota-sync-period default. */
const FIVE_MINUTES = 5 * 60_000;
const clock = new ManualClock(Date.now());
let sim: SimServer;
const NS = 'resync';
const QUOTA = `/api/v1/namespaces/${NS}/resourcequotas/q`;

const post = async (path: string, body: unknown): Promise<void> => {
  expect((await http(sim.url, path, { method: 'POST', body })).status).toBe(201);
};
const quota = async (): Promise<any> => (await http(sim.url, QUOTA)).json;
/** Every controller's queue is empty: what a resync queued has been synced. */
const settled = (): Promise<void> => until(() => sim.controllers!.pending() === 0, 10_000);

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 0, nodes: 0, churn: 0, controllers: true, clock });
  await post('/api/v1/namespaces', { metadata: { name: NS } });
  await post(`/api/v1/namespaces/${NS}/resourcequotas`, { metadata: { name: 'q' }, spec: { hard: { 'count/secrets': '10', services: '5' } } });
  await quotaSynced(sim.url, NS, 'q');
  await post(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 's1' }, data: {} });
  await post(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 's2' }, data: {} });
  await until(async () => (await quota()).status?.used?.['count/secrets'] === '2', 10_000);
  // The controller's own sync of those creates has run: what it would write is written.
  await settled();
});
afterAll(async () => {
  await sim?.close();
});

describe('the quota controller\'s periodic resync', () => {
  it('puts a hand-written status.used back to the true count after 5 minutes of the sim\'s clock, not before', async () => {
    const truth = (await quota()).status.used;
    expect(truth).toEqual({ 'count/secrets': '2', services: '0' });
    const q = await quota();
    const put = await http(sim.url, `${QUOTA}/status`, { method: 'PUT', body: { ...q, status: { ...q.status, used: { 'count/secrets': '7', services: '3' } } } });
    expect(put.status).toBe(200);
    await settled();

    clock.advance(FIVE_MINUTES - 1_000);
    // No resync was queued before its time, so nothing can rewrite the status.
    expect(sim.controllers!.pending()).toBe(0);
    const before = await quota();
    expect(before.status.used).toEqual({ 'count/secrets': '7', services: '3' });
    expect(before.metadata.resourceVersion).toBe(put.json.metadata.resourceVersion);

    clock.advance(1_000);
    await until(async () => JSON.stringify((await quota()).status.used) === JSON.stringify(truth), 10_000);
    expect((await quota()).metadata.resourceVersion).not.toBe(put.json.metadata.resourceVersion);
  });

  it('writes nothing when the status is right: the resourceVersion stays', async () => {
    await settled();
    const rv = (await quota()).metadata.resourceVersion;
    clock.advance(FIVE_MINUTES);
    // The resync ran (it queued the quota's namespace) and found nothing to write.
    expect(sim.controllers!.pending()).toBeGreaterThan(0);
    await settled();
    const after = await quota();
    expect(after.metadata.resourceVersion).toBe(rv);
    expect(after.status.used).toEqual({ 'count/secrets': '2', services: '0' });
  });

  it('arms its resync on the sim\'s clock, and a closed sim keeps none', async () => {
    const base = new ManualClock(Date.now());
    const armed = new Set<object>();
    const counting: SimClock = {
      now: () => base.now(),
      at(time, fn) {
        const wakeUp = {};
        armed.add(wakeUp);
        const cancel = base.at(time, () => { armed.delete(wakeUp); fn(); });
        return () => { armed.delete(wakeUp); cancel(); };
      },
    };
    const other = await startSimServer({ port: 0, pods: 0, nodes: 0, churn: 0, controllers: true, clock: counting });
    expect(armed.size).toBe(1);
    await other.close();
    expect(armed.size).toBe(0);
  });
});
