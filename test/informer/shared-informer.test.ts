import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import type { Deltas, ObjectOrTombstone } from '../../src/informer/deltas.js';
import { DeletedFinalStateUnknown } from '../../src/informer/deltas.js';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { nodeNameIndexFunc } from '../../src/informer/index-funcs.js';
import type { ResourceEventHandler } from '../../src/informer/processor-listener.js';
import type { DeltaHandler, SharedIndexInformerOptions } from '../../src/informer/shared-informer.js';
import { processDeltas, processDeltasInBatch, SharedIndexInformer } from '../../src/informer/shared-informer.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer } from '../../src/informer/trace.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import { formatDetail } from '../../src/render/trace-detail.js';

const pod = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: { nodeName: 'n1' }, ...extra });

/** A handler that records every call as a short string. */
function recorder(log: string[] = []): ResourceEventHandler & { log: string[] } {
  const rv = (o: KubeObject) => o.metadata.resourceVersion;
  return {
    log,
    onAdd: (o, initial) => void log.push(`add ${o.metadata.name}@${rv(o)}${initial ? ' initial' : ''}`),
    onUpdate: (old, o) => void log.push(`update ${o.metadata.name}@${rv(old)}->${rv(o)}`),
    onDelete: (o: ObjectOrTombstone) => void log.push(o instanceof DeletedFinalStateUnknown ? `delete-tombstone ${o.key}@${o.obj?.metadata.resourceVersion}` : `delete ${o.metadata.name}@${rv(o)}`),
  };
}

let stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops) s.abort();
  stops = [];
});

function start(lw: FakeListerWatcher, opts: Partial<SharedIndexInformerOptions> = {}, handlers: ResourceEventHandler[] = []) {
  const clock = (opts.clock as FakeClock | undefined) ?? new FakeClock();
  const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'pods', clock, random: () => 0.5, ...opts });
  const regs = handlers.map((h) => informer.addEventHandler(h));
  const stop = new AbortController();
  stops.push(stop);
  const done = informer.run(stop.signal);
  return { informer, clock, regs, stop, done };
}

async function eventually(cond: () => boolean, what = 'condition', clock?: FakeClock): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    if (clock) await clock.advance(1000);
    else await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

for (const fifo of ['real', 'delta'] as const) {
  describe(`SharedIndexInformer (fifo=${fifo})`, () => {
    it('delivers the initial list as OnAdd(isInInitialList=true) and later adds as OnAdd(false)', async () => {
      const lw = new FakeListerWatcher();
      lw.seed([pod('a'), pod('b')]);
      const h = recorder();
      const { informer, regs } = start(lw, { fifo }, [h]);
      await informer.whenSynced();
      await eventually(() => regs[0].hasSynced(), 'handler synced');
      expect(h.log).toEqual(['add a@1001 initial', 'add b@1002 initial']);
      await lw.waitForWatch(1);
      lw.apply(pod('c'));
      await eventually(() => h.log.length === 3);
      expect(h.log[2]).toBe('add c@1003');
      expect(informer.getIndexer().listKeys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
      expect(informer.lastSyncResourceVersion).toBe('1003');
    });

    it('delivers real updates and deletes, and a tombstone for a delete missed while disconnected', async () => {
      const lw = new FakeListerWatcher();
      lw.seed([pod('a'), pod('b')]);
      const h = recorder();
      const { informer, clock } = start(lw, { fifo }, [h]);
      await informer.whenSynced();
      await lw.waitForWatch(1);
      lw.apply(pod('a', { spec: { nodeName: 'n2' } }));
      lw.remove('ns/a');
      await eventually(() => h.log.length === 4);
      expect(h.log.slice(2)).toEqual(['update a@1001->1003', 'delete a@1004']);
      // Disconnect, delete b while nobody watches, forget history: the re-watch gets 410 and relists.
      lw.closeWatches();
      lw.remove('ns/b');
      lw.compact();
      await eventually(() => h.log.length === 5, 'tombstone', clock);
      expect(h.log[4]).toBe('delete-tombstone ns/b@1002');
      expect(informer.getIndexer().size).toBe(0);
    });

    it('says what a tombstone is in its fifo and handler records (ndjson fields, and the table DETAIL)', async () => {
      const tracer = new Tracer();
      const records: TraceRecord[] = [];
      tracer.subscribe((r) => records.push(r));
      const lw = new FakeListerWatcher();
      lw.seed([pod('a'), pod('b')]);
      const h = recorder();
      const { informer, clock } = start(lw, { fifo, tracer }, [h]);
      await informer.whenSynced();
      await lw.waitForWatch(1);
      lw.apply(pod('a', { spec: { nodeName: 'n2' } }));
      lw.remove('ns/a');
      await eventually(() => h.log.length === 4);
      lw.closeWatches();
      lw.remove('ns/b');
      lw.compact();
      await eventually(() => h.log.length === 5, 'tombstone', clock);
      const told = records.filter((r) => r.tombstone === true);
      expect(told.map((r) => `${r.stage} ${r.op}`).sort()).toEqual(['fifo Deleted', 'handler OnDelete']);
      for (const r of told) {
        expect(r).toMatchObject({ key: 'ns/b', tombstoneType: 'DeletedFinalStateUnknown', tombstoneExplanation: 'deleted while the watch was down (a relist no longer had it); last state known at RV 1002' });
        expect(formatDetail(r)).toContain('tombstone=DeletedFinalStateUnknown (deleted while the watch was down (a relist no longer had it); last state known at RV 1002)');
      }
    });
  });
}

describe('SharedIndexInformer', () => {
  it('replays the cache to a handler added after start as OnAdd(isInInitialList=true), then live events', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    const { informer } = start(lw);
    await informer.whenSynced();
    await lw.waitForWatch(1);
    const late = recorder();
    const reg = informer.addEventHandler(late);
    expect(reg.hasSynced()).toBe(false);
    await eventually(() => reg.hasSynced());
    lw.apply(pod('a', { status: { phase: 'Running' } }));
    await eventually(() => late.log.length === 3);
    expect(late.log).toEqual(['add a@1001 initial', 'add b@1002 initial', 'update a@1001->1003']);
    reg.remove();
    lw.apply(pod('z'));
    await eventually(() => informer.getIndexer().size === 3);
    await tick();
    expect(late.log).toHaveLength(3);
  });

  it('sends resync (same-RV) updates only to listeners due a resync', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a')]);
    const clock = new FakeClock();
    const informer = new SharedIndexInformer({ listerWatcher: lw, clock, resyncPeriodMs: 10_000, random: () => 0.5 });
    const fast = recorder();
    const never = recorder();
    const slow = recorder();
    const regFast = informer.addEventHandler(fast, { name: 'fast' });
    informer.addEventHandler(never, { resyncPeriodMs: 0 });
    informer.addEventHandler(slow, { resyncPeriodMs: 30_000 });
    expect(regFast.resyncPeriodMs).toBe(10_000);
    const stop = new AbortController();
    stops.push(stop);
    void informer.run(stop.signal);
    await informer.whenSynced();
    await lw.waitForWatch(1);
    await eventually(() => fast.log.length === 1 && slow.log.length === 1 && never.log.length === 1);
    for (let i = 0; i < 3; i++) {
      await clock.advance(10_000);
      await eventually(() => fast.log.length === 2 + i, `resync ${i}`);
    }
    await tick();
    expect(fast.log.slice(1)).toEqual(['update a@1001->1001', 'update a@1001->1001', 'update a@1001->1001']);
    expect(slow.log).toEqual(['add a@1001 initial', 'update a@1001->1001']);
    expect(never.log).toEqual(['add a@1001 initial']);
  });

  it('applies client-go resync period rules: 1 s minimum, lowered check period before start, raised after', async () => {
    const lw = new FakeListerWatcher();
    const informer = new SharedIndexInformer({ listerWatcher: lw, resyncPeriodMs: 60_000, clock: new FakeClock() });
    const a = informer.addEventHandler({});
    const b = informer.addEventHandler({}, { resyncPeriodMs: 10 });
    expect(informer.warnings[0]).toMatch(/too small/);
    expect(b.resyncPeriodMs).toBe(1000); // and the check period is lowered to 1 s before start
    expect(a.resyncPeriodMs).toBe(60_000);
    const stop = new AbortController();
    stops.push(stop);
    void informer.run(stop.signal);
    await informer.whenSynced();
    const c = informer.addEventHandler({}, { resyncPeriodMs: 1000 });
    expect(c.resyncPeriodMs).toBe(1000);
    const started = new SharedIndexInformer({ listerWatcher: lw, resyncPeriodMs: 60_000, clock: new FakeClock() });
    const stop2 = new AbortController();
    stops.push(stop2);
    void started.run(stop2.signal);
    const d = started.addEventHandler({}, { resyncPeriodMs: 5000 });
    expect(d.resyncPeriodMs).toBe(60_000); // raised to the check period once started
    expect(started.warnings.at(-1)).toMatch(/already started/);
  });

  it('disables a handler resync when the informer does not resync', () => {
    const informer = new SharedIndexInformer({ listerWatcher: new FakeListerWatcher() });
    const reg = informer.addEventHandler({}, { resyncPeriodMs: 5000 });
    expect(reg.resyncPeriodMs).toBe(0);
    expect(informer.warnings.at(-1)).toMatch(/doesn't support resyncing/);
  });

  it('blocks the pipeline when a listener buffer is full, reports overflow, and loses nothing', async () => {
    const lw = new FakeListerWatcher();
    lw.seed(Array.from({ length: 20 }, (_, i) => pod(`p${i}`)));
    const tracer = new Tracer();
    const overflow: TraceRecord[] = [];
    tracer.subscribe((r) => r.op === 'overflow' && overflow.push(r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowSeen: string[] = [];
    const fastSeen: string[] = [];
    const { informer, regs } = start(lw, { tracer, listenerBufferSize: 3 }, [
      { onAdd: async (o) => (await gate, void slowSeen.push(o.metadata.name!)) },
      { onAdd: (o) => void fastSeen.push(o.metadata.name!) },
    ]);
    await eventually(() => overflow.length > 0, 'overflow');
    expect(overflow[0]).toMatchObject({ stage: 'handler', op: 'overflow', listener: 'handler-1', bound: 3, policy: 'block' });
    expect(informer.fifoLength).toBeGreaterThan(0);
    expect(regs[0].stats.maxBuffered).toBeLessThanOrEqual(3);
    expect(fastSeen.length).toBeLessThan(20);
    release();
    await eventually(() => slowSeen.length === 20 && fastSeen.length === 20, 'all delivered');
    expect(slowSeen).toEqual(fastSeen);
    expect(regs[0].stats.overflows).toBeGreaterThan(0);
  });

  it('strips managedFields by default and keeps them on request', async () => {
    const withMF = pod('a', { metadata: { name: 'a', namespace: 'ns', managedFields: [{ manager: 'kubectl' }] } });
    const lw = new FakeListerWatcher();
    lw.seed([withMF]);
    const stripped = start(lw).informer;
    const kept = start(lw, { keepManagedFields: true }).informer;
    await stripped.whenSynced();
    await kept.whenSynced();
    expect(stripped.getIndexer().getByKey('ns/a')!.metadata.managedFields).toBeUndefined();
    expect(kept.getIndexer().getByKey('ns/a')!.metadata.managedFields).toEqual([{ manager: 'kubectl' }]);
    expect(lw.get('ns/a')!.metadata.managedFields).toHaveLength(1);
  });

  it('serves indices of the cache', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b', { spec: { nodeName: 'n2' } })]);
    const { informer } = start(lw, { indexers: { node: nodeNameIndexFunc } });
    await informer.whenSynced();
    expect(informer.getIndexer().indexKeys('node', 'n2')).toEqual(['ns/b']);
  });

  it('traces handler calls with listener, rv, oldRv and sync flags; objects only with traceObjects', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a')]);
    const tracer = new Tracer();
    const recs: TraceRecord[] = [];
    tracer.subscribe((r) => r.stage === 'handler' && recs.push(r));
    const { informer } = start(lw, { tracer }, [{}]);
    await informer.whenSynced();
    await lw.waitForWatch(1);
    lw.apply(pod('a', { status: {} }));
    await eventually(() => recs.length === 2);
    expect(recs[0]).toMatchObject({ op: 'OnAdd', key: 'ns/a', rv: '1001', listener: 'handler-1', isInInitialList: true });
    expect(recs[1]).toMatchObject({ op: 'OnUpdate', key: 'ns/a', rv: '1002', oldRv: '1001', sync: false });
    expect(recs[1].old).toBeUndefined();

    const tracer2 = new Tracer();
    const recs2: TraceRecord[] = [];
    tracer2.subscribe((r) => r.stage === 'handler' && recs2.push(r));
    const second = start(lw, { tracer: tracer2, traceObjects: true }, [{}]).informer;
    await second.whenSynced();
    await eventually(() => recs2.length === 1);
    expect((recs2[0].new as KubeObject).metadata.name).toBe('a');
  });

  it('reports handler errors and keeps delivering', async () => {
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    const errors: string[] = [];
    const seen: string[] = [];
    const { regs } = start(lw, { onHandlerError: (e, l) => errors.push(`${l}: ${(e as Error).message}`) }, [
      {
        onAdd: (o) => {
          seen.push(o.metadata.name!);
          if (o.metadata.name === 'a') throw new Error('bad a');
        },
      },
    ]);
    await eventually(() => seen.length === 2);
    expect(errors).toEqual(['handler-1: bad a']);
    expect(regs[0].stats.errors).toBe(1);
  });

  it('stops when the signal aborts', async () => {
    const lw = new FakeListerWatcher();
    const { informer, stop, done } = start(lw);
    await informer.whenSynced();
    stop.abort();
    await done;
  });
});

describe('SharedIndexInformer batchProcess (client-go 1.35 InOrderInformersBatchProcess)', () => {
  /** The informer's own handler (what distributes to listeners), noting at each call what the cache holds. */
  function cacheWatcher(store: Indexer, log: string[]): DeltaHandler {
    const cached = () => store.listKeys().sort().join(',');
    return {
      onAdd: (o) => void log.push(`add ${o.metadata.name} sees [${cached()}]`),
      onUpdate: (old, o) => void log.push(`update ${o.metadata.name}@${old.metadata.resourceVersion}->${o.metadata.resourceVersion} sees [${cached()}]`),
      onDelete: (o: ObjectOrTombstone) => void log.push(`delete ${o instanceof DeletedFinalStateUnknown ? o.key : o.metadata.name} sees [${cached()}]`),
    };
  }
  const deltas: Deltas = [
    { type: 'Added', object: pod('a', { metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' } }) },
    { type: 'Updated', object: pod('b', { metadata: { name: 'b', namespace: 'ns', resourceVersion: '3' } }) },
    { type: 'Deleted', object: pod('c', { metadata: { name: 'c', namespace: 'ns', resourceVersion: '4' } }) },
  ];
  const seeded = () => {
    const store = new Indexer();
    store.add(pod('b', { metadata: { name: 'b', namespace: 'ns', resourceVersion: '1' } }));
    store.add(pod('c', { metadata: { name: 'c', namespace: 'ns', resourceVersion: '1' } }));
    return store;
  };

  it('processDeltasInBatch puts the whole batch into the cache before the first handler call', () => {
    const store = seeded();
    const log: string[] = [];
    processDeltasInBatch(cacheWatcher(store, log), store, deltas, false);
    expect(log).toEqual(['add a sees [ns/a,ns/b]', 'update b@1->3 sees [ns/a,ns/b]', 'delete c sees [ns/a,ns/b]']);
  });

  it('processDeltas (no batches) updates the cache one delta at a time, each just before its handler', () => {
    const store = seeded();
    const log: string[] = [];
    processDeltas(cacheWatcher(store, log), store, deltas, false);
    expect(log).toEqual(['add a sees [ns/a,ns/b,ns/c]', 'update b@1->3 sees [ns/a,ns/b,ns/c]', 'delete c sees [ns/a,ns/b]']);
  });

  it('traces each batch (fifo batch record) and delivers every delta exactly once, in order', async () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const lw = new FakeListerWatcher();
    lw.seed([pod('a'), pod('b')]);
    const h = recorder();
    const { informer } = start(lw, { fifo: 'real', batchProcess: true, tracer }, [h]);
    await informer.whenSynced();
    await eventually(() => h.log.length === 2);
    await lw.waitForWatch(1);
    lw.apply(pod('a', { spec: { nodeName: 'n2' } }));
    lw.remove('ns/b');
    await eventually(() => h.log.length === 4);
    expect(h.log).toEqual(['add a@1001 initial', 'add b@1002 initial', 'update a@1001->1003', 'delete b@1004']);
    const batches = records.filter((r) => r.stage === 'fifo' && r.op === 'batch');
    expect(batches[0]).toMatchObject({ batch: 1, size: 2, isInInitialList: true });
  });
});
