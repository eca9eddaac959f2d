import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { StatusError, WatchDecodeError } from '../../src/informer/errors.js';
import { FakeListerWatcher, fakeErrors } from '../../src/informer/fake-lister-watcher.js';
import { Reflector, type ReflectorOptions } from '../../src/informer/reflector.js';
import type { ReflectorStore } from '../../src/informer/reflector-store.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { metaNamespaceKey, type KubeObject, type ListerWatcher, type WatchEvent, type WatchStream } from '../../src/informer/types.js';

/** A plain keyed store that records every call. */
class RecordingStore implements ReflectorStore {
  items = new Map<string, KubeObject>();
  calls: string[] = [];
  rvs: string[] = [];
  resyncs = 0;
  add(o: KubeObject) {
    this.calls.push(`add ${metaNamespaceKey(o)}@${o.metadata.resourceVersion}`);
    this.items.set(metaNamespaceKey(o), o);
  }
  update(o: KubeObject) {
    this.calls.push(`update ${metaNamespaceKey(o)}@${o.metadata.resourceVersion}`);
    this.items.set(metaNamespaceKey(o), o);
  }
  delete(o: KubeObject) {
    this.calls.push(`delete ${metaNamespaceKey(o)}@${o.metadata.resourceVersion}`);
    this.items.delete(metaNamespaceKey(o));
  }
  replace(items: KubeObject[], rv: string) {
    this.calls.push(`replace ${items.length}@${rv}`);
    this.items = new Map(items.map((o) => [metaNamespaceKey(o), o]));
  }
  resync() {
    this.resyncs++;
  }
  updateResourceVersion(rv: string) {
    this.rvs.push(rv);
  }
  keys() {
    return [...this.items.keys()].sort();
  }
}

const pod = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, namespace: 'default' }, ...extra });

function setup(o: Partial<ReflectorOptions> = {}, lw = new FakeListerWatcher()) {
  const clock = new FakeClock(0);
  const store = new RecordingStore();
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const reflector = new Reflector({ listerWatcher: lw, store, clock, tracer, random: () => 0, name: 'pods', expectedKind: 'Pod', ...o });
  const ac = new AbortController();
  let outcome: 'running' | 'resolved' | Error = 'running';
  const done = reflector.run(ac.signal).then(
    () => void (outcome = 'resolved'),
    (e: Error) => void (outcome = e),
  );
  const ops = (op: string) => records.filter((r) => r.stage === 'reflector' && r.op === op);
  return { clock, store, lw, reflector, ac, records, ops, done, outcome: () => outcome, tick: (ms = 0) => clock.advance(ms) };
}

describe('Reflector driver: list then watch', () => {
  it('lists at RV 0 in pages of 500, replaces the store, then watches from the list RV and applies events', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    const t = setup({}, lw);
    await t.tick();
    expect(lw.listRequests).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(t.store.calls).toEqual(['replace 2@1002']);
    expect(t.reflector.hasSynced()).toBe(true);
    expect(lw.watchRequests).toEqual([{ resourceVersion: '1002', timeoutSeconds: 300, allowWatchBookmarks: true }]);
    lw.apply(pod('c'));
    lw.apply(pod('a', { spec: { x: 1 } }));
    lw.remove('default/b');
    await t.tick();
    expect(t.store.calls.slice(1)).toEqual(['add default/c@1003', 'update default/a@1004', 'delete default/b@1005']);
    expect(t.store.keys()).toEqual(['default/a', 'default/c']);
    expect(t.reflector.lastSyncResourceVersion).toBe('1005');
    expect(t.reflector.stats).toMatchObject({ lists: 1, relists: 0, watches: 1, reconnects: 0, events: 3 });
    expect(t.reflector.stats.bytes).toBeGreaterThan(0);
    t.ac.abort();
    await t.done;
  });

  it('a BOOKMARK advances lastSyncResourceVersion and is passed to store.updateResourceVersion', async () => {
    const t = setup();
    await t.tick();
    t.lw.apply(pod('a'));
    t.lw.remove('default/a'); // RV 1002 now, no objects
    t.lw.bookmark();
    await t.tick();
    expect(t.store.rvs).toEqual(['1001', '1002', '1002']);
    t.lw.compact();
    (t.lw as unknown as { rv: number }).rv = 1500; // the server moved on in other resources (RV is global)
    t.lw.bookmark();
    await t.tick();
    expect(t.reflector.lastSyncResourceVersion).toBe('1500');
    expect(t.store.rvs.at(-1)).toBe('1500');
    t.ac.abort();
  });

  it('a normal close re-watches from the last RV without relisting or backing off', async () => {
    const t = setup();
    await t.tick();
    t.lw.apply(pod('a'));
    await t.tick(5000);
    t.lw.closeWatches();
    await t.tick();
    expect(t.lw.listRequests).toHaveLength(1);
    expect(t.lw.watchRequests.map((o) => o.resourceVersion)).toEqual(['1000', '1001']);
    expect(t.reflector.stats).toMatchObject({ watches: 2, reconnects: 1, backoffs: 0 });
    expect(t.ops('watch-close')[0]).toMatchObject({ reason: 'eof', events: 1, conn: 1 });
    t.ac.abort();
  });

  it('a stream cut mid-line is treated as a close: re-watch from the last RV, no relist', async () => {
    const t = setup();
    await t.tick(2000);
    t.lw.cutWatches();
    await t.tick();
    expect(t.lw.watchRequests).toHaveLength(2);
    expect(t.lw.listRequests).toHaveLength(1);
    expect(t.ops('watch-close')[0]).toMatchObject({ reason: 'stream-cut' });
    t.ac.abort();
  });

  it('an undecodable line ends the watch with an error: back off, then relist at the last RV', async () => {
    const t = setup();
    await t.tick(2000);
    t.lw.cutWatches(new WatchDecodeError('unable to decode an event from the watch stream: Unexpected end of JSON input', '{'));
    await t.tick(799);
    expect(t.lw.listRequests).toHaveLength(1);
    await t.tick(1);
    expect(t.lw.listRequests).toEqual([{ resourceVersion: '0', limit: 500 }, { resourceVersion: '1000' }]);
    t.ac.abort();
  });

  it('resyncs the store every period while shouldResync agrees', async () => {
    let due = true;
    const t = setup({ resyncPeriodMs: 10_000, shouldResync: () => due });
    await t.tick(25_000);
    expect(t.store.resyncs).toBe(2);
    due = false;
    await t.tick(20_000);
    expect(t.store.resyncs).toBe(2);
    t.ac.abort();
  });

  it('drops events of an unexpected kind', async () => {
    const t = setup();
    await t.tick();
    t.lw.emit({ type: 'ADDED', object: { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1', resourceVersion: '1001' } } });
    await t.tick();
    expect(t.store.calls).toEqual(['replace 0@1000']);
    expect(t.records.find((r) => r.stage === 'watch')).toMatchObject({ op: 'ADDED', dropped: expect.stringContaining('expected kind Pod') });
    t.ac.abort();
  });
});

describe('Reflector driver: errors', () => {
  it('410 relists at the last RV with no limit, and at "" (same page size) when that is expired too', async () => {
    const t = setup();
    await t.tick();
    t.lw.apply(pod('a'));
    await t.tick(1000);
    t.lw.failNextList(fakeErrors.expired());
    t.lw.expireWatches();
    await t.tick(800);
    expect(t.lw.listRequests).toEqual([{ resourceVersion: '0', limit: 500 }, { resourceVersion: '1001' }, {}]);
    expect(t.reflector.stats).toMatchObject({ lists: 3, relists: 2, expired: 2, backoffs: 1 });
    expect(t.store.calls.at(-1)).toBe('replace 1@1001');
    expect(t.ops('relist').map((r) => r.reason)).toEqual(['watch expired', 'list at last RV expired']);
    expect(t.lw.watchRequests.at(-1)).toMatchObject({ resourceVersion: '1001' });
    t.ac.abort();
  });

  it('429 with Retry-After at watch start waits that long and re-watches without relisting', async () => {
    const t = setup();
    await t.tick(5000);
    t.lw.failNextWatch(fakeErrors.tooManyRequests(5));
    t.lw.closeWatches();
    await t.tick(4999);
    expect(t.lw.watchRequests).toHaveLength(2);
    await t.tick(1);
    expect(t.lw.watchRequests).toHaveLength(3);
    expect(t.lw.listRequests).toHaveLength(1);
    expect(t.ops('retry-after')[0]).toMatchObject({ seconds: 5 });
    expect(t.reflector.stats.backoffs).toBe(0);
    t.ac.abort();
  });

  it('backs off 0.8, 1.6, 3.2 s on repeated connection refusals, and starts again at 0.8 s after 2 quiet minutes', async () => {
    const t = setup();
    await t.tick(5000);
    const watchTimes = () => t.lw.requests.filter((r) => r.verb === 'watch').length;
    t.lw.failNextWatch(fakeErrors.connectionRefused(), 3);
    t.lw.closeWatches();
    await t.tick();
    expect(watchTimes()).toBe(2);
    await t.tick(800);
    expect(watchTimes()).toBe(3);
    await t.tick(1600);
    expect(watchTimes()).toBe(4);
    await t.tick(3199);
    expect(watchTimes()).toBe(4);
    await t.tick(1);
    expect(watchTimes()).toBe(5);
    expect(t.ops('backoff').map((r) => r.ms)).toEqual([800, 1600, 3200]);
    await t.tick(121_000);
    t.lw.failNextWatch(fakeErrors.connectionRefused());
    t.lw.closeWatches();
    await t.tick();
    expect(t.ops('backoff').at(-1)).toMatchObject({ ms: 800 });
    t.ac.abort();
  });

  it('backoff waits stay within [d, 2d) with jitter', async () => {
    const lw = new FakeListerWatcher();
    lw.failNextList(fakeErrors.internalError(), 3);
    const t = setup({ random: () => 0.999 }, lw);
    await t.tick(20_000);
    const waits = t.ops('backoff').map((r) => r.ms as number);
    expect(waits).toHaveLength(3);
    [800, 1600, 3200].forEach((d, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(d);
      expect(waits[i]).toBeLessThan(2 * d);
    });
    t.ac.abort();
  });

  it('a watch closed within a second with no events backs off and relists, with client-go\'s message', async () => {
    const t = setup();
    await t.tick(500);
    t.lw.closeWatches();
    await t.tick();
    expect(t.ops('very-short-watch')[0]).toMatchObject({
      error: 'very short watch: pods: Unexpected watch close - watch lasted less than a second and no items received',
    });
    await t.tick(800);
    expect(t.lw.listRequests).toHaveLength(2);
    t.ac.abort();
  });

  it('the watchdog closes a watch silent for longer than watchdogMs and re-watches from the last RV', async () => {
    const t = setup({ watchdogMs: 30_000 });
    await t.tick(20_000);
    t.lw.apply(pod('a')); // activity at 20 s pushes the deadline to 50 s
    await t.tick(20_000);
    expect(t.lw.watches[0].closedByClient).toBe(false);
    await t.tick(10_000);
    expect(t.lw.watches[0].closedByClient).toBe(true);
    expect(t.lw.watchRequests.map((o) => o.resourceVersion)).toEqual(['1000', '1001']);
    expect(t.ops('watchdog')[0]).toMatchObject({ conn: 1, silentMs: 30_000 });
    expect(t.lw.listRequests).toHaveLength(1);
    t.ac.abort();
  });

  it('rejects run() when the store throws (a bug, not a server error)', async () => {
    const t = setup();
    t.store.add = () => {
      throw new Error('store exploded');
    };
    await t.tick();
    t.lw.apply(pod('a'));
    await t.tick();
    await t.done;
    expect(t.outcome()).toMatchObject({ message: 'store exploded' });
    expect(t.lw.watches[0].closedByClient).toBe(true);
  });
});

describe('Reflector driver: watch-list', () => {
  it('streams the initial state, replaces at the end bookmark and keeps using the same stream', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    const t = setup({ useWatchList: true }, lw);
    await t.tick();
    expect(lw.listRequests).toHaveLength(0);
    expect(lw.watchRequests).toEqual([{ resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 300 }]);
    expect(t.store.calls).toEqual(['replace 2@1002']);
    expect(t.reflector.hasSynced()).toBe(true);
    lw.apply(pod('c'));
    await t.tick();
    expect(t.store.calls.at(-1)).toBe('add default/c@1003');
    expect(lw.watches).toHaveLength(1);
    expect(t.ops('initial-events-end')).toHaveLength(1);
    // Its synced record counts the objects, as a LIST's does (events -o custom-columns prints them as one block).
    expect(t.ops('synced')).toEqual([expect.objectContaining({ from: 'watch-list', items: 2 })]);
    t.ac.abort();
  });

  it('a 410 mid-watch after a watch-list sync re-syncs with a watch-list, recorded and counted as a relist', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    const t = setup({ useWatchList: true }, lw);
    await t.tick();
    expect(t.ops('relist')).toHaveLength(0);
    lw.expireWatches();
    await t.tick();
    await t.tick(2000); // past the backoff (0.8 s with random 0)
    expect(lw.listRequests).toHaveLength(0);
    expect(lw.watchRequests.filter((w) => w.sendInitialEvents)).toHaveLength(2);
    expect(t.ops('relist')).toEqual([expect.objectContaining({ reason: 'watch expired', watchList: true, rv: '1002' })]);
    expect(t.reflector.stats.relists).toBe(1);
    expect(t.ops('initial-events-end')).toHaveLength(2);
    t.ac.abort();
  });

  it('falls back to LIST when the server rejects sendInitialEvents with a 4xx', async () => {
    const lw = new FakeListerWatcher({ watchList: false });
    lw.seed([pod('a')]);
    const t = setup({ useWatchList: true }, lw);
    await t.tick();
    expect(lw.listRequests).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(t.store.calls).toEqual(['replace 1@1001']);
    expect(t.ops('fallback')).toHaveLength(1);
    expect(lw.watchRequests.at(-1)).toEqual({ resourceVersion: '1001', timeoutSeconds: 300, allowWatchBookmarks: true });
    t.ac.abort();
  });
});

describe('Reflector driver: a watch-list whose initial-events-end bookmark is dropped', () => {
  const noEnd = () => {
    const lw = new FakeListerWatcher({ dropInitialEventsEnd: true });
    lw.seed([pod('a'), pod('b')]);
    return lw;
  };

  it('says so after the bound (30 s by default) and, like client-go, goes on waiting without syncing', async () => {
    const t = setup({ useWatchList: true }, noEnd());
    await t.tick(29_999);
    expect(t.ops('no-initial-events-end')).toHaveLength(0);
    await t.tick(1);
    expect(t.ops('no-initial-events-end')).toEqual([
      expect.objectContaining({ message: 'no initial-events-end after 30s: the server or a proxy in between drops it; client-go would wait forever', ms: 30_000, events: 2, fallback: false }),
    ]);
    await t.tick(120_000);
    expect(t.reflector.hasSynced()).toBe(false);
    expect(t.store.calls).toEqual([]);
    expect(t.lw.listRequests).toHaveLength(0);
    expect(t.ops('no-initial-events-end')).toHaveLength(1);
    t.ac.abort();
    await t.done;
  });

  it('with fallback (a short bound) closes the stream and syncs by LIST+WATCH', async () => {
    const t = setup({ useWatchList: true, initialEventsEndTimeoutMs: 2_000, fallbackWithoutInitialEventsEnd: true }, noEnd());
    await t.tick(2_000);
    expect(t.ops('no-initial-events-end')[0]).toMatchObject({ message: expect.stringMatching(/^no initial-events-end after 2s:/), fallback: true });
    expect(t.lw.watches[0].closedByClient).toBe(true);
    expect(t.lw.listRequests).toEqual([{ resourceVersion: '0', limit: 500 }]);
    expect(t.store.calls).toEqual(['replace 2@1002']);
    expect(t.reflector.hasSynced()).toBe(true);
    expect(t.lw.watchRequests.at(-1)).toEqual({ resourceVersion: '1002', timeoutSeconds: 300, allowWatchBookmarks: true });
    t.lw.apply(pod('c'));
    await t.tick();
    expect(t.store.calls.at(-1)).toBe('add default/c@1003');
    t.ac.abort();
    await t.done;
  });
});

describe('Reflector driver: startAt and stopping', () => {
  it('startAt watches from the given RV with no list and replays what came after it', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b'), pod('c')]);
    const t = setup({ startAt: { resourceVersion: '1001' } }, lw);
    await t.tick();
    expect(lw.listRequests).toHaveLength(0);
    expect(t.store.calls).toEqual(['add default/b@1002', 'add default/c@1003']);
    expect(t.reflector.hasSynced()).toBe(true);
    t.ac.abort();
  });

  it('startAt with onExpired "stop" rejects run() with the 410 StatusError', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    lw.compact();
    const t = setup({ startAt: { resourceVersion: '1001', onExpired: 'stop' } }, lw);
    await t.tick();
    await t.done;
    expect(t.outcome()).toBeInstanceOf(StatusError);
    expect(t.outcome()).toMatchObject({ httpCode: 410, message: 'too old resource version: 1001 (1002)' });
    expect(lw.listRequests).toHaveLength(0);
  });

  it('startAt with onExpired "relist" backs off and relists instead', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    lw.compact();
    const t = setup({ startAt: { resourceVersion: '1001', onExpired: 'relist' } }, lw);
    await t.tick(800);
    expect(lw.listRequests).toEqual([{ resourceVersion: '1001' }]);
    expect(t.store.calls).toEqual(['replace 2@1002']);
    expect(t.outcome()).toBe('running');
    t.ac.abort();
  });

  it('abort closes the open watch and resolves run()', async () => {
    const t = setup();
    await t.tick();
    t.ac.abort();
    await t.done;
    expect(t.outcome()).toBe('resolved');
    expect(t.lw.watches[0].closedByClient).toBe(true);
    expect(t.ops('stopped')).toHaveLength(1);
    expect(t.clock.pending()).toBe(0);
  });

  it('abort during a backoff cancels the wait', async () => {
    const lw = new FakeListerWatcher();
    lw.failNextList(fakeErrors.internalError());
    const t = setup({}, lw);
    await t.tick();
    expect(t.reflector.phase.kind).toBe('BackingOff');
    t.ac.abort();
    await t.done;
    expect(t.clock.pending()).toBe(0);
    await t.tick(10_000);
    expect(t.lw.listRequests).toHaveLength(1);
  });

  it('traces the lifecycle and every watch event with its key, RV, bytes and connection id', async () => {
    const t = setup();
    await t.tick();
    t.lw.apply(pod('a'));
    await t.tick();
    t.ac.abort();
    await t.done;
    const ops = t.records.map((r) => `${r.stage}:${r.op}`);
    expect(ops).toEqual([
      'reflector:list-start',
      'reflector:list-page',
      'reflector:listed',
      'reflector:synced',
      'reflector:watch-start',
      'watch:ADDED',
      'reflector:stopped',
    ]);
    expect(t.records.find((r) => r.op === 'watch-start')).toMatchObject({ conn: 1, rv: '1000', timeoutSeconds: 300, name: 'pods' });
    const w = t.records.find((r) => r.stage === 'watch')!;
    expect(w).toMatchObject({ type: 'ADDED', key: 'default/a', rv: '1001', conn: 1 });
    expect(w.bytes).toBeGreaterThan(0);
  });

  it('a reflector runs once', async () => {
    const t = setup();
    await expect(t.reflector.run(new AbortController().signal)).rejects.toThrow(/already/);
    t.ac.abort();
  });
});

describe('Reflector driver: grouped streams', () => {
  it('reads a stream that groups its events a group at a time, in order, and drops the rest of a group once the stream is closed', async () => {
    const ev = (type: 'ADDED' | 'MODIFIED', name: string, rv: string): WatchEvent => ({ type, object: { kind: 'Pod', metadata: { name, namespace: 'default', resourceVersion: rv } } });
    const expired: WatchEvent = { type: 'ERROR', object: { kind: 'Status', metadata: {}, code: 410, reason: 'Expired', message: 'too old resource version' } as unknown as KubeObject };
    const groups: WatchEvent[][] = [[ev('ADDED', 'a', '11'), ev('MODIFIED', 'a', '12')], [ev('ADDED', 'b', '13'), expired, ev('ADDED', 'never', '14')]];
    let watches = 0;
    const lw: ListerWatcher = {
      list: async () => ({ metadata: { resourceVersion: watches === 0 ? '10' : '13' }, items: [] }),
      watch: async (): Promise<WatchStream> => {
        const first = watches++ === 0;
        return {
          close: () => {},
          async *batches() {
            if (first) yield* groups;
            await new Promise(() => {}); // then silent
          },
          [Symbol.asyncIterator]: () => {
            throw new Error('read event by event');
          },
        };
      },
    };
    const t = setup({}, lw as unknown as FakeListerWatcher);
    await t.tick();
    await t.tick(1000);
    // 410 relists (at the last RV, 13): the event after the ERROR in the same group never reaches the store.
    expect(t.store.calls).toEqual(['replace 0@10', 'add default/a@11', 'update default/a@12', 'add default/b@13', 'replace 0@13']);
    expect(t.reflector.stats.events).toBe(4);
    t.ac.abort();
  });
});

