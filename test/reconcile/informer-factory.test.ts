// The run's shared informer factory, in-process: one informer per resource whatever name it is asked by (also
// for two callers at once), the cache scope and the role handed to the catalog and the wrapper, informers
// created while running started at once, and an informer that gives up reported as fatal (not on a stop).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { Tracer } from '../../src/informer/trace.js';
import type { ListerWatcher } from '../../src/informer/types.js';
import type { CacheScope, ResourceInfo } from '../../src/reconcile/catalog.js';
import { SharedInformerFactory, idOf, type InformerFactoryOptions } from '../../src/reconcile/informer-factory.js';
import { CONFIGMAPS, DEPLOYMENTS, MemoryCatalog, deployment, eventually } from './helpers.js';

const NODES: ResourceInfo = { name: 'nodes', group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

function factory(o: Partial<InformerFactoryOptions> = {}) {
  const catalog = new MemoryCatalog([DEPLOYMENTS, CONFIGMAPS, NODES]);
  const scopes: { resource: string; scope: CacheScope }[] = [];
  const listerWatcher = catalog.listerWatcher.bind(catalog);
  catalog.listerWatcher = ((info: ResourceInfo, scope: CacheScope) => {
    scopes.push({ resource: info.name, scope });
    return listerWatcher(info);
  }) as typeof catalog.listerWatcher;
  const f = new SharedInformerFactory({ catalog, tracer: new Tracer(), clock: new FakeClock(), ...o });
  return { catalog, scopes, f };
}

describe('SharedInformerFactory', () => {
  it('makes one informer per resource, whatever name it is asked by, also for two callers at once', async () => {
    const { f, scopes } = factory();
    const [a, b] = await Promise.all([f.informerFor('deployments.apps'), f.informerFor('deployments')]);
    expect(a).toBe(b);
    expect(await f.informerFor(DEPLOYMENTS)).toBe(a);
    expect(a.info).toBe(DEPLOYMENTS);
    expect(f.existing(DEPLOYMENTS)).toBe(a);
    expect(f.existing(CONFIGMAPS)).toBeUndefined();
    // The same resource name in another group is another resource.
    expect(f.existing({ ...DEPLOYMENTS, group: 'extensions' })).toBeUndefined();
    const c = await f.informerFor('configmaps');
    expect(c).not.toBe(a);
    expect(f.informers.map((e) => e.info.name)).toEqual(['deployments.apps', 'configmaps']);
    // The catalog was asked once per resource, with the whole cache when nobody says otherwise.
    expect(scopes).toEqual([
      { resource: 'deployments.apps', scope: { primary: false } },
      { resource: 'configmaps', scope: { primary: false } },
    ]);
    expect(idOf(DEPLOYMENTS)).toBe('apps/deployments');
    expect(idOf(CONFIGMAPS)).toBe('/configmaps');
  });

  it('hands each resource\'s cache scope to the catalog, and its role to the wrapper', async () => {
    const wrapped: { resource: string; role: string }[] = [];
    const { f, scopes, catalog } = factory({
      scopeOf: (info) => (info.name === 'deployments.apps' ? { primary: true, labelSelector: 'app=web' } : { primary: false, namespaces: ['a'] }),
      wrap: (info, lw, role) => {
        wrapped.push({ resource: info.name, role });
        expect(lw).toBe(catalog.lw(info));
        return lw;
      },
    });
    await f.informerFor('deployments');
    await f.informerFor('configmaps');
    expect(scopes).toEqual([
      { resource: 'deployments.apps', scope: { primary: true, labelSelector: 'app=web' } },
      { resource: 'configmaps', scope: { primary: false, namespaces: ['a'] } },
    ]);
    expect(wrapped).toEqual([
      { resource: 'deployments.apps', role: 'primary' },
      { resource: 'configmaps', role: 'secondary' },
    ]);
  });

  it('reads through the wrapper\'s ListerWatcher, not the catalog\'s', async () => {
    const other = new MemoryCatalog([DEPLOYMENTS]);
    other.lw(DEPLOYMENTS).apply(deployment('default', 'from-wrapper'));
    const { f, catalog } = factory({ wrap: (info): ListerWatcher => other.lw(info) });
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'from-catalog'));
    const e = await f.informerFor(DEPLOYMENTS);
    const ac = new AbortController();
    f.start(ac.signal);
    await e.informer.whenSynced();
    expect(e.informer.getIndexer().list().map((o) => o.metadata.name)).toEqual(['from-wrapper']);
    ac.abort();
    await f.stopped();
  });

  it('starts the informers made before start, and any made while running at once; stops them all', async () => {
    const { f, catalog } = factory();
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
    catalog.lw(CONFIGMAPS).apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'cfg' } });
    const d = await f.informerFor(DEPLOYMENTS);
    // Nothing started yet: nothing has synced, and the factory is not synced while one informer is not.
    expect(f.hasSynced()).toBe(false);
    const ac = new AbortController();
    f.start(ac.signal);
    await d.informer.whenSynced();
    expect(f.hasSynced()).toBe(true);
    const c = await f.informerFor(CONFIGMAPS);
    expect(f.hasSynced()).toBe(false);
    await c.informer.whenSynced();
    expect(c.informer.getIndexer().list().map((o) => o.metadata.name)).toEqual(['cfg']);
    expect(f.hasSynced()).toBe(true);
    await eventually(() => f.isIdle(), 'idle informers');
    ac.abort();
    await f.stopped();
  });

  it('syncs with a watch-list only when asked to, and with LIST then WATCH otherwise', async () => {
    for (const watchList of [undefined, {}]) {
      const { f, catalog } = factory({ watchList });
      catalog.lw(DEPLOYMENTS).apply(deployment('default', 'web'));
      const d = await f.informerFor(DEPLOYMENTS);
      const ac = new AbortController();
      f.start(ac.signal);
      await d.informer.whenSynced();
      expect(d.informer.getIndexer().size).toBe(1);
      const server = catalog.lw(DEPLOYMENTS);
      if (watchList) {
        expect(server.listRequests).toEqual([]);
        expect(server.watchRequests[0].sendInitialEvents).toBe(true);
      } else {
        expect(server.listRequests).toHaveLength(1);
        expect(server.watchRequests.every((w) => !w.sendInitialEvents)).toBe(true);
      }
      ac.abort();
      await f.stopped();
    }
  });

  it('is not idle while an informer has events to hand out', async () => {
    const { f, catalog } = factory();
    const d = await f.informerFor(DEPLOYMENTS);
    const ac = new AbortController();
    f.start(ac.signal);
    await d.informer.whenSynced();
    await eventually(() => f.isIdle(), 'idle informers');
    catalog.lw(DEPLOYMENTS).apply(deployment('default', 'late'));
    await eventually(() => !f.isIdle() || d.informer.getIndexer().size === 1, 'the event taken up');
    await eventually(() => f.isIdle() && d.informer.getIndexer().size === 1, 'idle again');
    ac.abort();
    await f.stopped();
  });

  it('reports an informer that gives up as fatal, naming its resource, but not one ended by the stop', async () => {
    const fatal: { err: unknown; resource: string }[] = [];
    const { f } = factory({ onFatal: (err, info) => fatal.push({ err, resource: info.name }) });
    const d = await f.informerFor(DEPLOYMENTS);
    const ac = new AbortController();
    f.start(ac.signal);
    await d.informer.whenSynced();
    // An informer runs once: started again, its run rejects, which the factory takes for giving up.
    f.start(ac.signal);
    await eventually(() => fatal.length === 1, 'the fatal report');
    expect(fatal[0].resource).toBe('deployments.apps');
    expect(String(fatal[0].err)).toMatch(/already been started/);
    ac.abort();
    await f.stopped();
    // After a stop, the same failure is the stop's doing: not reported.
    const { f: g } = factory({ onFatal: (err, info) => fatal.push({ err, resource: info.name }) });
    const e = await g.informerFor(CONFIGMAPS);
    const stopped = new AbortController();
    stopped.abort();
    g.start(stopped.signal);
    g.start(stopped.signal);
    await g.stopped();
    expect(e.informer.hasSynced()).toBe(false);
    expect(fatal).toHaveLength(1);
  });
});
