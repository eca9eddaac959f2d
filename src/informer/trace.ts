// The one trace vocabulary: every stage emits typed records into a Tracer; renderers subscribe.
// Producers guard with `if (tracer.enabled)` so that, with no subscriber, no record is even built.
import type { WatchEventType } from './types.js';

export const STAGES = ['http', 'reflector', 'watch', 'fifo', 'indexer', 'handler', 'workqueue', 'reconcile'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * One trace record. `time` is epoch milliseconds from the pipeline's Clock (renderers print it as
 * RFC 3339). Other fields are stage-specific details; keep them JSON-serialisable.
 *
 * Ops by stage (closed vocabularies, extend deliberately):
 * - http:      request, response
 * - reflector: list-start, list-page, listed, list-error, watch-start, watch-close, watch-error,
 *              relist, expired, backoff, retry-after, synced, watchdog, very-short-watch, fallback,
 *              bookmark, initial-events-end, stopped
 * - watch:     ADDED, MODIFIED, DELETED, BOOKMARK, ERROR (with `type` set to the same value)
 * - fifo:      Added, Updated, Deleted, Replaced, Sync (a delta queued), pop, requeue
 * - indexer:   add, update, delete, replace
 * - handler:   OnAdd, OnUpdate, OnDelete, overflow
 * - workqueue: add, dedup, get, done, requeue, forget, add-after, add-rate-limited, shutdown
 * - reconcile: start, success, error, requeue-after; and from kwatch reconcile: held (a trigger for a
 *              key that is running: it runs once after), write (a write the reconciler made, with verb,
 *              target, mode and the server's answer), log (ctx.log), loop (a key its own writes keep
 *              re-triggering), map-error (a watches map function threw), converged / pending (--once)
 */
export interface TraceRecord {
  time: number;
  stage: Stage;
  op: string;
  key?: string;
  rv?: string;
  type?: WatchEventType;
  [detail: string]: unknown;
}

export type TraceListener = (record: TraceRecord) => void;

export class Tracer {
  private listeners: TraceListener[] = [];

  /** True when at least one listener subscribed; producers check it before building a record. */
  get enabled(): boolean {
    return this.listeners.length > 0;
  }

  subscribe(listener: TraceListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(record: TraceRecord): void {
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i](record);
  }
}

/** A tracer nobody listens to, for callers that do not trace. */
export const noTracer = new Tracer();
