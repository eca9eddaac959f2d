// The informer behind `kwatch index`: one resource over HTTP with the `--by` indexers, synced, then kept running or stopped.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Indexers, ReadonlyIndexer } from '../../informer/indexer.js';
import { SharedIndexInformer } from '../../informer/shared-informer.js';
import type { Tracer, TraceRecord } from '../../informer/trace.js';
import type { CacheSnapshot } from './cache-check.js';
import type { Connection } from '../http/connection.js';
import { DEFAULT_FIRST_CONTACT_MS, FirstContact, type FirstContactOptions } from '../http/first-contact.js';
import { FirstContactListerWatcher } from '../lister-watchers/first-contact-lister-watcher.js';
import { HttpListerWatcher, type ListWatchTarget } from '../lister-watchers/http-lister-watcher.js';

export interface IndexInformerOptions {
  conn: Connection;
  target: ListWatchTarget;
  /** Shown in trace records, e.g. "pods". */
  name: string;
  expectedKind?: string;
  indexers: Indexers;
  tracer: Tracer;
  /** Sync with a watch-list (sendInitialEvents), falling back to LIST+WATCH when refused (client-go 1.35's default). */
  useWatchList?: boolean;
  /** A watch-list without its initial-events-end bookmark this long is a `no-initial-events-end` record (0: never). */
  initialEventsEndTimeoutMs?: number;
  /** …and then LIST+WATCH instead (--fallback). */
  fallbackWithoutInitialEventsEnd?: boolean;
  pageSize?: number;
  /** Stops the informer. */
  signal: AbortSignal;
  /** The first LIST's deadline and retry notices (default: 30s, silent). */
  firstContact?: FirstContactOptions;
}

export interface IndexInformer {
  informer: SharedIndexInformer;
  listerWatcher: HttpListerWatcher;
  store: ReadonlyIndexer;
  /**
   * Resolves once the initial list is in the cache. Rejects at once when the first contact fails for good
   * (a 4xx, a malformed answer, a server still failing at the first-contact deadline), when the informer
   * fails or the signal aborts first, or after `timeoutMs` (with the last list error the reflector reported).
   */
  synced(opts: { timeoutMs: number; onProgress?: (listed: number) => void; onNotice?: (line: string) => void }): Promise<void>;
  /** Settles when the informer stopped (rejects when it gave up). */
  readonly done: Promise<void>;
  /** The cache and the resourceVersion it reflects, taken when the FIFO is empty (waits up to `maxWaitMs` for that). */
  snapshot(maxWaitMs?: number): Promise<CacheSnapshot>;
}

export class SyncTimeoutError extends Error {
  constructor(ms: number, lastError: string | undefined) {
    super(`timed out after ${Math.round(ms / 1000)}s waiting for the cache to sync${lastError ? `: ${lastError}` : ''}`);
    this.name = 'SyncTimeoutError';
  }
}

/** Starts the informer at once (run() in the background); stop it with the signal. */
export function startIndexInformer(o: IndexInformerOptions): IndexInformer {
  // The informer strips managedFields (its default transform), so they are never decoded.
  const listerWatcher = new HttpListerWatcher(o.conn, o.target, { omitManagedFields: true });
  // An error no retry can fix before the first sync (403, 401, a bad selector) ends the wait at once with the server's
  // own Status; a failing server is retried visibly until the first-contact deadline.
  const fatal = new AbortController();
  const contact = new FirstContact(o.firstContact ?? { deadlineMs: DEFAULT_FIRST_CONTACT_MS });
  const informer = new SharedIndexInformer({
    listerWatcher: new FirstContactListerWatcher(listerWatcher, contact, o.name, (err) => fatal.abort(err)),
    name: o.name,
    expectedKind: o.expectedKind,
    indexers: o.indexers,
    tracer: o.tracer,
    useWatchList: o.useWatchList,
    initialEventsEndTimeoutMs: o.initialEventsEndTimeoutMs,
    fallbackWithoutInitialEventsEnd: o.fallbackWithoutInitialEventsEnd,
    pageSize: o.pageSize,
  });
  const done = informer.run(o.signal);
  done.catch(() => {}); // observed through synced() or by the caller

  const synced: IndexInformer['synced'] = async ({ timeoutMs, onProgress, onNotice }) => {
    let lastError: string | undefined;
    let listed = 0;
    const unsubscribe = o.tracer.subscribe((r: TraceRecord) => {
      if (r.stage !== 'reflector') return;
      if (r.op === 'list-error' || r.op === 'watch-error' || r.op === 'expired') lastError = String(r.error ?? '');
      else if (r.op === 'list-page' && typeof r.items === 'number') onProgress?.((listed += r.items));
      else if (r.op === 'no-initial-events-end') {
        // client-go 1.35 would wait here silently: the bounded message, and what happens next (--fallback or not).
        lastError = String(r.message);
        onNotice?.(`${lastError}${r.fallback ? '; falling back to LIST+WATCH (--fallback)' : '; still waiting (--fallback lists instead)'}`);
      }
    });
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new SyncTimeoutError(timeoutMs, lastError)), timeoutMs);
    const both = AbortSignal.any([o.signal, timeout.signal, fatal.signal]);
    try {
      await Promise.race([informer.whenSynced(both), done.then(() => Promise.reject(o.signal.reason ?? new Error('the informer stopped before it synced')))]);
    } catch (err) {
      if (fatal.signal.aborted) throw fatal.signal.reason;
      if (timeout.signal.aborted) throw new SyncTimeoutError(timeoutMs, lastError);
      throw err;
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  };

  const snapshot = async (maxWaitMs = 2000): Promise<CacheSnapshot> => {
    const deadline = Date.now() + maxWaitMs;
    // Entries still queued would make the cache lag behind the resourceVersion the reflector reached.
    while (informer.fifoLength > 0 && Date.now() < deadline) await sleep(5);
    const store = informer.getStore();
    return { objects: store.list(), resourceVersion: informer.lastSyncResourceVersion };
  };

  return { informer, listerWatcher, store: informer.getStore(), synced, done, snapshot };
}
