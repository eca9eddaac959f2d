// Is my cache lying? Compares an informer's cache with a LIST from the server: objects missing, extra or stale in the cache.
import { StatusError } from '../../informer/errors.js';
import { listPages } from '../../informer/pager.js';
import type { KubeObject, ListerWatcher } from '../../informer/types.js';
import { metaNamespaceKey } from '../../informer/types.js';

export interface CacheEntry {
  key: string;
  rv: string;
}

export interface StaleEntry {
  key: string;
  cacheRv: string;
  serverRv: string;
}

export interface CacheDiff {
  /** On the server, not in the cache (a lost ADDED). */
  missing: CacheEntry[];
  /** In the cache, gone from the server (a lost DELETED). */
  extra: CacheEntry[];
  /** In both, at different resourceVersions (a lost MODIFIED). */
  stale: StaleEntry[];
  /** Objects that match exactly. */
  same: number;
}

/**
 * The check's result (the JSON of `kwatch index --check`). `consistency` says what the LIST was:
 * `exact` — at the cache's own resourceVersion (resourceVersionMatch=Exact), so every difference is a
 * lie of the cache; `latest` — the newest state (the server could not serve that resourceVersion), so
 * changes made after the cache's resourceVersion show up as differences too.
 */
export interface CacheCheckReport extends CacheDiff {
  consistency: 'exact' | 'latest';
  cacheResourceVersion: string;
  listResourceVersion: string;
  cached: number;
  listed: number;
  inSync: boolean;
  /** Why the check fell back to `latest`. */
  note?: string;
}

/** The cache's content at one resourceVersion: take it synchronously, when the informer's FIFO is empty. */
export interface CacheSnapshot {
  objects: readonly KubeObject[];
  resourceVersion: string;
}

/** Compares two sets of objects by key and resourceVersion; entries come sorted by key. */
export function compareCache(cache: readonly KubeObject[], server: readonly KubeObject[]): CacheDiff {
  const cached = new Map<string, string>();
  for (const o of cache) cached.set(metaNamespaceKey(o), o.metadata?.resourceVersion ?? '');
  const diff: CacheDiff = { missing: [], extra: [], stale: [], same: 0 };
  const seen = new Set<string>();
  for (const o of server) {
    const key = metaNamespaceKey(o);
    const rv = o.metadata?.resourceVersion ?? '';
    seen.add(key);
    const cacheRv = cached.get(key);
    if (cacheRv === undefined) diff.missing.push({ key, rv });
    else if (cacheRv !== rv) diff.stale.push({ key, cacheRv, serverRv: rv });
    else diff.same++;
  }
  for (const [key, rv] of cached) if (!seen.has(key)) diff.extra.push({ key, rv });
  const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  diff.missing.sort(byKey);
  diff.extra.sort(byKey);
  diff.stale.sort(byKey);
  return diff;
}

export interface CheckCacheOptions {
  /** The same ListerWatcher (resource, namespace, selectors) the informer lists with. */
  listerWatcher: ListerWatcher;
  snapshot: CacheSnapshot;
  pageSize?: number;
  signal?: AbortSignal;
}

/**
 * LISTs at the snapshot's resourceVersion with resourceVersionMatch=Exact (what the server held when
 * the cache was at that version) and compares. When the server cannot serve that version (410 Expired,
 * or a server without Exact support) it compares with the newest state instead and says so.
 */
export async function checkCache(opts: CheckCacheOptions): Promise<CacheCheckReport> {
  const { snapshot } = opts;
  let consistency: CacheCheckReport['consistency'] = 'exact';
  let note: string | undefined;
  let listed;
  try {
    if (!snapshot.resourceVersion) throw new NoResourceVersion();
    listed = await listPages(opts.listerWatcher, { resourceVersion: snapshot.resourceVersion, resourceVersionMatch: 'Exact' }, { pageSize: opts.pageSize, signal: opts.signal });
  } catch (err) {
    if (!(err instanceof NoResourceVersion) && !(err instanceof StatusError && [400, 410, 422].includes(err.httpCode))) throw err;
    consistency = 'latest';
    note = err instanceof NoResourceVersion ? 'the cache has no resourceVersion' : `the server could not list at resourceVersion ${snapshot.resourceVersion}: ${err.message}`;
    listed = await listPages(opts.listerWatcher, {}, { pageSize: opts.pageSize, signal: opts.signal });
  }
  const diff = compareCache(snapshot.objects, listed.items);
  return {
    consistency,
    cacheResourceVersion: snapshot.resourceVersion,
    listResourceVersion: listed.resourceVersion,
    cached: snapshot.objects.length,
    listed: listed.items.length,
    inSync: diff.missing.length === 0 && diff.extra.length === 0 && diff.stale.length === 0,
    ...diff,
    ...(note ? { note } : {}),
  };
}

class NoResourceVersion extends Error {}
