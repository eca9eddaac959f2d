import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, pod, PODS, watch } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ bookmarkIntervalMs: 150, tooLargeWaitMs: 200 });
  sim.api.create(PODS, pod('a', { labels: { app: 'x' } }));
  sim.api.create(PODS, pod('b', { labels: { app: 'y' } }));
});
afterAll(() => sim.close());

const label = (name: string, labels: Record<string, string>) => {
  const cur = sim.api.get(PODS, 'default', name)!;
  return sim.api.update(PODS, { ...cur, metadata: { ...cur.metadata, labels } });
};

describe('WATCH', () => {
  it('answers 200 with a JSON content type at once, before any event', async () => {
    const w = await watch(sim.url, `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${sim.api.currentRevision()}`);
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    expect(w.headers['transfer-encoding']).toBe('chunked');
    expect(w.events).toHaveLength(0);
    w.close();
  });

  it('starts with synthetic ADDED for every object when resourceVersion is unset or "0", then live events', async () => {
    for (const rv of ['', '&resourceVersion=0']) {
      const w = await watch(sim.url, `/api/v1/namespaces/default/pods?watch=1${rv}`);
      const initial = await w.waitFor(2);
      expect(initial.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'a'], ['ADDED', 'b']]);
      const c = sim.api.create(PODS, pod(`live${rv ? 0 : 1}`));
      const ev = await w.next(3000).then(() => w.next()).then(() => w.next());
      expect(ev).toMatchObject({ type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: c.metadata.resourceVersion } } });
      w.close();
      sim.api.delete(PODS, 'default', c.metadata.name!);
    }
  });

  it('from an exact resourceVersion replays only later changes, one compact line per event', async () => {
    const rv = sim.api.currentRevision();
    const c = sim.api.create(PODS, pod('h1'));
    label('h1', { v: '1' });
    const d = sim.api.delete(PODS, 'default', 'h1');
    const w = await watch(sim.url, `/api/v1/namespaces/default/pods?watch=true&resourceVersion=${rv}`);
    const evs = await w.waitFor(3);
    expect(evs.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(evs[0].object.metadata.resourceVersion).toBe(c.metadata.resourceVersion);
    expect(evs[2].object.metadata.resourceVersion).toBe(d.metadata.resourceVersion);
    expect(evs[2].object.metadata.labels).toEqual({ v: '1' });
    for (const line of w.lines) expect(line).toBe(JSON.stringify(JSON.parse(line)));
    w.close();
  });

  it('follows label selector transitions: ADDED on entering, DELETED with the new RV on leaving', async () => {
    const w = await watch(sim.url, `/api/v1/namespaces/default/pods?watch=1&labelSelector=app%3Dx&resourceVersion=${sim.api.currentRevision()}`);
    const moved = label('b', { app: 'x' });
    const left = label('a', { app: 'z' });
    label('a', { app: 'z', more: '1' }); // still not matching: no event
    label('b', { app: 'x', other: '1' });
    const evs = await w.waitFor(3);
    expect(evs.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'b'], ['DELETED', 'a'], ['MODIFIED', 'b']]);
    expect(evs[0].object.metadata.resourceVersion).toBe(moved.metadata.resourceVersion);
    expect(evs[1].object.metadata.resourceVersion).toBe(left.metadata.resourceVersion);
    expect(evs[1].object.metadata.labels).toEqual({ app: 'x' }); // previous content
    w.close();
    label('a', { app: 'x' });
    label('b', { app: 'y' });
  });

  it('sends ERROR 410 "too old resource version: X (Y)" after 200 and closes, for a compacted RV', async () => {
    const old = sim.api.currentRevision();
    sim.api.create(PODS, pod('c1'));
    sim.faults.compact();
    const w = await watch(sim.url, `/api/v1/pods?watch=true&resourceVersion=${old - 1}`);
    expect(w.status).toBe(200);
    const [ev] = await w.waitFor(1);
    expect(ev).toEqual({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${old - 1} (${old + 1})`, reason: 'Expired', code: 410 } });
    expect(await w.ended).toBe('end');
    sim.api.delete(PODS, 'default', 'c1');
  });

  it('sends periodic BOOKMARKs with an empty object of the watched kind only when allowed', async () => {
    const rv = sim.api.currentRevision();
    const w = await watch(sim.url, `/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`);
    const [bm] = await w.waitFor(1, 2000);
    expect(bm).toEqual({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(rv), creationTimestamp: null }, spec: { containers: null }, status: {} } });
    w.close();
    const plain = await watch(sim.url, `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    await new Promise((r) => setTimeout(r, 400));
    expect(plain.events).toHaveLength(0);
    plain.close();
  });

  it('ends the initial ADDEDs with the initial-events-end bookmark for watch-list and for 1.32-defaulted RV="" watches', async () => {
    for (const q of ['sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', 'allowWatchBookmarks=true']) {
      const w = await watch(sim.url, `/api/v1/namespaces/default/pods?watch=1&${q}`);
      const evs = await w.waitFor(3);
      expect(evs.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
      expect(evs[2].object.metadata.resourceVersion).toBe(String(sim.api.currentRevision()));
      expect(evs[2].object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
      expect(JSON.parse(Buffer.from(evs[2].object.metadata.annotations['kubernetes.io/initial-events-list-blueprint'], 'base64').toString())).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: null });
      w.close();
    }
  });

  it('with the drop-initial-events-end fault sends the initial ADDEDs and no end bookmark, as a proxy that drops it', async () => {
    sim.faults.apply({ dropInitialEventsEnd: true });
    try {
      const w = await watch(sim.url, '/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
      await w.waitFor(2);
      await new Promise((r) => setTimeout(r, 300));
      // Periodic bookmarks still come (this sim sends them often); none ends the initial events.
      expect(w.events.filter((e) => e.type === 'ADDED')).toHaveLength(2);
      expect(w.events.filter((e) => e.object.metadata.annotations?.['k8s.io/initial-events-end'])).toEqual([]);
      w.close();
    } finally {
      sim.faults.apply({ dropInitialEventsEnd: false });
    }
    expect(sim.faults.state().dropInitialEventsEnd).toBe(false);
  });

  it('validates watch-list options with 422', async () => {
    const a = await http(sim.url, '/api/v1/pods?watch=1&sendInitialEvents=true');
    expect(a.status).toBe(422);
    expect(a.json.message).toContain('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    const b = await http(sim.url, '/api/v1/pods?watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1');
    expect(b.status).toBe(422);
  });

  it('sends an ERROR 504 on a watch-list for a too-large resourceVersion', async () => {
    const w = await watch(sim.url, `/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${sim.api.currentRevision() + 50}`);
    const [ev] = await w.waitFor(1);
    expect(ev.type).toBe('ERROR');
    expect(ev.object).toMatchObject({ code: 504, reason: 'Timeout' });
    await w.ended;
  });

  it('honours timeoutSeconds with a clean end of the stream', async () => {
    const start = Date.now();
    const w = await watch(sim.url, `/api/v1/pods?watch=1&timeoutSeconds=1&resourceVersion=${sim.api.currentRevision()}`);
    expect(await w.ended).toBe('end');
    expect(Date.now() - start).toBeGreaterThanOrEqual(950);
  });

  it('scopes a watch to one name via fieldSelector, and rejects a conflicting path name with 400', async () => {
    const w = await watch(sim.url, '/api/v1/namespaces/default/pods?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Da');
    const [first] = await w.waitFor(1);
    expect(first.object.metadata.name).toBe('a');
    label('b', { app: 'y', t: '1' });
    label('a', { app: 'x', t: '1' });
    const ev = await w.next(3000).then(() => w.next());
    expect([ev.type, ev.object.metadata.name]).toEqual(['MODIFIED', 'a']);
    w.close();
    const legacy = await watch(sim.url, `/api/v1/watch/namespaces/default/pods/a?resourceVersion=0`);
    expect((await legacy.waitFor(1))[0].object.metadata.name).toBe('a');
    legacy.close();
    const bad = await http(sim.url, '/api/v1/watch/namespaces/default/pods/a?fieldSelector=metadata.name%3Db');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe("fieldSelector metadata.name doesn't match requested name");
  });

  it('fans one change out to many watchers with identical lines', async () => {
    const rv = sim.api.currentRevision();
    const ws = await Promise.all(Array.from({ length: 20 }, () => watch(sim.url, `/api/v1/pods?watch=1&resourceVersion=${rv}`)));
    sim.api.create(PODS, pod('fan'));
    await Promise.all(ws.map((w) => w.waitFor(1)));
    expect(new Set(ws.map((w) => w.lines[0])).size).toBe(1);
    for (const w of ws) w.close();
    sim.api.delete(PODS, 'default', 'fan');
  });

  it('ends open watches promptly when the server closes', async () => {
    const s2 = await startSimServer();
    const w = await watch(s2.url, '/api/v1/pods?watch=1');
    const t = Date.now();
    await s2.close();
    expect(await w.ended).toBe('end');
    expect(Date.now() - t).toBeLessThan(1000);
  });
});

describe('WATCH replaying a long history', () => {
  it('streams more history than the 64 MB slow-watcher limit with backpressure instead of resetting the watch', async () => {
    const big = await startSimServer({});
    try {
      const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
      const from = big.api.currentRevision();
      const payload = 'x'.repeat(1024 * 1024);
      const count = 72; // ~72 MB of events, all in the history
      for (let i = 0; i < count; i++) big.api.create(CONFIGMAPS, { metadata: { name: `big-${i}`, namespace: 'default' }, data: { blob: payload } });
      const { request } = await import('node:http');
      const outcome = await new Promise<{ lines: number; how: string }>((resolve) => {
        let lines = 0;
        const req = request(`${big.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}`, (res) => {
          res.on('data', (chunk: Buffer) => {
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
            if (lines >= count) {
              resolve({ lines, how: 'complete' });
              req.destroy();
            }
          });
          res.on('close', () => resolve({ lines, how: 'closed' }));
        });
        req.on('error', () => resolve({ lines, how: 'error' }));
        req.end();
      });
      expect(outcome).toEqual({ lines: count, how: 'complete' });
    } finally {
      await big.close();
    }
  }, 60_000);
});
