// Reflector: the thin driver that performs what reflector-state's step function decides (list, watch, wait, store writes, trace).
import { REFLECTOR_BACKOFF } from './backoff.js';
import { realClock, type Clock, type TimerHandle } from './clock.js';
import { ConnectionError, StreamCutError } from './errors.js';
import { listPages } from './pager.js';
import type { ReflectorStore } from './reflector-store.js';
import {
  initialReflectorState,
  step,
  type ReflectorConfig,
  type ReflectorEffect,
  type ReflectorInput,
  type ReflectorPhase,
  type ReflectorState,
  type StepContext,
} from './reflector-state.js';
import { noTracer, type TraceRecord, type Tracer } from './trace.js';
import { metaNamespaceKey, type KubeObject, type ListOptions, type ListerWatcher, type StartAt, type WatchEvent, type WatchEventType, type WatchStream } from './types.js';
import { traceTime } from './trace-time.js';
import { WatchEventRecord } from './trace-records.js';

export interface ReflectorOptions {
  listerWatcher: ListerWatcher;
  store: ReflectorStore;
  /** Description used in trace records and messages, e.g. "pods". Default "reflector". */
  name?: string;
  /** e.g. "Pod": watch events whose object has another kind are dropped (and traced), as client-go does. */
  expectedKind?: string;
  clock?: Clock;
  tracer?: Tracer;
  /** Source of [0, 1) draws for backoff jitter and watch timeouts. Default Math.random. */
  random?: () => number;
  /** Page size for every list when set (client-go's WatchListPageSize); unset follows client-go's rules (500, or unpaged for relists at a known RV). */
  pageSize?: number;
  /** Start with a watch-list (sendInitialEvents) instead of a LIST. Default false (client-go 1.32). */
  useWatchList?: boolean;
  /** How long a watch-list may go without its initial-events-end bookmark before a `no-initial-events-end` record (default 30 s; 0 = never). */
  initialEventsEndTimeoutMs?: number;
  /** At that bound, fall back to LIST+WATCH for the rest of the run, as a fixed client would (default false: wait, as client-go 1.35 does). */
  fallbackWithoutInitialEventsEnd?: boolean;
  /** Watches send timeoutSeconds uniformly in [min, 2·min). Default 300. */
  minWatchTimeoutSeconds?: number;
  /** When > 0, `store.resync()` runs every period while watching, if `shouldResync` (default: always) agrees. */
  resyncPeriodMs?: number;
  shouldResync?: () => boolean;
  /** When set, a watch silent for longer than this is closed and re-opened from the last resourceVersion. */
  watchdogMs?: number;
  /** Watch only, from this resourceVersion (no initial list). If it has expired: relist (default) or stop, rejecting run(). */
  startAt?: Omit<StartAt, 'onExpired'> & { onExpired?: StartAt['onExpired'] };
  /** Applied to list items page by page as they arrive (the informer's transform; the store applies it too). */
  transform?: (obj: KubeObject) => KubeObject;
}

/** client-go would wait forever; kwatch speaks up after this long without the initial-events-end bookmark. */
export const DEFAULT_INITIAL_EVENTS_END_TIMEOUT_MS = 30_000;

/** Counters since construction. */
export interface ReflectorStats {
  /** LIST operations started (each may span several pages). */
  lists: number;
  /** Lists after the first. */
  relists: number;
  /** Watch streams opened. */
  watches: number;
  /** Watch streams opened after the first. */
  reconnects: number;
  /** Expired (410) answers, from lists, watch starts and ERROR events. */
  expired: number;
  /** Backoff waits (Retry-After waits not included). */
  backoffs: number;
  /** Bytes of list pages and watch lines, where the ListerWatcher reported them. */
  bytes: number;
  /** Watch events received, of any type. */
  events: number;
}

/**
 * Keeps a ReflectorStore in step with a server through a ListerWatcher, with client-go 1.32's reflector
 * semantics (see reflector-state.ts for every decision). Constructing it does nothing; run() works until
 * the signal aborts.
 */
export class Reflector {
  readonly stats: ReflectorStats = { lists: 0, relists: 0, watches: 0, reconnects: 0, expired: 0, backoffs: 0, bytes: 0, events: 0 };
  private state: ReflectorState;
  private readonly config: ReflectorConfig;
  private readonly lw: ListerWatcher;
  private readonly transformItem?: (obj: KubeObject) => KubeObject;
  private readonly store: ReflectorStore;
  private readonly clock: Clock;
  private readonly tracer: Tracer;
  private readonly random: () => number;
  private readonly resyncPeriodMs: number;
  private readonly shouldResync?: () => boolean;
  private readonly watchdogMs: number;

  /** The open watch stream, if any. */
  private stream?: { conn: number; stream: WatchStream };
  /** Watch-list's temporary store (key → object), replaced into the store at the initial-events-end bookmark. */
  private collected = new Map<string, KubeObject>();
  /** How many objects the last replace put in the store: a watch-list's `synced` record says it, as a LIST's does. */
  private replacedCount = 0;
  private lastEventAt = 0;
  private resyncTimer?: TimerHandle;
  private watchdogTimer?: TimerHandle;
  private sleepTimer?: TimerHandle;
  private initialEventsTimer?: TimerHandle;
  /** Aborts in-flight requests when the reflector stops. */
  private ops?: AbortController;
  private settle?: { resolve: () => void; reject: (err: Error) => void };
  private keepAlive?: ReturnType<typeof setInterval>;
  private started = false;
  private readonly stepContext: DriverContext;

  constructor(o: ReflectorOptions) {
    this.lw = o.listerWatcher;
    this.transformItem = o.transform;
    this.store = o.store;
    this.clock = o.clock ?? realClock;
    this.tracer = o.tracer ?? noTracer;
    this.random = o.random ?? Math.random;
    this.resyncPeriodMs = o.resyncPeriodMs ?? 0;
    this.shouldResync = o.shouldResync;
    this.watchdogMs = o.watchdogMs ?? 0;
    this.config = {
      name: o.name ?? 'reflector',
      expectedKind: o.expectedKind,
      pageSize: o.pageSize,
      useWatchList: o.useWatchList ?? false,
      initialEventsEndTimeoutMs: o.initialEventsEndTimeoutMs ?? DEFAULT_INITIAL_EVENTS_END_TIMEOUT_MS,
      fallbackWithoutInitialEventsEnd: o.fallbackWithoutInitialEventsEnd ?? false,
      minWatchTimeoutSeconds: o.minWatchTimeoutSeconds ?? 300,
      startAt: o.startAt ? { ...o.startAt, onExpired: o.startAt.onExpired ?? 'relist' } : undefined,
      backoff: REFLECTOR_BACKOFF,
    };
    this.state = initialReflectorState(this.config, this.clock.now());
    this.stepContext = new DriverContext(this.config, this.clock, this.random);
  }

  /** The last resourceVersion reached by a list, a watch-list or any watch event (BOOKMARK included). */
  get lastSyncResourceVersion(): string {
    return this.state.memory.lastSyncResourceVersion;
  }

  /** True once a list or watch-list has been replaced into the store (or a startAt watch opened). */
  hasSynced(): boolean {
    return this.state.memory.synced;
  }

  /** The state machine's current phase (for views and tests). */
  get phase(): ReflectorPhase {
    return this.state.phase;
  }

  /**
   * Lists and watches until `signal` aborts, then closes the open watch and resolves. Retriable server
   * errors never reject; it rejects only with the StatusError of an expired startAt resourceVersion when
   * `startAt.onExpired` is 'stop', or with an error thrown by the store (a bug).
   */
  run(signal: AbortSignal): Promise<void> {
    if (this.started) return Promise.reject(new Error('Reflector.run was already called; a Reflector runs once'));
    this.started = true;
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.ops = new AbortController();
      if (this.clock === realClock) this.keepAlive = setInterval(() => {}, 1 << 30); // real timers are unref'd; a backoff must not let the process exit
      const onAbort = () => this.dispatch({ kind: 'abort' });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.ops.signal.addEventListener('abort', () => signal.removeEventListener('abort', onAbort), { once: true });
      this.dispatch({ kind: 'start' });
    });
  }

  private dispatch(input: ReflectorInput): void {
    if (this.state.phase.kind === 'Stopped') return;
    const r = step(this.state, input, this.stepContext.next(this.tracer.enabled));
    this.state = r.state;
    try {
      for (const e of r.effects) this.perform(e);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private perform(e: ReflectorEffect): void {
    switch (e.kind) {
      case 'list':
        return this.list(e.options, e.pageSize);
      case 'watch':
        return this.watch(e.conn, e.options);
      case 'closeWatch':
        if (this.stream?.conn === e.conn) this.closeStream();
        return;
      case 'sleep':
        if (e.reason === 'backoff') this.stats.backoffs++;
        this.sleepTimer = this.clock.setTimeout(() => {
          this.sleepTimer = undefined;
          this.dispatch({ kind: 'slept' });
        }, e.ms);
        return;
      case 'cancelSleep':
        this.sleepTimer?.cancel();
        this.sleepTimer = undefined;
        return;
      case 'awaitInitialEventsEnd':
        this.initialEventsTimer?.cancel();
        this.initialEventsTimer = this.clock.setTimeout(() => {
          this.initialEventsTimer = undefined;
          this.dispatch({ kind: 'initialEventsOverdue' });
        }, e.ms);
        return;
      case 'add':
        return this.store.add(e.object);
      case 'update':
        return this.store.update(e.object);
      case 'delete':
        return this.store.delete(e.object);
      case 'collect':
        if (e.op === 'delete') this.collected.delete(metaNamespaceKey(e.object));
        else this.collected.set(metaNamespaceKey(e.object), e.object);
        return;
      case 'resetCollected':
        this.collected = new Map();
        return;
      case 'replace': {
        const items = e.items === 'collected' ? Array.from(this.collected.values()) : e.items;
        this.collected = new Map();
        this.replacedCount = items.length;
        return this.store.replace(items, e.resourceVersion);
      }
      case 'updateResourceVersion':
        return this.store.updateResourceVersion?.(e.resourceVersion);
      case 'startResync':
        return this.startResync();
      case 'stopResync':
        this.resyncTimer?.cancel();
        this.resyncTimer = undefined;
        return;
      case 'count':
        this.stats[e.stat]++;
        return;
      case 'trace': {
        const d = e.detail;
        // A watch event's record comes once per event: the fixed-shape class, unless it carries an error, a drop or a
        // local mark (trace-records.ts). Its fields are those of the literal below, in the same order.
        if (e.stage === 'watch' && d.error === undefined && d.dropped === undefined && d.local === undefined) {
          this.tracer.emit(new WatchEventRecord(traceTime(this.clock), e.op as WatchEventType, this.config.name, d.key as string | undefined, d.rv as string | undefined, d.bytes, d.conn));
          return;
        }
        // Field by field rather than a spread of the detail.
        const record: TraceRecord = { time: traceTime(this.clock), stage: e.stage, op: e.op, name: this.config.name };
        for (const k in e.detail) record[k] = e.detail[k];
        // The state machine does not hold the watch-list's collected objects; their count is known here, after the
        // replace effect that precedes this record (a template prints the initial objects as one block once this many came).
        if (e.op === 'synced' && record.from === 'watch-list') record.items = this.replacedCount;
        this.tracer.emit(record);
        return;
      }
      case 'done': {
        this.cleanup();
        const settle = this.settle;
        this.settle = undefined;
        if (e.error) settle?.reject(e.error);
        else settle?.resolve();
        return;
      }
    }
  }

  private list(options: ListOptions, pageSize: number): void {
    this.stats.lists++;
    // As the step's `relist` record says: a list after a startAt watch replaces the state that watch resumed.
    if (this.stats.lists > 1 || this.config.startAt !== undefined) this.stats.relists++;
    const started = this.clock.now();
    listPages(this.lw, options, { pageSize, signal: this.ops?.signal, tracer: this.tracer, clock: this.clock, name: this.config.name, transformItem: this.transformItem }).then(
      (res) => {
        this.stats.bytes += res.bytes;
        this.dispatch({ kind: 'listed', items: res.items, resourceVersion: res.resourceVersion, paginatedResult: res.paginatedResult, pages: res.pages, ms: this.clock.now() - started });
      },
      (error: unknown) => this.dispatch({ kind: 'listFailed', error }),
    );
  }

  private watch(conn: number, options: ListOptions): void {
    this.lw.watch(options, this.ops?.signal).then(
      (stream) => {
        const p = this.state.phase;
        if (p.kind !== 'StartingWatch' || p.conn !== conn) {
          stream.close(); // stopped or superseded while the request was in flight
          return;
        }
        this.stats.watches++;
        if (this.stats.watches > 1) this.stats.reconnects++;
        this.stream = { conn, stream };
        this.lastEventAt = this.clock.now();
        this.dispatch({ kind: 'watchOpened', conn });
        if (this.stream?.conn !== conn) return;
        this.armWatchdog(conn, this.watchdogMs);
        void this.pump(conn, stream);
      },
      (error: unknown) => this.dispatch({ kind: 'watchFailed', conn, error }),
    );
  }

  /** Feeds a stream's events to the state machine until it ends or a decision closes it. */
  private async pump(conn: number, stream: WatchStream): Promise<void> {
    try {
      // A stream that groups its events is read a group at a time: the whole group goes into the store in one
      // go, so the stages after it wake once per group (a chunk of the body) rather than once per event.
      const batches = stream.batches?.();
      if (batches !== undefined) {
        for await (const batch of batches) {
          for (const event of batch) if (!this.onStreamEvent(conn, event)) return;
        }
      } else {
        for await (const event of stream) if (!this.onStreamEvent(conn, event)) return;
      }
      if (this.stream?.conn !== conn) return;
      this.forgetStream();
      this.dispatch({ kind: 'closed', conn, reason: 'eof' });
    } catch (error) {
      if (this.stream?.conn !== conn) return; // we closed it ourselves
      this.forgetStream();
      // client-go's streamwatcher treats io.ErrUnexpectedEOF and probable-EOF/timeout network errors as a
      // normal close; only undecodable data (or a Status) ends the watch with an error.
      if (error instanceof StreamCutError) this.dispatch({ kind: 'closed', conn, reason: 'stream-cut', error });
      else if (error instanceof ConnectionError) this.dispatch({ kind: 'closed', conn, reason: 'connection', error });
      else this.dispatch({ kind: 'streamError', conn, error });
    }
  }

  /** One event of the open stream `conn` into the state machine; false once that stream is no longer the open one. */
  private onStreamEvent(conn: number, event: WatchEvent): boolean {
    this.stats.events++;
    if (event.bytes) this.stats.bytes += event.bytes;
    if (this.watchdogMs) this.lastEventAt = this.clock.now();
    this.dispatch({ kind: 'event', conn, event });
    return this.stream?.conn === conn;
  }

  private armWatchdog(conn: number, ms: number): void {
    if (!this.watchdogMs) return;
    this.watchdogTimer?.cancel();
    this.watchdogTimer = this.clock.setTimeout(() => {
      this.watchdogTimer = undefined;
      if (this.stream?.conn !== conn) return;
      const silentMs = this.clock.now() - this.lastEventAt;
      if (silentMs >= this.watchdogMs) this.dispatch({ kind: 'watchdog', conn, silentMs });
      else this.armWatchdog(conn, this.watchdogMs - silentMs);
    }, ms);
  }

  private startResync(): void {
    this.resyncTimer?.cancel();
    this.resyncTimer = undefined;
    if (this.resyncPeriodMs <= 0) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      this.resyncTimer = undefined;
      try {
        if (this.shouldResync?.() ?? true) this.store.resync();
      } catch (err) {
        return this.fail(err instanceof Error ? err : new Error(String(err)));
      }
      this.startResync();
    }, this.resyncPeriodMs);
  }

  private forgetStream(): void {
    this.stream = undefined;
    this.watchdogTimer?.cancel();
    this.watchdogTimer = undefined;
  }

  private closeStream(): void {
    const s = this.stream;
    this.forgetStream();
    s?.stream.close();
  }

  private cleanup(): void {
    this.closeStream();
    this.resyncTimer?.cancel();
    this.sleepTimer?.cancel();
    this.initialEventsTimer?.cancel();
    this.resyncTimer = this.sleepTimer = this.initialEventsTimer = undefined;
    this.ops?.abort();
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }

  /** A bug (e.g. the store threw): stop and reject run(). */
  private fail(error: Error): void {
    if (!this.settle) return this.cleanup();
    this.state = { phase: { kind: 'Stopped', error }, memory: this.state.memory };
    if (this.tracer.enabled) this.tracer.emit({ time: this.clock.now(), stage: 'reflector', op: 'stopped', name: this.config.name, error: error.message });
    this.cleanup();
    const settle = this.settle;
    this.settle = undefined;
    settle?.reject(error);
  }
}

/**
 * The context of every step of one reflector, one object reused from step to step (a step never keeps it): `now`
 * reads the clock once, and only in a step that asks, which a watch event's step does not.
 */
class DriverContext implements StepContext {
  tracing = false;
  private at: number | undefined;

  constructor(
    readonly config: ReflectorConfig,
    private readonly clock: Clock,
    readonly random: () => number,
  ) {}

  get now(): number {
    return (this.at ??= this.clock.now());
  }

  /** Ready for the next step. */
  next(tracing: boolean): this {
    this.at = undefined;
    this.tracing = tracing;
    return this;
  }
}
