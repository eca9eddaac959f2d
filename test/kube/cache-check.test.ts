import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedIndexInformer } from '../../src/informer/shared-informer.js';
import type { KubeObject, ListerWatcher, WatchEvent } from '../../src/informer/types.js';
import { checkCache, compareCache } from '../../src/kube/pipelines/cache-check.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { HttpListerWatcher } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const obj = (key: string, rv: string): KubeObject => {
  const [namespace, name] = key.split('/');
  return { metadata: { namespace, name, resourceVersion: rv } };
};

/** A ListerWatcher that loses the watch events `drop` selects, as a buggy proxy or a lossy stream would. */
function dropping(inner: ListerWatcher, drop: (e: WatchEvent) => boolean): ListerWatcher {
  return {
    list: (o, s) => inner.list(o, s),
    async watch(o, s) {
      const stream = await inner.watch(o, s);
      return {
        close: () => stream.close(),
        async *[Symbol.asyncIterator]() {
          for await (const e of stream) if (!drop(e)) yield e;
        },
      };
    },
  };
}

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('compareCache', () => {
  it('finds objects missing from, extra in and stale in the cache, sorted by key', () => {
    const cache = [obj('a/same', '1'), obj('b/extra', '2'), obj('a/stale', '3'), obj('a/extra', '4')];
    const server = [obj('a/stale', '7'), obj('a/same', '1'), obj('z/missing', '8'), obj('c/missing', '9')];
    expect(compareCache(cache, server)).toEqual({
      missing: [{ key: 'c/missing', rv: '9' }, { key: 'z/missing', rv: '8' }],
      extra: [{ key: 'a/extra', rv: '4' }, { key: 'b/extra', rv: '2' }],
      stale: [{ key: 'a/stale', cacheRv: '3', serverRv: '7' }],
      same: 1,
    });
  });
});

describe('checkCache against the embedded server', () => {
  let sim: SimServer;
  let conn: Connection;
  const ac = new AbortController();
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, pods: 8, nodes: 2, churn: 0, seed: 3 });
    conn = connectionFromUrl(sim.url);
  });
  afterAll(async () => {
    ac.abort();
    await conn?.close();
    await sim?.close();
  });

  it('finds the ADDED, MODIFIED and DELETED events a lossy watch dropped, listing at the cache resourceVersion', async () => {
    const [gone, changed] = sim.api.list(PODS);
    const ns = gone.metadata.namespace!;
    const lost = new Set(['ghost', changed.metadata.name, gone.metadata.name]);
    const http = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true });
    const lw = dropping(http, (e) => lost.has(e.object.metadata?.name ?? ''));
    const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'pods', expectedKind: 'Pod' });
    const running = informer.run(ac.signal);
    await informer.whenSynced();
    const snap = () => ({ objects: informer.getStore().list(), resourceVersion: informer.lastSyncResourceVersion });
    expect(await checkCache({ listerWatcher: http, snapshot: snap() })).toMatchObject({ consistency: 'exact', inSync: true, cached: 8, listed: 8, same: 8 });

    sim.api.delete(PODS, ns, gone.metadata.name!);
    const updated = sim.api.update(PODS, { ...structuredClone(sim.api.get(PODS, ns, changed.metadata.name!)!), metadata: { ...sim.api.get(PODS, ns, changed.metadata.name!)!.metadata, labels: { moved: 'yes' } } });
    const ghost = sim.api.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ghost', namespace: ns }, spec: { nodeName: 'node-001', containers: [{ name: 'c', image: 'nginx' }] } });
    // One event that gets through moves the cache's resourceVersion past the lost ones.
    sim.api.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'marker', namespace: ns }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await until(() => informer.getStore().getByKey(`${ns}/marker`) !== undefined && informer.fifoLength === 0, 'the marker pod');

    const before = snap();
    const report = await checkCache({ listerWatcher: http, snapshot: before, pageSize: 3 });
    expect(report).toMatchObject({
      consistency: 'exact',
      inSync: false,
      cacheResourceVersion: before.resourceVersion,
      listResourceVersion: before.resourceVersion,
      missing: [{ key: `${ns}/ghost`, rv: ghost.metadata.resourceVersion }],
      extra: [{ key: `${ns}/${gone.metadata.name}`, rv: gone.metadata.resourceVersion }],
      stale: [{ key: `${ns}/${changed.metadata.name}`, cacheRv: changed.metadata.resourceVersion, serverRv: updated.metadata.resourceVersion }],
      same: 7,
    });

    // Once the history is compacted past the cache's resourceVersion, the check compares with the newest state and says so.
    sim.api.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'later', namespace: ns }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    sim.faults.compact();
    const latest = await checkCache({ listerWatcher: http, snapshot: before });
    expect(latest.consistency).toBe('latest');
    expect(latest.note).toMatch(/could not list at resourceVersion/);
    expect(latest.missing.map((e) => e.key)).toEqual([`${ns}/ghost`, `${ns}/later`]);
    ac.abort();
    await running;
  });
});
