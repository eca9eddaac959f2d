// What a controller's cached reads return (ctx.get/list once synced, and a `watches` map's synchronous
// cache): namespaces, indices, selectors, deep copies, and the resource names kubectl accepts.
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/informer/indexer.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ResourceInfo } from '../../src/reconcile/catalog.js';
import { getCached, listCached, syncCacheReader } from '../../src/reconcile/cache-reader.js';
import type { SharedInformerFactory } from '../../src/reconcile/informer-factory.js';

const configmaps: ResourceInfo = { name: 'configmaps', group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const deployments: ResourceInfo = { name: 'deployments.apps', group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
const nodes: ResourceInfo = { name: 'nodes', group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

const cm = (namespace: string, name: string, labels: Record<string, string> = {}, app = 'web'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels }, data: { app } }) as KubeObject;
const names = (objs: KubeObject[]) => objs.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();

function cmIndexer(): Indexer {
  const idx = new Indexer({ indexers: { app: (o) => [String((o as { data?: { app?: string } }).data?.app)] } });
  idx.add(cm('a', 'one', { tier: 'front' }));
  idx.add(cm('a', 'two', { tier: 'back' }, 'db'));
  idx.add(cm('b', 'three', { tier: 'front' }));
  idx.add(cm('b', 'four', {}, 'db'));
  return idx;
}

function nodeIndexer(): Indexer {
  const idx = new Indexer();
  idx.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'x' } } } as KubeObject);
  idx.add({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: { zone: 'y' } } } as KubeObject);
  return idx;
}

describe('getCached', () => {
  it('finds a namespaced object by namespace and name, a cluster-scoped one by name alone, as a deep copy', () => {
    const idx = cmIndexer();
    const got = getCached(configmaps, idx, { namespace: 'b', name: 'three' });
    expect(got?.metadata.name).toBe('three');
    got!.metadata.labels!.tier = 'changed';
    expect(idx.getByKey('b/three')?.metadata.labels?.tier).toBe('front');
    expect(getCached(configmaps, idx, { namespace: 'a', name: 'three' })).toBeUndefined();
    expect(getCached(nodes, nodeIndexer(), { namespace: 'ignored', name: 'n2' })?.metadata.name).toBe('n2');
  });
});

describe('listCached', () => {
  it('lists one namespace, or all of them without one', () => {
    expect(names(listCached(configmaps, cmIndexer(), { namespace: 'a' }))).toEqual(['a/one', 'a/two']);
    expect(names(listCached(configmaps, cmIndexer()))).toEqual(['a/one', 'a/two', 'b/four', 'b/three']);
  });

  it('ignores a namespace for a cluster-scoped resource', () => {
    expect(names(listCached(nodes, nodeIndexer(), { namespace: 'a' }))).toEqual(['/n1', '/n2']);
    expect(names(listCached(nodes, nodeIndexer(), {}))).toEqual(['/n1', '/n2']);
  });

  it('reads an index, within the namespace when one is given', () => {
    expect(names(listCached(configmaps, cmIndexer(), { index: { name: 'app', value: 'db' } }))).toEqual(['a/two', 'b/four']);
    expect(names(listCached(configmaps, cmIndexer(), { index: { name: 'app', value: 'db' }, namespace: 'b' }))).toEqual(['b/four']);
  });

  it('filters by label and field selectors', () => {
    expect(names(listCached(configmaps, cmIndexer(), { labelSelector: 'tier=front' }))).toEqual(['a/one', 'b/three']);
    expect(names(listCached(configmaps, cmIndexer(), { namespace: 'a', labelSelector: 'tier!=front' }))).toEqual(['a/two']);
    expect(names(listCached(configmaps, cmIndexer(), { fieldSelector: 'metadata.name=four' }))).toEqual(['b/four']);
    expect(names(listCached(nodes, nodeIndexer(), { labelSelector: 'zone=y' }))).toEqual(['/n2']);
  });

  it('hands out deep copies', () => {
    const idx = cmIndexer();
    const [first] = listCached(configmaps, idx, { namespace: 'a', fieldSelector: 'metadata.name=one' });
    first.metadata.labels!.tier = 'changed';
    expect(idx.getByKey('a/one')?.metadata.labels?.tier).toBe('front');
  });
});

describe('syncCacheReader', () => {
  const factory = () => {
    const byInfo = [
      { info: configmaps, idx: cmIndexer() },
      { info: deployments, idx: new Indexer() },
      { info: nodes, idx: nodeIndexer() },
    ];
    byInfo[1].idx.add({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'a', name: 'web' } } as KubeObject);
    return { informers: byInfo.map(({ info, idx }) => ({ info, informer: { getIndexer: () => idx } })) } as unknown as SharedInformerFactory;
  };

  it("names resources as kubectl does: the catalog name, the plural, the kind in any case", () => {
    const cache = syncCacheReader(factory());
    for (const r of ['deployments.apps', 'deployments', 'Deployment', 'DEPLOYMENTS']) expect(cache.get(r, { namespace: 'a', name: 'web' })?.metadata.name).toBe('web');
    expect(cache.get('nodes', { name: 'n1' })?.metadata.name).toBe('n1');
    expect(names(cache.list('Node', { labelSelector: 'zone=x' }))).toEqual(['/n1']);
    expect(names(cache.list('configmaps', { namespace: 'b' }))).toEqual(['b/four', 'b/three']);
    expect(cache.list('deployments')).toHaveLength(1);
  });

  it('refuses a resource the controller does not watch, in one line', () => {
    const cache = syncCacheReader(factory());
    expect(() => cache.get('secrets', { namespace: 'a', name: 'x' })).toThrow(
      'cache: "secrets" is not watched by this controller (a map function reads only its for, owns and watches resources)',
    );
    expect(() => cache.list('pods')).toThrow(/^cache: "pods" is not watched/);
  });
});
