import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { FaultController, parseFaultSpec, type DroppableWatch } from '../../src/sim/faults.js';
import { controlHttp, http, pod, PODS, watch } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer(); });
afterAll(() => sim.close());

const control = (body: unknown) => controlHttp(sim, '/_kwatch/faults', { method: 'POST', body });

describe('fault injection', () => {
  it('fails the next N requests matching verb and path with 429 + Retry-After, then recovers', async () => {
    await control({ reset: true, fail: { code: 429, count: 2, verb: 'list', path: '/pods', retryAfterSeconds: 2 } });
    expect((await http(sim.url, '/api/v1/namespaces')).status).toBe(200);
    const a = await http(sim.url, '/api/v1/pods');
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('2');
    expect(a.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 2 } });
    expect((await http(sim.url, '/api/v1/pods')).status).toBe(429);
    expect((await http(sim.url, '/api/v1/pods')).status).toBe(200);
  });

  it('answers 500 and 503 Status errors on demand', async () => {
    await control({ reset: true, fail: [{ code: 500, verb: 'get' }, { code: 503, verb: 'watch' }] });
    const a = await http(sim.url, '/api/v1/namespaces/default');
    expect(a.json).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: injected fault' });
    const b = await http(sim.url, '/api/v1/pods?watch=1');
    expect(b.json).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
  });

  it('drops every open watch now, with a clean end', async () => {
    await control({ reset: true });
    const ws = await Promise.all([watch(sim.url, '/api/v1/pods?watch=1'), watch(sim.url, '/api/v1/namespaces?watch=1')]);
    await new Promise((r) => setTimeout(r, 50));
    const st = await control({ dropWatches: true });
    expect(st.json.dropped).toBeGreaterThanOrEqual(2);
    expect(await Promise.all(ws.map((w) => w.ended))).toEqual(['end', 'end']);
  });

  it('ends each watch after N events when asked to drop every N events', async () => {
    await control({ reset: true, dropWatchesEvery: { events: 2 } });
    const w = await watch(sim.url, `/api/v1/pods?watch=1&resourceVersion=${sim.api.currentRevision()}`);
    for (const n of ['e1', 'e2', 'e3']) sim.api.create(PODS, pod(n));
    expect(await w.ended).toBe('end');
    expect(w.events.map((e) => e.object.metadata.name)).toEqual(['e1', 'e2']);
    await control({ dropWatchesEvery: null });
  });

  it('drops watches periodically every N ms', async () => {
    sim.faults.reset();
    sim.faults.dropWatchesEvery({ ms: 100 });
    const w = await watch(sim.url, '/api/v1/pods?watch=1');
    expect(await w.ended).toBe('end');
    sim.faults.dropWatchesEvery(null);
  });

  it('drops each watch N ms after it opened, not on one phase for all (a watch opened just before a shared tick lived 0 ms)', async () => {
    sim.faults.reset();
    await control({ dropWatchesEvery: { ms: 1000 } });
    const lifetime = async (): Promise<number> => {
      const asked = Date.now(); // before the sim opens it: the measured life is at least the watch's own
      const w = await watch(sim.url, '/api/v1/pods?watch=1');
      expect(await w.ended).toBe('end');
      return Date.now() - asked;
    };
    const first = lifetime();
    await new Promise((r) => setTimeout(r, 500));
    const second = lifetime(); // opened half a period after the first: the old shared tick ended it ~500 ms later
    const lives = await Promise.all([first, second]);
    sim.faults.dropWatchesEvery(null);
    // 5 ms for Date.now() against the timers' monotonic clock; no upper bound (a busy machine fires timers late).
    for (const ms of lives) expect(ms).toBeGreaterThanOrEqual(995);
  });

  it('times each watch on its own clock: at N, 2N, … after it opened, from when the drop is switched on', () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const faults = new FaultController();
      faults.attach({ dropWatches: () => 0, compact: () => {} });
      const closedAt = new Map<string, number>();
      const open = (name: string): DroppableWatch => {
        const w: DroppableWatch = { close: () => { closedAt.set(name, Date.now()); faults.watchClosed(w); } };
        faults.watchOpened(w);
        return w;
      };
      open('old'); // 250 ms old when the drop is switched on: ends at its next multiple of 100 ms, 300
      vi.advanceTimersByTime(250);
      faults.dropWatchesEvery({ ms: 100 });
      open('a'); // opened at 250: ends at 350
      vi.advanceTimersByTime(30);
      open('b'); // opened at 280: ends at 380, not on a's tick
      vi.advanceTimersByTime(49);
      expect([...closedAt]).toEqual([['old', 300]]);
      vi.advanceTimersByTime(21);
      expect(closedAt.get('a')).toBe(350);
      expect(closedAt.has('b')).toBe(false);
      vi.advanceTimersByTime(30);
      expect(closedAt.get('b')).toBe(380);
      expect(faults.state().dropped).toBe(3);
      open('c');
      faults.dropWatchesEvery(null); // switched off: c stays open
      vi.advanceTimersByTime(1000);
      expect(closedAt.has('c')).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('cuts a watch mid-line and destroys the connection', async () => {
    await control({ reset: true, cutWatch: true });
    const w = await watch(sim.url, `/api/v1/pods?watch=1&resourceVersion=${sim.api.currentRevision()}`);
    sim.api.create(PODS, pod('cut'));
    expect(await w.ended).toBe('error');
    expect(w.events).toHaveLength(0);
    expect(w.partial().length).toBeGreaterThan(0);
    expect(w.partial().startsWith('{"type":"ADDED"')).toBe(true);
  });

  it('delays matching responses', async () => {
    await control({ reset: true, delay: { ms: 300, count: 1, verb: 'get' } });
    const t = Date.now();
    await http(sim.url, '/api/v1/namespaces/default');
    expect(Date.now() - t).toBeGreaterThanOrEqual(280);
    const t2 = Date.now();
    await http(sim.url, '/api/v1/namespaces/default');
    expect(Date.now() - t2).toBeLessThan(250);
  });

  it('compacts history over the control endpoint, so older watches get 410', async () => {
    const rv = sim.api.currentRevision();
    sim.api.create(PODS, pod('pre-compact'));
    await control({ reset: true, compact: true });
    const state = await controlHttp(sim, '/_kwatch/state');
    expect(state.json).toMatchObject({ compactedRevision: rv + 1, historySize: 0, revision: rv + 1 });
    const w = await watch(sim.url, `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    expect((await w.waitFor(1))[0].object.code).toBe(410);
  });

  it('reports requests in the state endpoint log', async () => {
    await http(sim.url, '/api/v1/pods?limit=7');
    const state = await controlHttp(sim, '/_kwatch/state');
    const last = state.json.requests.at(-1);
    expect(last).toMatchObject({ method: 'GET', url: '/api/v1/pods?limit=7', verb: 'list', code: 200 });
    expect(sim.requests().at(-1)!.url).toBe('/api/v1/pods?limit=7');
  });

  it('parses --fault style specs', () => {
    expect(parseFaultSpec('drop-watches-every=5s,fail=429x3@watch,delay=200ms@list,cut-watch=2,drop-watches-every=10events,fail=503:/pods')).toEqual({
      dropWatchesEveryMs: 5000, dropWatchesEveryEvents: 10,
      fail: [{ code: 429, count: 3, verb: 'watch' }, { code: 503, count: 1, path: '/pods' }],
      delay: [{ ms: 200, verb: 'list' }], cutWatchEvents: 2,
    });
    expect(parseFaultSpec('drop-initial-events-end')).toEqual({ dropInitialEventsEnd: true });
    expect(() => parseFaultSpec('explode=1')).toThrow(/unknown fault/);
  });
});
