// Reads over the caches of the informers that already exist: what ctx.get/list return once synced,
// and what `watches` map functions read synchronously (a map runs inside an event handler).
import type { ReadonlyIndexer } from '../informer/indexer.js';
import type { KubeObject } from '../informer/types.js';
import { objectKey, type ResourceInfo } from './catalog.js';
import type { SharedInformerFactory } from './informer-factory.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { CacheReader, ListQuery, ObjectRef } from './types.js';

/** Deep copies of the cached object and of the matching objects, as controller-runtime's cached client hands out. */
export function getCached(info: ResourceInfo, indexer: ReadonlyIndexer, ref: ObjectRef): KubeObject | undefined {
  const obj = indexer.getByKey(objectKey(info.namespaced ? ref.namespace : undefined, ref.name));
  return obj === undefined ? undefined : structuredClone(obj);
}

export function listCached(info: ResourceInfo, indexer: ReadonlyIndexer, query: ListQuery = {}): KubeObject[] {
  let items: KubeObject[];
  if (query.index) items = indexer.byIndex(query.index.name, query.index.value);
  else if (query.namespace && info.namespaced) items = indexer.byIndex('namespace', query.namespace);
  else items = indexer.list();
  if (query.index && query.namespace && info.namespaced) items = items.filter((o) => o.metadata?.namespace === query.namespace);
  if (query.labelSelector) {
    const matches = parseLabelSelector(query.labelSelector);
    items = items.filter((o) => matches(o.metadata?.labels));
  }
  if (query.fieldSelector) items = items.filter(parseFieldSelector(query.fieldSelector));
  return items.map((o) => structuredClone(o));
}

/** A CacheReader over the factory's informers, naming resources as kubectl does (deployments, deployments.apps, Deployment). */
export function syncCacheReader(factory: SharedInformerFactory): CacheReader {
  const find = (resource: string) => {
    const r = resource.toLowerCase();
    const e = factory.informers.find(({ info }) => info.name === r || info.resource === r || info.kind.toLowerCase() === r);
    if (!e) throw new Error(`cache: "${resource}" is not watched by this controller (a map function reads only its for, owns and watches resources)`);
    return e;
  };
  return {
    get: <T extends KubeObject>(resource: string, ref: ObjectRef) => {
      const { info, informer } = find(resource);
      return getCached(info, informer.getIndexer(), ref) as T | undefined;
    },
    list: <T extends KubeObject>(resource: string, query?: ListQuery) => {
      const { info, informer } = find(resource);
      return listCached(info, informer.getIndexer(), query) as T[];
    },
  };
}
