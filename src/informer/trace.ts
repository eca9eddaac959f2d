// The one trace vocabulary: every stage emits typed records into a Tracer; renderers subscribe.
// Producers guard with `if (tracer.enabled)` so that, with no subscriber, no record is even built. On the per-event
// path they ask `tracer.shouldEmit(stage, op)` instead: a record that no listener wants whole (a view that hides it,
// say) is then not built either, only tallied for the listeners that count what they skip (the exit summary).
import type { WatchEventType } from './types.js';
import { CauseLinker } from './trace-causes.js';

export const STAGES = ['http', 'reflector', 'watch', 'fifo', 'indexer', 'handler', 'workqueue', 'reconcile', 'endpoint'] as const;
export type Stage = (typeof STAGES)[number];
/** The informer pipeline's own stages, in order (the live view's pipeline row): every stage but the wire endpoint's. */
export const PIPELINE_STAGES: readonly Stage[] = STAGES.filter((s) => s !== 'endpoint');

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
 *              re-triggering), map-error (a watches map function threw), converged / pending (--once),
 *              clamped (a requeueAfter past Node's timer range was cut to it; once per controller)
 * - endpoint:  (reconcile --exec, proxy, sim --mirror: what a controller process did on the wire, each record naming its
 *              `client`) http, list, watch (event start | each delivered event with `type` | close with `reason`),
 *              write, relist, stale-write, loop, stall, fault, conflict (an upstream change the fork kept out)
 *
 * Every record a listener receives carries `id` (unique in the run) and, when an earlier record caused it, `cause`
 * (ids) and `echoOf` (the write whose stored result it delivers): see trace-causes.ts.
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

/**
 * What a listener needs: the records it wants whole (a pure function of stage and op, asked once per pair), and
 * where to count those a producer then did not build. A listener may still receive records it did not want,
 * when another listener wants them.
 */
export interface TraceInterest {
  wants(stage: Stage, op: string): boolean;
  skipped(stage: Stage, op: string): void;
}

interface Subscription {
  listener: TraceListener;
  interest?: TraceInterest;
}

export class Tracer {
  private subscriptions: Subscription[] = [];
  private listeners: TraceListener[] = [];
  /** Stage → op → whether some listener wants the record whole; cleared when the listeners change. */
  private wanted = new Map<Stage, Map<string, boolean>>();

  /** True when at least one listener subscribed; producers check it before building a record. */
  get enabled(): boolean {
    return this.listeners.length > 0;
  }

  /** Without an interest, the listener wants every record. */
  subscribe(listener: TraceListener, interest?: TraceInterest): () => void {
    const subscription: Subscription = { listener, interest };
    this.setSubscriptions([...this.subscriptions, subscription]);
    return () => this.setSubscriptions(this.subscriptions.filter((s) => s !== subscription));
  }

  /**
   * For producers, in place of `enabled`: true when some listener wants this record whole, so build and emit it.
   * False when nobody listens, or when every listener declined it: the record then counts as skipped for them.
   */
  shouldEmit(stage: Stage, op: string): boolean {
    const wanted = this.wants(stage, op);
    if (!wanted && this.listeners.length > 0) this.skip(stage, op);
    return wanted;
  }

  /** Whether some listener wants this record whole, asked ahead (nothing is counted as skipped). */
  wants(stage: Stage, op: string): boolean {
    if (this.listeners.length === 0) return false;
    let ops = this.wanted.get(stage);
    if (ops === undefined) this.wanted.set(stage, (ops = new Map()));
    let wanted = ops.get(op);
    if (wanted === undefined) ops.set(op, (wanted = this.subscriptions.some((s) => s.interest === undefined || s.interest.wants(stage, op))));
    return wanted;
  }

  /** Made on the first record a listener receives: with nobody listening, no id is counted and no cause kept. */
  private causes: CauseLinker | undefined;

  emit(record: TraceRecord): void {
    const listeners = this.listeners;
    if (listeners.length === 0) return;
    (this.causes ??= new CauseLinker()).link(record);
    for (let i = 0; i < listeners.length; i++) listeners[i](record);
  }

  /** A record nobody wanted was not built: the listeners that count skipped records count it. */
  protected skip(stage: Stage, op: string): void {
    for (const s of this.subscriptions) s.interest?.skipped(stage, op);
  }

  private setSubscriptions(subscriptions: Subscription[]): void {
    this.subscriptions = subscriptions;
    this.listeners = subscriptions.map((s) => s.listener);
    this.wanted = new Map();
  }
}

/**
 * A tracer that hands its records on to `target`, changed on the way by a subclass's `emit`. It asks the target
 * whether to build a record, so it costs nothing while nobody listens there.
 */
export abstract class ForwardingTracer extends Tracer {
  constructor(protected readonly target: Tracer) {
    super();
  }

  override get enabled(): boolean {
    return this.target.enabled;
  }

  override shouldEmit(stage: Stage, op: string): boolean {
    return this.target.shouldEmit(stage, op);
  }

  override wants(stage: Stage, op: string): boolean {
    return this.target.wants(stage, op);
  }
}

/** A tracer for one resource of several: each record gains `resource` on its way to `target`. */
export class ResourceTracer extends ForwardingTracer {
  constructor(
    target: Tracer,
    private readonly resource: string,
  ) {
    super(target);
  }

  override emit(record: TraceRecord): void {
    this.target.emit({ ...record, resource: this.resource });
  }
}

/** A tracer nobody listens to, for callers that do not trace. */
export const noTracer = new Tracer();
