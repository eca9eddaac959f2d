// The basic workqueue (client-go util/workqueue queue.go): dedup through dirty/processing, with the reasons each key was queued.
import { AbortableWaiters } from '../abortable-waiters.js';
import { ArrayQueue } from '../array-queue.js';
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import type { TraceRecord, Tracer } from '../trace.js';
import { noTracer } from '../trace.js';
import { traceTime } from '../trace-time.js';
import { QueueOpRecord } from '../trace-records.js';

/** Why a key was queued: a handler event or delta (with its rv), a requeue, … Merged until the key is processed. */
export interface QueueReason {
  /** e.g. OnAdd, OnUpdate, OnDelete, Added, requeue-after, rate-limited. */
  op: string;
  rv?: string;
  oldRv?: string;
  /** Epoch ms when the reason was recorded. */
  time?: number;
  [detail: string]: unknown;
}

export type GetResult<T> =
  | { shutdown: false; item: T; reasons: QueueReason[]; /** reasons beyond maxReasonsPerItem that were dropped (oldest first) */ reasonsDropped: number }
  | { shutdown: true; item: undefined; reasons: QueueReason[]; reasonsDropped: 0 };

export interface QueueOptions<T = string> {
  /** Shown in trace records. */
  name?: string;
  clock?: Clock;
  tracer?: Tracer;
  /** Reasons kept per key between two Gets (the newest win); default 32. */
  maxReasonsPerItem?: number;
  /** The controller this queue feeds, put on every workqueue record as `controller`. */
  controller?: string;
  /** The order ready items are handed out in; default first in, first out (client-go's). */
  readyList?: ReadyList<T>;
}

/** Where ready items wait: the queue pushes an item once (never twice) and shifts the next one to hand out. */
export interface ReadyList<T> {
  push(item: T): void;
  shift(): T | undefined;
  readonly length: number;
}

interface Pending {
  reasons: QueueReason[];
  dropped: number;
}

/**
 * Contracts (client-go's): an item is in `queue` at most once, and only when it is dirty and not
 * processing; `dirty` holds items waiting to be processed (queued, or added again while processing);
 * `processing` holds items handed out by get() and not yet done() — so an item is never handed to two
 * workers at once. `pending` holds the reasons of dirty items, so it has exactly the keys of `dirty`.
 */
export class Queue<T = string> {
  private readonly queue: ReadyList<T>;
  private readonly dirty = new Map<T, Pending>();
  private readonly processing = new Set<T>();
  private readonly getters = new AbortableWaiters<GetResult<T>>();
  private drainWaiters: (() => void)[] = [];
  private shuttingDownFlag = false;
  private draining = false;
  protected readonly clock: Clock;
  protected readonly tracer: Tracer;
  readonly name: string;
  private readonly maxReasons: number;
  protected readonly controller?: string;

  constructor(options: QueueOptions<T> = {}) {
    this.queue = options.readyList ?? new ArrayQueue<T>();
    this.clock = options.clock ?? realClock;
    this.tracer = options.tracer ?? noTracer;
    this.name = options.name ?? 'workqueue';
    this.maxReasons = Math.max(1, options.maxReasonsPerItem ?? 32);
    this.controller = options.controller;
  }

  /** Marks item as needing processing; a no-op (dedup) if it already waits; deferred to done() if it is being processed. Ignored after shutDown. */
  add(item: T, ...reasons: QueueReason[]): void {
    if (this.shuttingDownFlag) return;
    const pending = this.dirty.get(item);
    if (pending !== undefined) {
      this.merge(pending, reasons);
      if (this.tracer.shouldEmit('workqueue', 'dedup')) this.trace('dedup', item, { reason: reasons[0] });
      return;
    }
    const p: Pending = { reasons: [], dropped: 0 };
    this.merge(p, reasons);
    this.dirty.set(item, p);
    if (this.processing.has(item)) {
      if (this.tracer.shouldEmit('workqueue', 'add')) this.trace('add', item, { reason: reasons[0], processing: true });
      return;
    }
    this.queue.push(item);
    if (this.tracer.shouldEmit('workqueue', 'add')) this.trace('add', item, { reason: reasons[0] });
    this.dispatch();
  }

  /** Items waiting in the queue (not those being processed). */
  len(): number {
    return this.queue.length;
  }

  get length(): number {
    return this.len();
  }

  /** Number of items handed out and not yet done. */
  processingCount(): number {
    return this.processing.size;
  }

  isProcessing(item: T): boolean {
    return this.processing.has(item);
  }

  isDirty(item: T): boolean {
    return this.dirty.has(item);
  }

  /**
   * Waits for an item and moves it to processing, with the reasons merged into it since it was last
   * handed out. Resolves `shutdown: true` only once shutting down and empty (queued items still drain).
   */
  get(signal?: AbortSignal): Promise<GetResult<T>> {
    const now = this.tryGet();
    if (now !== undefined) return Promise.resolve(now);
    return this.getters.wait(signal);
  }

  /** get() without waiting: undefined when empty and not shut down. */
  tryGet(): GetResult<T> | undefined {
    if (this.len() > 0) return this.take();
    if (this.shuttingDownFlag) return { shutdown: true, item: undefined, reasons: [], reasonsDropped: 0 };
    return undefined;
  }

  /** Marks item processed; if it was added again meanwhile it is queued again now. */
  done(item: T): void {
    if (!this.processing.delete(item)) return;
    const requeue = this.dirty.has(item);
    if (this.tracer.shouldEmit('workqueue', 'done')) this.trace('done', item, {});
    if (requeue) {
      this.queue.push(item);
      if (this.tracer.shouldEmit('workqueue', 'requeue')) this.trace('requeue', item, {});
      this.dispatch();
    }
    if (this.processing.size === 0 && this.drainWaiters.length > 0) {
      const w = this.drainWaiters;
      this.drainWaiters = [];
      for (const f of w) f();
    }
  }

  /** Stops accepting adds and wakes every waiting get() (they resolve shutdown once the queue is empty). */
  shutDown(): void {
    if (!this.shuttingDownFlag) {
      this.shuttingDownFlag = true;
      if (this.tracer.enabled) this.tracer.emit({ time: this.clock.now(), stage: 'workqueue', op: 'shutdown', queue: this.name, ...(this.controller !== undefined ? { controller: this.controller } : {}), depth: this.len(), processing: this.processing.size, drain: this.draining });
      this.onShutDown();
    }
    this.dispatch();
  }

  /** shutDown(), then resolves once every item handed out was done(). */
  shutDownWithDrain(): Promise<void> {
    this.draining = true;
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.shuttingDownFlag;
  }

  /** Hook for the delaying queue to stop its timer. */
  protected onShutDown(): void {}

  private take(): GetResult<T> {
    const item = this.queue.shift() as T;
    const pending = this.dirty.get(item)!;
    this.dirty.delete(item);
    this.processing.add(item);
    if (this.tracer.shouldEmit('workqueue', 'get')) this.trace('get', item, { reasons: pending.reasons.length + pending.dropped });
    return { shutdown: false, item, reasons: pending.reasons, reasonsDropped: pending.dropped };
  }

  /** Hands queued items to waiting getters; on shutdown with an empty queue, releases them all. */
  private dispatch(): void {
    while (this.getters.size > 0 && this.len() > 0) this.getters.resolveFirst(this.take());
    if (this.shuttingDownFlag && this.len() === 0) this.getters.resolveAll({ shutdown: true, item: undefined, reasons: [], reasonsDropped: 0 });
  }

  private merge(p: Pending, reasons: QueueReason[]): void {
    for (const r of reasons) {
      p.reasons.push(r);
      if (p.reasons.length > this.maxReasons) {
        p.reasons.shift();
        p.dropped++;
      }
    }
  }

  protected trace(op: string, item: T, detail: Record<string, unknown>): void {
    const reason = detail.reason as QueueReason | undefined;
    // The ops of every event (add, get; dedup, done) are the fixed-shape record; ops with details of their own
    // (a delay, requeues, a priority) stay literals.
    if (onlyFixedDetails(detail)) {
      this.tracer.emit(new QueueOpRecord(traceTime(this.clock), op, String(item), reason?.rv, this.name, this.controller, this.len(), detail.reason, detail.processing as boolean | undefined, detail.reasons as number | undefined));
      return;
    }
    // Filled in field by field, in the order the trace shows them: spreading the optional controller and the detail
    // cost more than the rest of a record, and a traced event makes four of these.
    const record: TraceRecord = { time: traceTime(this.clock), stage: 'workqueue', op, key: String(item), rv: reason?.rv, queue: this.name };
    if (this.controller !== undefined) record.controller = this.controller;
    record.depth = this.len();
    for (const k in detail) record[k] = detail[k];
    this.tracer.emit(record);
  }
}

/** Whether a queue record's details are among QueueOpRecord's (reason, processing, reasons), in its order. */
function onlyFixedDetails(detail: Record<string, unknown>): boolean {
  let last = -1;
  for (const k in detail) {
    const at = k === 'reason' ? 0 : k === 'processing' ? 1 : k === 'reasons' ? 2 : -1;
    if (at <= last) return false;
    last = at;
  }
  return true;
}
