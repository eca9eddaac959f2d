// processorListener: one handler's bounded buffer of notifications, delivered serially to that handler.
import { ArrayQueue } from './array-queue.js';
import type { Clock } from './clock.js';
import type { ObjectOrTombstone } from './deltas.js';
import { DeletedFinalStateUnknown, deletionHandlingKey, resourceVersionOf, tombstoneTraceFields } from './deltas.js';
import type { Tracer, TraceRecord } from './trace.js';
import type { KubeObject } from './types.js';
import { traceTime, traceTimeStale } from './trace-time.js';
import { HandlerCallRecord } from './trace-records.js';

/**
 * client-go's ResourceEventHandler. Handlers may return a promise: the listener waits for it before
 * delivering the next notification, so a slow handler delays only its own listener (until its buffer
 * fills, see SharedProcessor). onDelete receives a DeletedFinalStateUnknown when the delete was missed.
 */
export interface ResourceEventHandler {
  onAdd?(obj: KubeObject, isInInitialList: boolean): void | Promise<void>;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void | Promise<void>;
  onDelete?(obj: ObjectOrTombstone): void | Promise<void>;
}

/** One notification, shared (never copied) by every listener it is distributed to. */
export type Notification =
  | { readonly kind: 'add'; readonly obj: KubeObject; readonly isInInitialList: boolean }
  | { readonly kind: 'update'; readonly old: KubeObject; readonly obj: KubeObject; readonly sync: boolean }
  | { readonly kind: 'delete'; readonly obj: ObjectOrTombstone };

/** The handler trace op of each notification kind. */
const HANDLER_OPS = { add: 'OnAdd', update: 'OnUpdate', delete: 'OnDelete' } as const;

export interface ListenerStats {
  /** Notifications handed to the handler. */
  delivered: number;
  /** Notifications waiting now. */
  buffered: number;
  /** The most that ever waited at once. */
  maxBuffered: number;
  /** Times the pipeline blocked because this listener's buffer was full. */
  overflows: number;
  /** Handler calls that threw or rejected. */
  errors: number;
}

export interface ProcessorListenerOptions {
  name: string;
  handler: ResourceEventHandler;
  /** What the handler asked for (after the 1 s minimum). */
  requestedResyncPeriodMs: number;
  /** What it gets, given the informer's resync check period. */
  resyncPeriodMs: number;
  clock: Clock;
  tracer: Tracer;
  /** Put the old and new objects in handler trace records (costly; off by default). */
  traceObjects?: boolean;
  onError?: (err: unknown, listener: string) => void;
  /** Put on every handler record as `controller` (which controller this listener feeds). */
  controller?: string;
}

const RESOLVED = Promise.resolve();

/**
 * Contracts: notifications are delivered in the order added, one at a time (the next handler call
 * starts only after the previous one returned or settled); `initialPending` counts isInInitialList adds
 * added but not yet handled (client-go's syncTracker).
 */
export class ProcessorListener {
  readonly name: string;
  readonly handler: ResourceEventHandler;
  readonly requestedResyncPeriodMs: number;
  resyncPeriodMs: number;
  /** When this listener is next due a resync (epoch ms). */
  nextResync: number;
  readonly stats: ListenerStats = { delivered: 0, buffered: 0, maxBuffered: 0, overflows: 0, errors: 0 };
  private readonly buffer = new ArrayQueue<Notification>(4096);
  private running = false;
  private stopped = false;
  private initialPending = 0;
  private roomWaiters: { bound: number; resolve: () => void }[] = [];
  private idleWaiters: (() => void)[] = [];
  private readonly clock: Clock;
  private readonly tracer: Tracer;
  private readonly traceObjects: boolean;
  private readonly controller?: string;
  private readonly onError?: (err: unknown, listener: string) => void;

  constructor(options: ProcessorListenerOptions) {
    this.name = options.name;
    this.handler = options.handler;
    this.requestedResyncPeriodMs = options.requestedResyncPeriodMs;
    this.resyncPeriodMs = options.resyncPeriodMs;
    this.clock = options.clock;
    this.tracer = options.tracer;
    this.traceObjects = options.traceObjects ?? false;
    this.onError = options.onError;
    this.controller = options.controller;
    this.nextResync = this.clock.now() + this.resyncPeriodMs;
  }

  /** Notifications waiting for the handler. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Queues a notification (never blocks; the processor checks room before popping the FIFO). */
  add(n: Notification): void {
    if (this.stopped) return;
    if (n.kind === 'add' && n.isInInitialList) this.initialPending++;
    this.buffer.push(n);
    const b = this.buffered;
    this.stats.buffered = b;
    if (b > this.stats.maxBuffered) this.stats.maxBuffered = b;
    if (!this.running) {
      this.running = true;
      // A bare promise job: queueMicrotask validates its argument and wraps it in an AsyncResource on every call.
      void RESOLVED.then(() => this.run());
    }
  }

  /** True once the informer synced and every initial-list add given to this listener was handled. */
  hasSynced(informerSynced: boolean): boolean {
    return informerSynced && this.initialPending === 0;
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriodMs !== 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriodMs;
  }

  setResyncPeriod(ms: number): void {
    this.resyncPeriodMs = ms;
  }

  /** Resolves once fewer than `bound` notifications wait (immediately if so already). */
  waitForRoom(bound: number): Promise<void> {
    if (this.stopped || this.buffered < bound) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push({ bound, resolve }));
  }

  /** Nothing buffered and no handler call running. */
  get idle(): boolean {
    return !this.running && this.buffer.length === 0;
  }

  /** Resolves once the buffer is empty and no handler call is running. */
  waitIdle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops delivery: drops what is buffered and releases anyone waiting for room. */
  stop(): void {
    this.stopped = true;
    this.buffer.clear();
    this.stats.buffered = 0;
    this.releaseRoom();
    this.releaseIdle();
  }

  /**
   * Delivers what is buffered, in order. Synchronous while handlers are (an async function here cost a promise
   * per wake-up); a handler's promise is waited for before the next notification, which resumes the loop.
   */
  private run(): void {
    while (!this.stopped && this.buffer.length > 0) {
      const n = this.buffer.shift()!;
      this.stats.buffered = this.buffered;
      let r: void | Promise<void> = undefined;
      try {
        r = this.deliver(n);
      } catch (err) {
        this.failed(n, err);
      }
      // The handler may have taken long: the next record reads the clock again.
      traceTimeStale();
      if (r !== undefined && typeof (r as Promise<void>).then === 'function') {
        (r as Promise<void>).then(
          () => this.resume(n),
          (err: unknown) => {
            this.failed(n, err);
            this.resume(n);
          },
        );
        return;
      }
      this.delivered(n);
    }
    this.running = false;
    this.releaseIdle();
  }

  /** After a handler's promise settled: count it, then go on with the buffer. */
  private resume(n: Notification): void {
    traceTimeStale();
    this.delivered(n);
    this.run();
  }

  private delivered(n: Notification): void {
    this.stats.delivered++;
    if (n.kind === 'add' && n.isInInitialList) this.initialPending--;
    if (this.roomWaiters.length > 0) this.releaseRoom();
  }

  private deliver(n: Notification): void | Promise<void> {
    if (this.tracer.shouldEmit('handler', HANDLER_OPS[n.kind])) this.trace(n);
    switch (n.kind) {
      case 'add':
        return this.handler.onAdd?.(n.obj, n.isInInitialList);
      case 'update':
        return this.handler.onUpdate?.(n.old, n.obj);
      case 'delete':
        return this.handler.onDelete?.(n.obj);
    }
  }

  private trace(n: Notification, error?: unknown): void {
    const message = error === undefined ? undefined : error instanceof Error ? error.message : String(error);
    // An add or an update without its objects (every call of a plain -o ndjson run) is the fixed-shape record.
    if (n.kind !== 'delete' && !this.traceObjects) {
      const add = n.kind === 'add';
      this.tracer.emit(
        new HandlerCallRecord(traceTime(this.clock), HANDLER_OPS[n.kind], deletionHandlingKey(n.obj), resourceVersionOf(n.obj), this.name, this.controller, add ? n.isInInitialList : undefined, add ? undefined : n.old.metadata?.resourceVersion, add ? undefined : n.sync, message),
      );
      return;
    }
    const rec: TraceRecord = {
      time: traceTime(this.clock),
      stage: 'handler',
      op: HANDLER_OPS[n.kind],
      key: deletionHandlingKey(n.obj),
      rv: resourceVersionOf(n.obj),
      listener: this.name,
    };
    if (this.controller !== undefined) rec.controller = this.controller;
    if (n.kind === 'add') rec.isInInitialList = n.isInInitialList;
    if (n.kind === 'update') {
      rec.oldRv = n.old.metadata?.resourceVersion;
      rec.sync = n.sync;
    }
    if (n.kind === 'delete') {
      rec.tombstone = n.obj instanceof DeletedFinalStateUnknown;
      if (rec.tombstone) Object.assign(rec, tombstoneTraceFields(n.obj));
    }
    if (this.traceObjects) {
      if (n.kind === 'update') rec.old = n.old;
      rec.new = n.obj instanceof DeletedFinalStateUnknown ? n.obj.obj : n.obj;
    }
    if (message !== undefined) rec.error = message;
    this.tracer.emit(rec);
  }

  private failed(n: Notification, err: unknown): void {
    this.stats.errors++;
    if (this.tracer.shouldEmit('handler', HANDLER_OPS[n.kind])) this.trace(n, err);
    this.onError?.(err, this.name);
  }

  private releaseRoom(): void {
    const waiting = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiting) {
      if (this.stopped || this.buffered < w.bound) w.resolve();
      else this.roomWaiters.push(w);
    }
  }

  private releaseIdle(): void {
    const waiting = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiting) w();
  }
}
