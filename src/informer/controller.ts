// The reconcile runner: informer events → rate-limited workqueue → N workers calling a reconcile function.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { ObjectOrTombstone } from './deltas.js';
import { DeletedFinalStateUnknown, deletionHandlingKey, resourceVersionOf } from './deltas.js';
import type { ReadonlyIndexer } from './indexer.js';
import type { HandlerRegistration, SharedIndexInformer } from './shared-informer.js';
import type { Tracer } from './trace.js';
import { noTracer } from './trace.js';
import type { KubeObject } from './types.js';
import type { QueueReason } from './workqueue/queue.js';
import type { RateLimiter } from './workqueue/rate-limiters.js';
import { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';
import { PriorityQueue } from './workqueue/priority-queue.js';
import { traceTimeStale } from './trace-time.js';

export interface ReconcileRequest {
  key: string;
  /** Why the key runs: the events merged into it since it last ran (newest last). */
  reasons: readonly QueueReason[];
  /** Reasons beyond the queue's per-key limit that were dropped. */
  reasonsDropped: number;
  /** Read access to the informer's cache. */
  cache: ReadonlyIndexer;
  /** Failures recorded for this key so far (0 on a first attempt). */
  requeues: number;
  /** Aborted when the runner stops; in-flight reconciles are still awaited. */
  signal: AbortSignal;
}

/**
 * requeueAfterMs > 0: run again after that long (backoff reset); requeue: run again with rate-limited backoff.
 * `error`: the run failed and an error policy decided what follows (kube-rs's error_policy): requeueAfterMs,
 * or nothing to wait for the next change — instead of the workqueue's per-key backoff a thrown error gets.
 */
export type ReconcileResult = { requeueAfterMs?: number; requeue?: boolean; error?: unknown } | void;

export type ReconcileFunc = (req: ReconcileRequest) => Promise<ReconcileResult>;

export interface ControllerOptions {
  /** Shown in trace records. */
  name?: string;
  reconcile: ReconcileFunc;
  /** The cache handed to reconcile; default: the watched informer's indexer. */
  cache?: ReadonlyIndexer;
  /** Workers, i.e. the most reconciles running at once (never two for one key). Default 1. */
  workers?: number;
  /** Default: defaultControllerRateLimiter(clock). */
  rateLimiter?: RateLimiter<string>;
  clock?: Clock;
  tracer?: Tracer;
  /** Wait for the watched informers to sync before starting workers (default true). */
  waitForSync?: boolean;
  /** Reasons the workqueue keeps per key between two runs (the queue's default otherwise). */
  maxReasonsPerKey?: number;
  /** Put `controller` on the workqueue's records too (kwatch reconcile names its controllers everywhere). */
  traceController?: boolean;
  /** More fields for a run's `error` record (where in the user's code it was thrown, its stack). */
  errorDetail?: (err: unknown) => Record<string, unknown> | undefined;
  /**
   * The workqueue: 'fifo' (client-go's, the default here) or 'priority' (controller-runtime 0.23's default:
   * highest priority first; a requeue keeps the priority its run was handed out with, as its reconcileHandler does).
   */
  queue?: 'priority' | 'fifo';
  /** With the priority queue: how long a ready key may be passed over before it is `starved`. */
  starvedAfterMs?: number;
  /**
   * Asked before each run once the controller is stopping: false leaves the keys still queued unrun (a limit on
   * runs was reached). By default a stopping controller drains its queue, as client-go's workqueue does.
   */
  drainOnStop?: () => boolean;
}

export interface ControllerStats {
  reconciles: number;
  successes: number;
  errors: number;
  requeueAfter: number;
  requeues: number;
  /** Reconciles running now. */
  active: number;
  /** The most that ever ran at once. */
  maxActive: number;
}

/**
 * Semantics (controller-runtime's, over client-go's workqueue): an error → addRateLimited (backoff
 * grows per key); `requeue: true` → addRateLimited; `requeueAfterMs` → forget + addAfter; success →
 * forget. done() always follows, so a key added while it ran is reconciled again afterwards.
 */
export class Controller {
  readonly name: string;
  readonly queue: RateLimitingQueue<string>;
  readonly stats: ControllerStats = { reconciles: 0, successes: 0, errors: 0, requeueAfter: 0, requeues: 0, active: 0, maxActive: 0 };
  private readonly options: ControllerOptions;
  private readonly clock: Clock;
  private readonly tracer: Tracer;
  private cache?: ReadonlyIndexer;
  private readonly informers: SharedIndexInformer[] = [];
  private readonly registrations: HandlerRegistration[] = [];

  constructor(options: ControllerOptions) {
    this.options = options;
    this.name = options.name ?? 'controller';
    this.clock = options.clock ?? realClock;
    this.tracer = options.tracer ?? noTracer;
    this.cache = options.cache;
    const queueOptions = { name: this.name, clock: this.clock, tracer: this.tracer, rateLimiter: options.rateLimiter, maxReasonsPerItem: options.maxReasonsPerKey, controller: options.traceController ? this.name : undefined };
    this.queue = options.queue === 'priority' ? new PriorityQueue<string>({ ...queueOptions, starvedAfterMs: options.starvedAfterMs }) : new RateLimitingQueue<string>(queueOptions);
  }

  /**
   * Enqueues the key of every object the informer adds, updates or deletes, with the event as reason.
   * `mapKey` may redirect an event to another key (e.g. the owner), or drop it by returning undefined.
   */
  watch(informer: SharedIndexInformer, options: { mapKey?: (obj: ObjectOrTombstone) => string | undefined; resyncPeriodMs?: number } = {}): HandlerRegistration {
    const mapKey = options.mapKey ?? deletionHandlingKey;
    const enqueue = (obj: ObjectOrTombstone, reason: QueueReason) => {
      const key = mapKey(obj);
      if (key !== undefined) this.queue.add(key, reason);
    };
    const reg = informer.addEventHandler(
      {
        onAdd: (obj: KubeObject, isInInitialList: boolean) => enqueue(obj, { op: 'OnAdd', rv: obj.metadata?.resourceVersion, isInInitialList, time: this.clock.now() }),
        onUpdate: (old: KubeObject, obj: KubeObject) =>
          enqueue(obj, { op: 'OnUpdate', rv: obj.metadata?.resourceVersion, oldRv: old.metadata?.resourceVersion, sync: old.metadata?.resourceVersion === obj.metadata?.resourceVersion, time: this.clock.now() }),
        onDelete: (obj: ObjectOrTombstone) => enqueue(obj, { op: 'OnDelete', rv: resourceVersionOf(obj), tombstone: obj instanceof DeletedFinalStateUnknown, time: this.clock.now() }),
      },
      { name: this.name, resyncPeriodMs: options.resyncPeriodMs },
    );
    this.track(informer, reg);
    this.cache ??= informer.getIndexer();
    return reg;
  }

  /**
   * Adds an informer whose events the caller routes into the queue itself (kwatch reconcile's triggers):
   * run() waits for its sync, and the registration is removed when the controller stops.
   */
  track(informer: SharedIndexInformer, registration?: HandlerRegistration): void {
    if (!this.informers.includes(informer)) this.informers.push(informer);
    if (registration) this.registrations.push(registration);
  }

  /** Enqueues a key by hand. */
  enqueue(key: string, reason: QueueReason = { op: 'enqueue' }): void {
    this.queue.add(key, reason);
  }

  /** No key waiting and none being reconciled (keys waiting for a delayed requeue do not count). */
  isIdle(): boolean {
    return this.queue.len() === 0 && this.queue.processingCount() === 0 && this.stats.active === 0;
  }

  /**
   * Starts the workers (after the watched informers synced, unless waitForSync is false) and runs until
   * the signal aborts; then stops taking new keys, lets queued keys drain and in-flight reconciles finish.
   */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (this.options.waitForSync ?? true) {
        try {
          await Promise.all(this.informers.map((i) => i.whenSynced(signal)));
        } catch {
          // Aborted before sync: drain what is queued anyway.
        }
      }
      const workers = Math.max(1, this.options.workers ?? 1);
      await Promise.all(Array.from({ length: workers }, () => this.worker(signal)));
      await this.queue.shutDownWithDrain();
    } finally {
      signal.removeEventListener('abort', onAbort);
      for (const r of this.registrations) r.remove();
    }
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      // A key already queued is taken at once; only an empty queue costs a wait.
      const next = this.queue.tryGet() ?? (await this.queue.get());
      if (next.shutdown) return;
      const key = next.item;
      if (signal.aborted && this.options.drainOnStop?.() === false) {
        this.queue.done(key);
        continue;
      }
      // Durations only go into reconcile records: skip the clock (a system call) when no listener wants them.
      const start = this.timesRuns() ? this.clock.now() : NOT_TIMED;
      // The priority the key was handed out with (priority queue only): its requeues keep it.
      const priority = this.queue instanceof PriorityQueue ? this.queue.priorityOf(key) : undefined;
      const requeues = this.startRun(key, next.reasons, start, priority);
      // The reconcile's own promise is the one awaited per key, here rather than in an async function around
      // it (which cost a promise more and two more turns of the microtask queue for every key).
      try {
        const result = await this.options.reconcile({ key, reasons: next.reasons, reasonsDropped: next.reasonsDropped, cache: this.cache ?? EMPTY_CACHE, requeues, signal });
        traceTimeStale(); // the reconcile may have taken long: the records after it read the clock again
        this.finishRun(key, start, result, priority);
      } catch (err) {
        this.failRun(key, start, requeues, err, priority);
      } finally {
        this.stats.active--;
        this.queue.done(key);
      }
    }
  }

  /** Whether a run's start and duration go into a record someone wants. */
  private timesRuns(): boolean {
    const t = this.tracer;
    return t.wants('reconcile', 'start') || t.wants('reconcile', 'success') || t.wants('reconcile', 'error') || t.wants('reconcile', 'requeue-after');
  }

  /** Counts a run starting and traces it; returns the key's requeues so far. */
  private startRun(key: string, reasons: QueueReason[], start: number, priority: number | undefined): number {
    const requeues = this.queue.numRequeues(key);
    this.stats.reconciles++;
    this.stats.active++;
    if (this.stats.active > this.stats.maxActive) this.stats.maxActive = this.stats.active;
    if (this.tracer.shouldEmit('reconcile', 'start')) this.tracer.emit({ time: start, stage: 'reconcile', op: 'start', key, controller: this.name, reasons, requeues, ...(priority !== undefined ? { priority } : {}) });
    return requeues;
  }

  /** What follows a run that returned: forget, requeue after a delay, or rate-limited requeue. */
  private finishRun(key: string, start: number, result: ReconcileResult, priority: number | undefined): void {
    const p = priority !== undefined ? { priority } : {};
    const durationMs = start !== NOT_TIMED ? this.clock.now() - start : 0;
    if (result && result.error !== undefined) {
      // The error policy decided: requeue after its delay, or wait for the next change.
      this.stats.errors++;
      const after = result.requeueAfterMs !== undefined && result.requeueAfterMs > 0 ? result.requeueAfterMs : undefined;
      if (this.tracer.shouldEmit('reconcile', 'error')) this.tracer.emit({ time: this.clock.now(), stage: 'reconcile', op: 'error', key, controller: this.name, durationMs, error: errorMessage(result.error), ...this.options.errorDetail?.(result.error), policy: after !== undefined ? 'requeue-after' : 'await-change', requeueAfterMs: after });
      this.queue.forget(key);
      if (after !== undefined) this.queue.addAfter(key, after, { op: 'error-policy', reason: 'error policy requested retry', kubeRs: 'error policy requested retry', time: this.clock.now(), afterMs: after, ...p });
    } else if (result && result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
      this.stats.requeueAfter++;
      if (this.tracer.shouldEmit('reconcile', 'requeue-after')) this.tracer.emit({ time: this.clock.now(), stage: 'reconcile', op: 'requeue-after', key, controller: this.name, durationMs, requeueAfterMs: result.requeueAfterMs });
      this.queue.forget(key);
      this.queue.addAfter(key, result.requeueAfterMs, { op: 'requeue-after', reason: 'reconciler requested retry', kubeRs: 'reconciler requested retry', time: this.clock.now(), afterMs: result.requeueAfterMs, ...p });
    } else if (result && result.requeue) {
      this.stats.requeues++;
      if (this.tracer.shouldEmit('reconcile', 'success')) this.tracer.emit({ time: this.clock.now(), stage: 'reconcile', op: 'success', key, controller: this.name, durationMs, requeue: true });
      this.queue.addRateLimited(key, { op: 'requeue', reason: 'reconciler requested retry', kubeRs: 'reconciler requested retry', time: this.clock.now(), ...p });
    } else {
      this.stats.successes++;
      if (this.tracer.shouldEmit('reconcile', 'success')) this.tracer.emit({ time: this.clock.now(), stage: 'reconcile', op: 'success', key, controller: this.name, durationMs });
      this.queue.forget(key);
    }
  }

  /** A run that threw: rate-limited requeue (the workqueue's per-key backoff). */
  private failRun(key: string, start: number, requeues: number, err: unknown, priority: number | undefined): void {
    this.stats.errors++;
    const message = errorMessage(err);
    const tracing = this.tracer.enabled;
    const time = tracing ? this.clock.now() : 0;
    const backoffMs = this.queue.addRateLimited(key, { op: 'error', reason: 'error backoff', kubeRs: 'error policy requested retry', time, error: message, ...(priority !== undefined ? { priority } : {}) });
    if (this.tracer.shouldEmit('reconcile', 'error')) this.tracer.emit({ time, stage: 'reconcile', op: 'error', key, controller: this.name, durationMs: start !== NOT_TIMED ? time - start : 0, error: message, ...this.options.errorDetail?.(err), requeues: requeues + 1, backoffMs });
  }
}

/** The start of a run nobody traced (its duration is never needed). */
const NOT_TIMED = -1;

/** Builds a Controller watching one informer and runs it until the signal aborts. */
export function runReconciler(informer: SharedIndexInformer, options: ControllerOptions, signal: AbortSignal): { controller: Controller; done: Promise<void> } {
  const controller = new Controller(options);
  controller.watch(informer);
  return { controller, done: controller.run(signal) };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const EMPTY_CACHE: ReadonlyIndexer = {
  getByKey: () => undefined,
  get: () => undefined,
  list: () => [],
  listKeys: () => [],
  size: 0,
  index: () => [],
  byIndex: () => [],
  indexKeys: () => [],
  listIndexFuncValues: () => [],
  getIndexers: () => ({}),
};
