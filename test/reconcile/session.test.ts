import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ControllerDefinition, ReconcileRequest } from '../../src/reconcile/types.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog, REPLICASETS, deployment, eventually, startSession } from './helpers.js';

const runsOf = (records: TraceRecord[], key?: string) => records.filter((r) => r.stage === 'reconcile' && r.op === 'start' && (key === undefined || r.key === key));
const reasonTexts = (r: TraceRecord) => (r.reasons as { reason: string }[]).map((x) => x.reason);

describe('reconcile session: triggers', () => {
  it('enqueues the controller owner when an owned ReplicaSet changes, with the related-object reason', async () => {
    const catalog = new MemoryCatalog();
    const d = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const rs = catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'web-7d9f', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid!, controller: true }] } });
    catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'orphan' } });
    const seen: ReconcileRequest[] = [];
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', owns: ['replicasets.apps'], reconcile: (req) => void seen.push(req) } }] });
    await eventually(() => seen.length >= 1 && h.session.isIdle(), 'the initial runs');
    seen.length = 0;
    const updated = catalog.lw(REPLICASETS).apply({ ...rs, metadata: { ...rs.metadata, labels: { touched: 'yes' } } });
    await eventually(() => seen.length === 1, 'the owner run');
    expect(seen[0]).toMatchObject({ namespace: 'default', name: 'web' });
    expect(seen[0].reasons).toEqual([expect.objectContaining({ reason: 'related object updated', op: 'OnUpdate', resource: 'replicasets.apps', key: 'default/web-7d9f', rv: updated.metadata.resourceVersion })]);
    // A ReplicaSet without a controller owner enqueues nothing.
    catalog.lw(REPLICASETS).apply({ metadata: { namespace: 'default', name: 'orphan', labels: { x: 'y' } } });
    await eventually(() => h.session.isIdle());
    expect(seen).toHaveLength(1);
    await h.stop();
  });

  it('runs exactly the keys a watches map returns when the watched object changes', async () => {
    const catalog = new MemoryCatalog();
    for (const name of ['a', 'b', 'c']) catalog.lw(DEPLOYMENTS).apply(deployment('ns', name, { spec: { config: name === 'c' ? 'other' : 'shared' } }));
    const cm = catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'ns', name: 'shared' }, data: { v: '1' } });
    const seen: string[] = [];
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      watches: [{ resource: 'configmaps', map: (obj, cache) => cache.list('deployments.apps', { namespace: obj.metadata.namespace }).filter((d) => (d.spec as { config: string }).config === obj.metadata.name).map((d) => ({ namespace: d.metadata.namespace, name: d.metadata.name! })) }],
      reconcile: (req) => void seen.push(`${req.namespace}/${req.name}:${req.reasons.map((r) => r.reason).join('+')}`),
    };
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition }] });
    await eventually(() => seen.length >= 3 && h.session.isIdle(), 'the initial runs');
    seen.length = 0;
    catalog.lw(CONFIGMAPS).apply({ ...cm, data: { v: '2' } });
    await eventually(() => seen.length >= 2 && h.session.isIdle(), 'the mapped runs');
    expect(seen.sort()).toEqual(['ns/a:related object updated', 'ns/b:related object updated']);
    await h.stop();
  });
});

describe('reconcile session: scheduling', () => {
  it('debounce: 20 rapid updates of one object make one run with 20 merged reasons', async () => {
    const clock = new FakeClock();
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const d = catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const seen: ReconcileRequest[] = [];
    const h = await startSession({ catalog, clock, mode: 'intercept', debounceMs: 500, controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: (req) => void seen.push(req) } }] });
    await eventually(() => h.session.hasSynced(), 'sync');
    await clock.advance(500);
    await eventually(() => seen.length === 1, 'the initial run');
    for (let i = 1; i <= 20; i++) {
      catalog.lw(DEPLOYMENTS).apply({ ...d, spec: { replicas: i } });
      await eventually(() => h.session.factory.isIdle(), 'the update to reach the handler');
      await clock.advance(100); // inside the window: each trigger restarts it
    }
    expect(seen).toHaveLength(1);
    await clock.advance(500);
    await eventually(() => seen.length === 2, 'the debounced run');
    expect(seen[1].reasons).toHaveLength(20);
    expect(new Set(seen[1].reasons.map((r) => r.rv)).size).toBe(20);
    expect(seen[1].reasons.every((r) => r.reason === 'object updated')).toBe(true);
    await h.stop();
  });

  it('concurrency: never more than N runs, never one key twice at once, no trigger lost (randomized)', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    for (const k of keys) catalog.lw(DEPLOYMENTS).apply(deployment('ns', k));
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const running = new Set<string>();
    let active = 0;
    let maxActive = 0;
    let overlap = 0;
    const seenRvs = new Set<string>();
    const N = 4;
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      async reconcile(req) {
        const key = `${req.namespace}/${req.name}`;
        if (running.has(key)) overlap++;
        running.add(key);
        active++;
        maxActive = Math.max(maxActive, active);
        for (const r of req.reasons) seenRvs.add(r.rv!);
        const turns = Math.floor(rand() * 5);
        for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
        active--;
        running.delete(key);
      },
    };
    const h = await startSession({ catalog, mode: 'intercept', concurrency: N, maxReasonsPerKey: 100_000, controllers: [{ name: 'c', definition }] });
    await eventually(() => h.session.hasSynced());
    const sent = new Set<string>(catalog.lw(DEPLOYMENTS).items().map((o) => o.metadata.resourceVersion!));
    for (let i = 0; i < 3000; i++) {
      const k = keys[Math.floor(rand() * keys.length)];
      const cur = catalog.lw(DEPLOYMENTS).get(`ns/${k}`)!;
      sent.add(catalog.lw(DEPLOYMENTS).apply({ ...cur, spec: { replicas: i } }).metadata.resourceVersion!);
      if (rand() < 0.2) await new Promise((r) => setImmediate(r));
    }
    await eventually(() => h.session.isIdle() && h.session.factory.isIdle() && seenRvs.size >= sent.size, 'every trigger to run', 200_000);
    expect(overlap).toBe(0);
    expect(maxActive).toBeLessThanOrEqual(N);
    expect(maxActive).toBeGreaterThan(1);
    expect([...sent].filter((rv) => !seenRvs.has(rv))).toEqual([]);
    const held = h.records.filter((r) => r.op === 'held');
    expect(held.length).toBeGreaterThan(0);
    await h.stop();
  });
});

describe('reconcile session: actions and errors', () => {
  const failing = (clock: FakeClock, definition: Partial<ControllerDefinition>) => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    return startSession({ catalog, clock, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: () => undefined, ...definition } }] });
  };

  it('a thrown error backs off per key as controller-runtime does: 5 ms doubling', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const h = await failing(clock, {
      reconcile() {
        runs++;
        throw new Error('boom');
      },
    });
    await eventually(() => runs === 1);
    for (let i = 2; i <= 6; i++) {
      await eventually(() => h.session.runners[0].controller.queue.waitingCount() === 1, 'the backoff');
      await clock.advance(5 * 2 ** (i - 2));
      await eventually(() => runs === i, `run ${i}`);
    }
    const delays = h.records.filter((r) => r.op === 'add-rate-limited').map((r) => r.delayMs);
    expect(delays).toEqual([5, 10, 20, 40, 80, 160]);
    const errors = h.records.filter((r) => r.stage === 'reconcile' && r.op === 'error');
    expect(errors.map((e) => e.backoffMs)).toEqual([5, 10, 20, 40, 80, 160]);
    expect(errors[0]).toMatchObject({ error: 'boom', controller: 'c' });
    expect(reasonTexts(runsOf(h.records)[1])).toEqual(['error backoff']);
    await h.stop();
  });

  it('requeueAfter waits exactly that long, with the reason "reconciler requested retry"', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const h = await failing(clock, {
      reconcile() {
        runs++;
        return runs === 1 ? { requeueAfter: '30s' } : undefined;
      },
    });
    await eventually(() => runs === 1);
    await eventually(() => h.session.runners[0].controller.queue.waitingCount() === 1);
    await clock.advance(29_999);
    expect(runs).toBe(1);
    await clock.advance(1);
    await eventually(() => runs === 2);
    expect(reasonTexts(runsOf(h.records)[1])).toEqual(['reconciler requested retry']);
    await h.stop();
  });

  it('a requeueAfter past Node\'s timer range (3e9 ms) waits the longest timer, said once per controller', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const h = await failing(clock, {
      reconcile() {
        runs++;
        return { requeueAfter: 3e9 };
      },
    });
    await eventually(() => runs === 1);
    await eventually(() => h.session.runners[0].controller.queue.waitingCount() === 1);
    await clock.advance(2 ** 31 - 2);
    expect(runs).toBe(1);
    await clock.advance(1);
    await eventually(() => runs === 2);
    const clamped = h.records.filter((r) => r.stage === 'reconcile' && r.op === 'clamped');
    expect(clamped).toHaveLength(1);
    expect(clamped[0]).toMatchObject({ requestedMs: 3e9, usedMs: 2 ** 31 - 1 });
    expect(h.records.filter((r) => r.op === 'requeue-after').map((r) => r.requeueAfterMs)).toEqual([2 ** 31 - 1, 2 ** 31 - 1]);
    await h.stop();
  });

  it('errorPolicy decides the retry: its requeueAfter, reason "error policy requested retry"', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const h = await failing(clock, {
      reconcile() {
        runs++;
        if (runs === 1) throw new Error('flaky');
      },
      errorPolicy: (err) => ({ requeueAfter: (err as Error).message === 'flaky' ? 2000 : 1 }),
    });
    await eventually(() => runs === 1);
    await eventually(() => h.session.runners[0].controller.queue.waitingCount() === 1);
    await clock.advance(1999);
    expect(runs).toBe(1);
    await clock.advance(1);
    await eventually(() => runs === 2);
    expect(h.records.find((r) => r.stage === 'reconcile' && r.op === 'error')).toMatchObject({ error: 'flaky', policy: 'requeue-after', requeueAfterMs: 2000 });
    expect(reasonTexts(runsOf(h.records)[1])).toEqual(['error policy requested retry']);
    expect(h.records.some((r) => r.op === 'add-rate-limited')).toBe(false);
    await h.stop();
  });
});

describe('reconcile session: writes', () => {
  const annotator: ControllerDefinition = {
    for: 'deployments.apps',
    async reconcile(req, ctx) {
      const d = await ctx.get('deployments.apps', req);
      if (!d || d.metadata.annotations?.team) return;
      await ctx.patch(d, { metadata: { annotations: { team: 'blue' } } });
    },
  };

  it('intercept: reports each write with its diff and sends nothing; the cache keeps the server state', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'annotator', definition: annotator }] });
    await eventually(() => h.session.report.runs === 1 && h.session.isIdle());
    const writes = h.records.filter((r) => r.op === 'write');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ key: 'default/web', controller: 'annotator', verb: 'patch', mode: 'intercept', target: 'default/web', changed: ['metadata.annotations'] });
    expect(writes[0].request).toMatchObject({ verb: 'patch', patchType: 'merge', body: { metadata: { annotations: { team: 'blue' } } } });
    expect(catalog.lw(DEPLOYMENTS).get('default/web')!.metadata.annotations).toBeUndefined();
    expect(h.session.report.pending().map((r) => r.key)).toEqual(['default/web']);
    await h.stop();
  });

  it('overlay: the reconciler sees its own write as a local event and converges', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const h = await startSession({ catalog, mode: 'overlay', controllers: [{ name: 'annotator', definition: annotator }] });
    await eventually(() => h.session.report.runs === 2 && h.session.isIdle(), 'the second run');
    const second = runsOf(h.records)[1];
    expect(second.reasons).toEqual([expect.objectContaining({ reason: 'object updated', local: true, own: true, rv: 'local-1' })]);
    expect(h.records.find((r) => r.stage === 'watch' && r.local)).toMatchObject({ op: 'MODIFIED', rv: 'local-1' });
    expect(h.session.report.pending()).toEqual([]);
    expect(catalog.lw(DEPLOYMENTS).get('default/web')!.metadata.annotations).toBeUndefined();
    // A later server version of the object keeps the local edit, so no new write is needed.
    const cur = catalog.lw(DEPLOYMENTS).get('default/web')!;
    catalog.lw(DEPLOYMENTS).apply({ ...cur, spec: { replicas: 3 } });
    await eventually(() => h.session.report.runs === 3 && h.session.isIdle(), 'the run for the server update');
    expect(h.records.filter((r) => r.op === 'write')).toHaveLength(1);
    await h.stop();
  });

  it('overlay: a local delete reaches the handlers as OnDelete; a patch of a kind nobody watches is reported, not refused', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'doomed'));
    const seen: string[] = [];
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      async reconcile(req, ctx) {
        seen.push(req.reasons.map((r) => `${r.op}:${r.reason}`).join(','));
        const d = await ctx.get('deployments.apps', req);
        if (!d) return;
        await ctx.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: req.namespace, name: 'elsewhere' } }, { data: { seen: 'yes' } });
        await ctx.delete(d);
      },
    };
    const h = await startSession({ catalog, mode: 'overlay', controllers: [{ name: 'c', definition }] });
    await eventually(() => h.session.report.runs === 2 && h.session.isIdle(), 'the run after the local delete');
    expect(seen[1]).toBe('OnDelete:object deleted');
    const writes = h.records.filter((r) => r.op === 'write');
    expect(writes.map((w) => [w.verb, w.resource, w.changed])).toEqual([
      ['patch', 'configmaps', ['(not in the cache: the resource is not watched)']],
      ['delete', 'deployments.apps', ['(deleted)']],
    ]);
    expect(h.records.find((r) => r.stage === 'handler' && r.op === 'OnDelete')).toMatchObject({ key: 'default/doomed', controller: 'c' });
    expect(catalog.lw(DEPLOYMENTS).get('default/doomed')).toBeDefined();
    await h.stop();
  });

  it('the loop detector names the field that changes on every round', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    let n = 0;
    const stamper: ControllerDefinition = {
      for: 'deployments.apps',
      async reconcile(req, ctx) {
        const d = await ctx.get('deployments.apps', req);
        if (d && n < 12) await ctx.updateStatus({ ...d, status: { observedRound: ++n } });
      },
    };
    const h = await startSession({ catalog, mode: 'overlay', loopThreshold: 5, controllers: [{ name: 'stamper', definition: stamper }] });
    await eventually(() => n === 12 && h.session.isIdle(), 'twelve rounds');
    const loops = h.records.filter((r) => r.op === 'loop');
    expect(loops).toHaveLength(1);
    expect(loops[0]).toMatchObject({ key: 'default/web', controller: 'stamper', rounds: 6, fields: ['status.observedRound'] });
    await h.stop();
  });

  it('a write of a kind nobody watches is still reported; a conflict on a stale resourceVersion fails the run', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const errors: string[] = [];
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      async reconcile(req, ctx) {
        await ctx.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${req.name}-generated` }, data: { a: '1' } });
        const d = (await ctx.get('deployments.apps', req))!;
        try {
          await ctx.update({ ...d, metadata: { ...d.metadata, resourceVersion: '1' } });
        } catch (e) {
          errors.push((e as Error).message);
        }
      },
    };
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition }] });
    await eventually(() => h.session.report.runs === 1 && h.session.isIdle());
    const writes = h.records.filter((r) => r.op === 'write');
    expect(writes[0]).toMatchObject({ verb: 'create', resource: 'configmaps', target: 'default/web-generated' });
    expect(writes[1]).toMatchObject({ verb: 'update', status: { code: 409, reason: 'Conflict' } });
    expect(errors[0]).toMatch(/the object has been modified/);
    await h.stop();
  });
});

describe('reconcile session: shared informers', () => {
  it('two controllers share one LIST and one WATCH per kind; each handler and queue record names its controller', async () => {
    const catalog = new MemoryCatalog();
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const seen: string[] = [];
    const def = (name: string): ControllerDefinition => ({ for: 'deployments.apps', owns: ['replicasets.apps'], reconcile: () => void seen.push(name) });
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'one', definition: def('one') }, { name: 'two', definition: def('two') }] });
    await eventually(() => seen.length === 2 && h.session.isIdle());
    for (const info of [DEPLOYMENTS, REPLICASETS]) {
      expect(catalog.lw(info).listRequests).toHaveLength(1);
      expect(catalog.lw(info).watchRequests).toHaveLength(1);
    }
    const named = h.records.filter((r) => r.stage === 'handler' || r.stage === 'workqueue' || r.stage === 'reconcile');
    expect(named.filter((r) => r.controller !== 'one' && r.controller !== 'two')).toEqual([]);
    for (const stage of ['handler', 'workqueue', 'reconcile']) expect(new Set(named.filter((r) => r.stage === stage).map((r) => r.controller))).toEqual(new Set(['one', 'two']));
    await h.stop();
  });

  it('indexers the module declares are queried by ctx.list({ index })', async () => {
    const catalog = new MemoryCatalog();
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    for (const [name, cm] of [['a', 'web'], ['b', 'web'], ['c', 'other']]) catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name, labels: { app: cm } } });
    const got: string[][] = [];
    const definition: ControllerDefinition = {
      for: 'deployments.apps',
      indexers: { configmaps: { byApp: (cm) => [cm.metadata.labels?.app ?? ''] } },
      reconcile: async (req, ctx) => void got.push((await ctx.list('configmaps', { index: { name: 'byApp', value: req.name } })).map((c) => c.metadata.name!).sort()),
    };
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition }] });
    await eventually(() => got.length === 1);
    expect(got[0]).toEqual(['a', 'b']);
    await h.stop();
  });

  it('ctx.get of a kind nobody watches starts a shared informer and waits for its sync', async () => {
    const catalog = new MemoryCatalog();
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    catalog.lw(CONFIGMAPS).apply({ metadata: { namespace: 'default', name: 'web-config' }, data: { a: '1' } });
    const got: (KubeObject | undefined)[] = [];
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: async (req, ctx) => void got.push(await ctx.get('configmaps', { namespace: req.namespace, name: `${req.name}-config` })) } }] });
    await eventually(() => got.length === 1);
    expect(got[0]).toMatchObject({ data: { a: '1' } });
    expect(catalog.lw(CONFIGMAPS).listRequests).toHaveLength(1);
    await h.stop();
  });
});
