// How one reconcile run is put together and taken down, in-process: what setup refuses (a controller with no
// primary, two modules asking different caches of one resource), the cache scope each resource is listed with,
// what ends a run (the caller's signal, an informer giving up, --max-writes, a forced stop of a sent write) and
// what --once asks of it afterwards (empty primaries, runs in progress, retries due).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/informer/types.js';
import type { CacheScope, ResourceInfo } from '../../src/reconcile/catalog.js';
import { CatalogError } from '../../src/reconcile/catalog.js';
import { ReconcileSession } from '../../src/reconcile/session.js';
import { Tracer } from '../../src/informer/trace.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import type { ObjectWriter, WriteRequest } from '../../src/reconcile/writer.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog, REPLICASETS, deployment, eventually, startSession } from './helpers.js';

const noop: ControllerDefinition['reconcile'] = () => undefined;

/** A MemoryCatalog that notes the cache scope each resource is listed with. */
function scopedCatalog() {
  const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS, REPLICASETS]);
  const scopes = new Map<string, CacheScope>();
  const listerWatcher = catalog.listerWatcher.bind(catalog);
  catalog.listerWatcher = ((info: ResourceInfo, scope: CacheScope) => {
    scopes.set(info.name, scope);
    return listerWatcher(info);
  }) as typeof catalog.listerWatcher;
  return { catalog, scopes };
}

describe('reconcile session: setup', () => {
  it('refuses a controller that names no primary resource, in one line naming it', async () => {
    const session = new ReconcileSession({ catalog: new MemoryCatalog(), tracer: new Tracer(), mode: 'intercept', controllers: [{ name: 'lost', definition: { reconcile: noop } as ControllerDefinition }] });
    await expect(session.setup()).rejects.toThrow(/^controller lost names no primary resource$/);
  });

  it('lists a primary with the command line\'s selectors and a module\'s cache entry; a secondary with its cache entry only', async () => {
    const { catalog, scopes } = scopedCatalog();
    const h = await startSession({
      catalog,
      mode: 'intercept',
      controllers: [
        { name: 'a', definition: { for: 'deployments.apps', owns: ['configmaps', 'replicasets.apps'], cache: { 'deployments.apps': { namespaces: ['prod'] }, configmaps: { labelSelector: 'app=web' } }, reconcile: noop } },
        // The same entry from another module is no conflict, by any name.
        { name: 'b', definition: { for: 'deployments', cache: { deployments: { namespaces: ['prod'] } }, reconcile: noop } },
      ],
    });
    expect(scopes.get('deployments.apps')).toEqual({ primary: true, namespaces: ['prod'] });
    expect(scopes.get('configmaps')).toEqual({ primary: false, labelSelector: 'app=web' });
    // No module said anything of ReplicaSets: the whole of them, no selector.
    expect(scopes.get('replicasets.apps')).toEqual({ primary: false });
    await h.stop();
  });

  it('refuses two modules asking different caches of one resource, naming both', async () => {
    const session = new ReconcileSession({
      catalog: new MemoryCatalog(),
      tracer: new Tracer(),
      mode: 'intercept',
      controllers: [
        { name: 'a', definition: { for: 'deployments.apps', cache: { configmaps: { namespaces: ['a'] } }, reconcile: noop } },
        { name: 'b', definition: { for: 'deployments.apps', cache: { configmaps: { namespaces: ['b'] } }, reconcile: noop } },
      ],
    });
    const err = await session.setup().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogError);
    expect((err as Error).message).toBe('a and b declare different caches for configmaps (one cache serves every controller of the run): give both the same cache entry');
  });

  it('runs with at least one worker, whatever --concurrency says', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    let runs = 0;
    const h = await startSession({ catalog, mode: 'intercept', concurrency: 0, controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: () => void runs++ } }] });
    await eventually(() => runs === 1 && h.session.isIdle(), 'one run');
    await h.stop();
  });
});

describe('reconcile session: what ends a run', () => {
  it('a signal aborted before the run starts ends it at once', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    const session = new ReconcileSession({ catalog, tracer: new Tracer(), mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: noop } }] });
    await session.setup();
    const ac = new AbortController();
    ac.abort();
    await session.run(ac.signal);
    expect(session.hasSynced()).toBe(false);
  });

  it('an informer that gives up ends the run, every controller with it, with the informer\'s error', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    let runs = 0;
    const session = new ReconcileSession({ catalog, tracer: new Tracer(), mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', reconcile: () => void runs++ } }] });
    await session.setup();
    const ac = new AbortController();
    const outcome = session.run(ac.signal).then(() => 'resolved', (e: unknown) => e);
    await eventually(() => runs === 1, 'the first run');
    // An informer runs once: started again, its run rejects, as it does when its reflector gives up.
    session.factory.start(new AbortController().signal);
    const err = await outcome;
    expect(String(err)).toMatch(/informer deployments.apps has already been started/);
    // The caller never stopped it.
    expect(ac.signal.aborted).toBe(false);
  });

  it('--max-writes ends the run with its error once the limit is reached', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    for (const name of ['a', 'b', 'c']) catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name } });
    const sent: WriteRequest[] = [];
    const writer: ObjectWriter = { write: async (req) => (sent.push(req), { ...(req.body as KubeObject), metadata: { ...(req.body as KubeObject).metadata, resourceVersion: '99' } }) };
    const session = new ReconcileSession({
      catalog,
      tracer: new Tracer(),
      mode: 'server-dry-run',
      writer,
      writeLimits: { qps: 1000, burst: 1000, maxWrites: 2 },
      controllers: [{ name: 'c', definition: { for: 'configmaps', async reconcile(req, ctx) {
        const cm = await ctx.get('configmaps', req);
        if (cm) await ctx.update({ ...cm, data: { seen: 'yes' } });
      } } }],
    });
    await session.setup();
    const err = await session.run(new AbortController().signal).then(() => 'resolved', (e: unknown) => e);
    expect(String(err)).toMatch(/max-writes 2/);
    expect(sent).toHaveLength(2);
  });

  it('a stop lets a sent write finish; a forced stop aborts it', async () => {
    const catalog = new MemoryCatalog([CONFIGMAPS]);
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'a' } });
    let writeSignal: AbortSignal | undefined;
    const writer: ObjectWriter = {
      write: (_req, signal) => {
        writeSignal = signal;
        return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
      },
    };
    const h = await startSession({
      catalog,
      mode: 'server-dry-run',
      writer,
      controllers: [{ name: 'c', definition: { for: 'configmaps', async reconcile(req, ctx) {
        const cm = await ctx.get('configmaps', req);
        if (cm) await ctx.update({ ...cm, data: { seen: 'yes' } });
      } } }],
    });
    await eventually(() => writeSignal !== undefined && h.session.running() === 1, 'the write sent');
    let ended = false;
    const stopping = h.stop().finally(() => (ended = true));
    for (let i = 0; i < 200; i++) await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    expect(writeSignal!.aborted).toBe(false);
    h.session.forceStop(new Error('second Ctrl-C'));
    await stopping;
    expect(writeSignal!.aborted).toBe(true);
    expect(h.session.running()).toBe(0);
  });
});

describe('reconcile session: what --once asks', () => {
  it('names each controller whose primary holds no object once synced', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    const h = await startSession({
      catalog,
      mode: 'intercept',
      controllers: [
        { name: 'deploys', definition: { for: 'deployments.apps', reconcile: noop } },
        { name: 'configs', definition: { for: 'configmaps', reconcile: noop } },
      ],
    });
    expect(h.session.hasSynced()).toBe(false);
    await h.session.whenSynced();
    expect(h.session.hasSynced()).toBe(true);
    expect(h.session.emptyPrimaries()).toEqual([{ controller: 'configs', resource: 'configmaps' }]);
    await h.stop();
  });

  it('names the objects marked deleting that finalizers still hold, in every cache, and only those', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    const at = '2026-01-01T00:00:00Z';
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'held', { metadata: { namespace: 'default', name: 'held', deletionTimestamp: at, finalizers: ['a.example/x', 'b.example/y'] } }));
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'kept', { metadata: { namespace: 'default', name: 'kept', finalizers: ['a.example/x'] } }));
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'released', { metadata: { namespace: 'default', name: 'released', deletionTimestamp: at, finalizers: [] } }));
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'cfg', deletionTimestamp: at, finalizers: ['c.example/z'] } });
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'plain' } });
    const h = await startSession({ catalog, mode: 'intercept', controllers: [{ name: 'c', definition: { for: 'deployments.apps', owns: ['configmaps'], reconcile: noop } }] });
    await h.session.whenSynced();
    expect(h.session.stuckDeleting()).toEqual([
      { resource: 'deployments.apps', key: 'default/held', finalizers: ['a.example/x', 'b.example/y'] },
      { resource: 'configmaps', key: 'default/cfg', finalizers: ['c.example/z'] },
    ]);
    await h.stop();
  });

  it('counts runs in progress and failed keys with a retry due, over every controller', async () => {
    const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS]);
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'a' } });
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'b' } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let failures = 0;
    const h = await startSession({
      catalog,
      mode: 'intercept',
      // A long backoff: the failed keys stay due for the whole test.
      rateLimiter: () => ({ when: () => 60_000, forget: () => {}, numRequeues: () => 0 }),
      controllers: [
        { name: 'held', definition: { for: 'deployments.apps', reconcile: () => held } },
        { name: 'failing', definition: { for: 'configmaps', reconcile: () => {
          failures++;
          throw new Error('boom');
        } } },
      ],
    });
    await eventually(() => failures === 2 && h.session.running() === 1, 'both failures and the held run');
    expect(h.session.retriesDue()).toBe(2);
    expect(h.session.isIdle()).toBe(false);
    release();
    await eventually(() => h.session.running() === 0, 'the held run to end');
    expect(h.session.retriesDue()).toBe(2);
    await h.stop();
  });
});
