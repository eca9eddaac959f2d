// Fetches one collection twice — by paged LIST and by watch-list (sendInitialEvents) — and measures
// time, bytes, requests and peak heap of each, the trade-off KEP-3157 (watch-list) is about.
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { KubeObject, ListerWatcher } from '../../informer/types.js';
import { pagedList } from '../lister-watchers/paged-list.js';
import { collectGarbage } from './retained-heap.js';

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

export interface FetchMeasurement {
  method: 'paged-list' | 'watch-list';
  requests: number;
  items: number;
  bytes: number;
  ms: number;
  /** Highest heap use seen while fetching, above the heap use just before it started. */
  peakHeapBytes: number;
  resourceVersion: string;
}

/** Runs both fetches one after the other (a GC before each when one can be had) and returns both measurements. */
export async function compareWatchList(lw: ListerWatcher, opts: { pageSize: number; signal?: AbortSignal }): Promise<FetchMeasurement[]> {
  const list = await measure('paged-list', async () => {
    const r = await pagedList(lw, { pageSize: opts.pageSize, signal: opts.signal, onExpired: 'restart' });
    return { items: r.items, requests: r.pages.length, bytes: r.bytes, resourceVersion: r.resourceVersion };
  });
  const watch = await measure('watch-list', () => watchList(lw, opts.signal));
  return [list, watch];
}

/** The initial events of a watch-list: everything up to the initial-events-end BOOKMARK. */
async function watchList(lw: ListerWatcher, signal?: AbortSignal): Promise<{ items: KubeObject[]; requests: number; bytes: number; resourceVersion: string }> {
  // As client-go's reflector asks for it: RV unset, NotOlderThan, bookmarks on.
  const stream = await lw.watch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, timeoutSeconds: 300 }, signal);
  const byKey = new Map<string, KubeObject>();
  let bytes = 0;
  try {
    for await (const ev of stream) {
      bytes += ev.bytes ?? 0;
      const meta = ev.object.metadata ?? {};
      if (ev.type === 'BOOKMARK') {
        if (meta.annotations?.[INITIAL_EVENTS_END] === 'true') return { items: [...byKey.values()], requests: 1, bytes, resourceVersion: meta.resourceVersion ?? '' };
        continue;
      }
      if (ev.type === 'ERROR') throw new Error(`the watch-list failed: ${(ev.object as { message?: string }).message ?? 'ERROR event'}`);
      const key = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
      if (ev.type === 'DELETED') byKey.delete(key);
      else byKey.set(key, ev.object);
    }
  } finally {
    stream.close();
  }
  throw new Error('the server ended the watch-list before its initial-events-end bookmark: it may not support sendInitialEvents (WatchList feature)');
}

async function measure(method: FetchMeasurement['method'], fetch: () => Promise<{ items: KubeObject[]; requests: number; bytes: number; resourceVersion: string }>): Promise<FetchMeasurement> {
  collectGarbage();
  const base = getHeapStatistics().used_heap_size;
  let peak = base;
  const sample = () => {
    const used = getHeapStatistics().used_heap_size;
    if (used > peak) peak = used;
  };
  const timer = setInterval(sample, 1);
  const t0 = performance.now();
  try {
    const r = await fetch();
    const ms = performance.now() - t0;
    sample();
    return { method, requests: r.requests, items: r.items.length, bytes: r.bytes, ms, peakHeapBytes: Math.max(0, peak - base), resourceVersion: r.resourceVersion };
  } finally {
    clearInterval(timer);
  }
}
