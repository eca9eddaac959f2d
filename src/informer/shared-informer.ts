// SharedIndexInformer: reflector → FIFO → indexer → processor → listeners, assembled from the stages.
import { LATENCY_SAMPLE_EVERY, LatencyHistogram, type InformerMetricsSnapshot } from './informer-metrics.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import { DeltaFifo } from './delta-fifo.js';
import type { Deltas, InformerQueue, ObjectOrTombstone, TransformFunc } from './deltas.js';
import { FifoClosedError } from './deltas.js';
import type { Indexers, ReadonlyIndexer } from './indexer.js';
import { Indexer } from './indexer.js';
import type { ListenerStats, ResourceEventHandler } from './processor-listener.js';
import { ProcessorListener } from './processor-listener.js';
import { RealFifo } from './real-fifo.js';
import { Reflector } from './reflector.js';
import type { ReflectorStore } from './reflector-store.js';
import { SharedProcessor, determineResyncPeriod } from './shared-processor.js';
import type { Tracer } from './trace.js';
import { noTracer } from './trace.js';
import { chooseTransform, stripManagedFields } from './transform.js';
import type { KubeObject, ListerWatcher, StartAt } from './types.js';

/** client-go's minimumResyncPeriod: shorter handler resync periods are raised to it. */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;
export const DEFAULT_LISTENER_BUFFER_SIZE = 10_000;

export interface SharedIndexInformerOptions {
  listerWatcher: ListerWatcher;
  /** Shown in trace records and warnings, e.g. "pods". */
  name?: string;
  /** Objects of another kind are dropped by the reflector. */
  expectedKind?: string;
  /**
   * 'real' (default): RealFIFO, one entry per event in arrival order — what client-go 1.33+ uses
   * (InOrderInformers). 'delta': the DeltaFIFO of client-go ≤ 1.32, coalescing per key.
   */
  fifo?: 'real' | 'delta';
  /** The default handler resync period and the informer's resync check period; 0 (default) = no resync. */
  resyncPeriodMs?: number;
  indexers?: Indexers;
  /** Runs on every incoming object; default strips metadata.managedFields; null = none. */
  transform?: TransformFunc | null;
  /** Keep metadata.managedFields (only when `transform` is not given). */
  keepManagedFields?: boolean;
  tracer?: Tracer;
  clock?: Clock;
  /** Put old/new objects into handler trace records (for diffs); off by default to keep tracing cheap. */
  traceObjects?: boolean;
  /** The most notifications one listener buffers before the pipeline waits (see SharedProcessor). Default 10 000. */
  listenerBufferSize?: number;
  /** Called when a handler throws or rejects; the notification is skipped either way. */
  onHandlerError?: (err: unknown, listener: string) => void;
  // Passed to the Reflector:
  /**
   * Hand the RealFIFO's deltas to the handlers in batches of distinct keys, the cache updated for the whole batch
   * first (client-go 1.35's InOrderInformersBatchProcess). Default false. Needs fifo 'real'.
   */
  batchProcess?: boolean;
  useWatchList?: boolean;
  initialEventsEndTimeoutMs?: number;
  fallbackWithoutInitialEventsEnd?: boolean;
  watchdogMs?: number;
  pageSize?: number;
  minWatchTimeoutSeconds?: number;
  random?: () => number;
  startAt?: StartAt;
}

export interface HandlerOptions {
  /** This handler's resync period (see API-SEMANTICS §7); default: the informer's resyncPeriodMs. */
  resyncPeriodMs?: number;
  /** Listener name in trace records; default `handler-<n>`. */
  name?: string;
  /** The controller this handler feeds, put on its handler records (kwatch reconcile's controllers). */
  controller?: string;
}

/** What addEventHandler returns (client-go's ResourceEventHandlerRegistration). */
export interface HandlerRegistration {
  readonly name: string;
  /** True once the informer synced and this handler has handled every initial-list add it was given. */
  hasSynced(): boolean;
  /** Stops delivery to this handler; buffered notifications are dropped. */
  remove(): void;
  readonly stats: ListenerStats;
  /** The resync period this handler effectively gets. */
  readonly resyncPeriodMs: number;
}

/** The callbacks processDeltas drives (the informer's own ResourceEventHandler). */
export interface DeltaHandler {
  onAdd(obj: KubeObject, isInInitialList: boolean): void;
  onUpdate(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete(obj: ObjectOrTombstone): void;
}

/**
 * client-go's processDeltas, oldest delta first: Sync/Replaced/Added/Updated update the cache and call
 * onUpdate(old, new) when the key is cached, else add and call onAdd(obj, isInInitialList); Deleted
 * deletes and calls onDelete (possibly with a tombstone).
 */
export function processDeltas(handler: DeltaHandler, store: Indexer, deltas: Deltas, isInInitialList: boolean): void {
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i];
    switch (d.type) {
      case 'Sync':
      case 'Replaced':
      case 'Added':
      case 'Updated': {
        const obj = d.object as KubeObject;
        const old = store.upsert(obj);
        if (old !== undefined) handler.onUpdate(old, obj);
        else handler.onAdd(obj, isInInitialList);
        break;
      }
      case 'Deleted':
        store.delete(d.object);
        handler.onDelete(d.object);
        break;
    }
  }
}

/**
 * client-go 1.35's processDeltasInBatch (tools/cache/controller.go, the InOrderInformersBatchProcess gate) for a store
 * that takes transactions: the whole batch goes into the cache first, then the handlers are called, oldest first.
 * A handler of the batch's first delta therefore already sees the cache with the batch's last one applied. The batch
 * holds each key once, so each update's old object is the one cached before the batch.
 */
export function processDeltasInBatch(handler: DeltaHandler, store: Indexer, deltas: Deltas, isInInitialList: boolean): void {
  const olds: (KubeObject | undefined)[] = new Array(deltas.length);
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i];
    if (d.type === 'Deleted') store.delete(d.object);
    else olds[i] = store.upsert(d.object as KubeObject);
  }
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i];
    if (d.type === 'Deleted') handler.onDelete(d.object);
    else if (olds[i] !== undefined) handler.onUpdate(olds[i]!, d.object as KubeObject);
    else handler.onAdd(d.object as KubeObject, isInInitialList);
  }
}

export class SharedIndexInformer {
  private readonly options: SharedIndexInformerOptions;
  private readonly indexer: Indexer;
  private readonly processor: SharedProcessor;
  private readonly clock: Clock;
  private readonly tracer: Tracer;
  private readonly transform?: TransformFunc;
  private readonly defaultResyncPeriodMs: number;
  /** How often the reflector asks whether a resync is due; may be lowered by handlers added before start. */
  private resyncCheckPeriodMs: number;
  private fifo?: InformerQueue & ReflectorStore;
  private reflector?: Reflector;
  private started = false;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private handlerCount = 0;
  /** Warnings about handler resync periods (client-go logs them). */
  readonly warnings: string[] = [];
  readonly stats = { popped: 0, deltas: 0 };
  private peakQueued = 0;
  private readonly latency = new LatencyHistogram();
  private readonly handler: DeltaHandler;

  constructor(options: SharedIndexInformerOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.tracer = options.tracer ?? noTracer;
    this.transform = chooseTransform(options);
    this.defaultResyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.resyncCheckPeriodMs = this.defaultResyncPeriodMs;
    this.indexer = new Indexer({ indexers: options.indexers, tracer: this.tracer, clock: this.clock });
    this.processor = new SharedProcessor({ clock: this.clock, tracer: this.tracer, bufferSize: options.listenerBufferSize ?? DEFAULT_LISTENER_BUFFER_SIZE });
    const processor = this.processor;
    this.handler = {
      onAdd: (obj, isInInitialList) => processor.distribute({ kind: 'add', obj, isInInitialList }, false),
      // An update whose RV did not change is a resync (Sync delta, or Replaced for an unchanged object).
      onUpdate: (old, obj) => {
        const sync = old.metadata?.resourceVersion === obj.metadata?.resourceVersion;
        processor.distribute({ kind: 'update', old, obj, sync }, sync);
      },
      onDelete: (obj) => processor.distribute({ kind: 'delete', obj }, false),
    };
  }

  get name(): string {
    return this.options.name ?? this.options.expectedKind ?? 'informer';
  }

  /**
   * Registers a handler. Before run() it sees everything from the initial list on; after start it first
   * receives every cached object as onAdd(obj, isInInitialList=true), then live notifications.
   */
  addEventHandler(handler: ResourceEventHandler, options: HandlerOptions = {}): HandlerRegistration {
    let period = options.resyncPeriodMs ?? this.defaultResyncPeriodMs;
    if (period > 0) {
      if (period < MINIMUM_RESYNC_PERIOD_MS) {
        this.warnings.push(`resyncPeriod ${period}ms is too small; changing it to the minimum allowed value of ${MINIMUM_RESYNC_PERIOD_MS}ms`);
        period = MINIMUM_RESYNC_PERIOD_MS;
      }
      if (period < this.resyncCheckPeriodMs) {
        if (this.started) {
          this.warnings.push(`resyncPeriod ${period}ms is smaller than resyncCheckPeriod ${this.resyncCheckPeriodMs}ms and the informer has already started; changing it to ${this.resyncCheckPeriodMs}ms`);
          period = this.resyncCheckPeriodMs;
        } else {
          this.resyncCheckPeriodMs = period;
          this.processor.resyncCheckPeriodChanged(period);
        }
      }
    }
    const effective = determineResyncPeriod(period, this.resyncCheckPeriodMs);
    if (effective.warning) this.warnings.push(effective.warning);
    const name = options.name ?? `handler-${++this.handlerCount}`;
    const listener = new ProcessorListener({
      name,
      handler,
      requestedResyncPeriodMs: period,
      resyncPeriodMs: effective.periodMs,
      clock: this.clock,
      tracer: this.tracer,
      traceObjects: this.options.traceObjects,
      onError: this.options.onHandlerError,
      controller: options.controller,
    });
    this.processor.addListener(listener);
    // Deltas are processed synchronously (never across an await), so this replay cannot interleave
    // with a half-processed pop — what client-go's blockDeltas lock guarantees.
    if (this.started) for (const obj of this.indexer.list()) listener.add({ kind: 'add', obj, isInInitialList: true });
    const processor = this.processor;
    const informerSynced = () => this.hasSynced();
    return {
      name,
      hasSynced: () => listener.hasSynced(informerSynced()),
      remove: () => processor.removeListener(listener),
      stats: listener.stats,
      get resyncPeriodMs() {
        return listener.resyncPeriodMs;
      },
    };
  }

  /** Adds indices; allowed while running (client-go ≥ 1.30); existing objects are indexed at once. */
  addIndexers(indexers: Indexers): void {
    this.indexer.addIndexers(indexers);
  }

  /** True once the initial list was popped and processed (handlers may still be delivering it). */
  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  /** Resolves once hasSynced(); rejects with the signal's reason when aborted first. */
  whenSynced(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  getIndexer(): ReadonlyIndexer {
    return this.indexer;
  }

  getStore(): ReadonlyIndexer {
    return this.indexer;
  }

  /** The resourceVersion the reflector last synced to ("" before the first list). */
  get lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion ?? '';
  }

  getReflector(): Reflector | undefined {
    return this.reflector;
  }

  /** Nothing queued in the FIFO and every handler done with what it was given. */
  isIdle(): boolean {
    return this.fifoLength === 0 && this.processor.isIdle();
  }

  /** client-go 1.36's LastStoreSyncResourceVersion: the resourceVersion the store (the FIFO) was last given; "" before the first list. */
  lastStoreSyncResourceVersion(): string {
    return (this.fifo as { resourceVersion?: string } | undefined)?.resourceVersion ?? '';
  }

  /** informer_queued_items, informer_processing_latency_seconds and informer_store_resource_version (client-go 1.36) now. */
  metrics(): InformerMetricsSnapshot {
    return {
      queuedItems: this.fifoLength,
      peakQueuedItems: Math.max(this.peakQueued, this.fifoLength),
      processingLatency: { samples: this.latency.samples, p50Seconds: this.latency.quantile(0.5), p99Seconds: this.latency.quantile(0.99), maxSeconds: this.latency.maxSeconds },
      storeResourceVersion: this.lastStoreSyncResourceVersion(),
    };
  }

  /** Queue depth of the FIFO (0 before run). */
  get fifoLength(): number {
    return this.fifo?.length ?? 0;
  }

  /**
   * Runs until the signal aborts (resolves) or the reflector gives up (rejects with its error).
   * Queued deltas and buffered notifications are dropped on stop.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`informer ${this.name} has already been started`);
    this.started = true;
    const fifoOptions = { knownObjects: this.indexer, transform: this.transform, tracer: this.tracer, clock: this.clock };
    const fifo: InformerQueue & ReflectorStore = this.options.fifo === 'delta' ? new DeltaFifo({ ...fifoOptions, emitDeltaTypeReplaced: true }) : new RealFifo(fifoOptions);
    this.fifo = fifo;
    const store: ReflectorStore = {
      add: (obj) => (fifo.add(obj), this.checkSynced()),
      update: (obj) => (fifo.update(obj), this.checkSynced()),
      delete: (obj) => (fifo.delete(obj), this.checkSynced()),
      replace: (items, rv) => (fifo.replace(items, rv), this.checkSynced()),
      resync: () => fifo.resync(),
      updateResourceVersion: (rv) => fifo.updateResourceVersion?.(rv),
    };
    const o = this.options;
    this.reflector = new Reflector({
      listerWatcher: o.listerWatcher,
      store,
      name: this.name,
      expectedKind: o.expectedKind,
      clock: this.clock,
      tracer: this.tracer,
      random: o.random,
      pageSize: o.pageSize,
      useWatchList: o.useWatchList,
      initialEventsEndTimeoutMs: o.initialEventsEndTimeoutMs,
      fallbackWithoutInitialEventsEnd: o.fallbackWithoutInitialEventsEnd,
      minWatchTimeoutSeconds: o.minWatchTimeoutSeconds,
      resyncPeriodMs: this.resyncCheckPeriodMs,
      shouldResync: () => this.processor.shouldResync(),
      watchdogMs: o.watchdogMs,
      startAt: o.startAt,
      // The FIFO applies the transform again, so only an idempotent one may also run page by page.
      transform: this.transform === stripManagedFields ? stripManagedFields : undefined,
    });
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let loopError: { err: unknown } | undefined;
    const loop = this.processLoop(fifo, stop.signal).catch((err: unknown) => {
      loopError = { err };
      stop.abort(err);
    });
    try {
      await this.reflector.run(stop.signal);
    } finally {
      signal.removeEventListener('abort', onAbort);
      stop.abort();
      fifo.close();
      await loop;
      this.processor.stop();
    }
    if (loopError !== undefined) throw loopError.err;
  }

  /** The FIFO consumer: pops while every listener has room, yielding to the event loop now and then. */
  private async processLoop(fifo: InformerQueue, signal: AbortSignal): Promise<void> {
    const process = (deltas: Deltas, isInInitialList: boolean) => {
      this.stats.popped++;
      this.stats.deltas += deltas.length;
      processDeltas(this.handler, this.indexer, deltas, isInInitialList);
    };
    const processBatch = (deltas: Deltas, isInInitialList: boolean) => {
      this.stats.popped++;
      this.stats.deltas += deltas.length;
      if (deltas.length === 1) processDeltas(this.handler, this.indexer, deltas, isInInitialList);
      else processDeltasInBatch(this.handler, this.indexer, deltas, isInInitialList);
    };
    const batched = this.options.batchProcess === true && fifo.tryPopBatch !== undefined;
    let burst = 0;
    let sample = 0;
    const stopped = aborted(signal);
    try {
      while (!signal.aborted) {
        if (!this.processor.hasRoom()) {
          await Promise.race([this.processor.waitForRoom(), stopped]);
          continue;
        }
        const depth = fifo.length;
        if (depth > this.peakQueued) this.peakQueued = depth;
        // One pop in LATENCY_SAMPLE_EVERY is timed (informer_processing_latency_seconds): two clock reads per event would cost.
        const timed = sample === 0;
        const t0 = timed ? performance.now() : 0;
        const taken = batched ? fifo.tryPopBatch!(processBatch) : fifo.tryPop(process) === undefined ? 0 : 1;
        if (taken > 0) {
          if (timed) this.latency.observe((performance.now() - t0) / 1000);
          if (++sample === LATENCY_SAMPLE_EVERY) sample = 0;
        }
        if (taken === 0) {
          this.checkSynced();
          burst = 0;
          // The next turn of the loop pops what arrived (and throws FifoClosedError once closed and empty).
          await fifo.waitForItem(signal);
          continue;
        } else if ((burst += taken) >= 1000) {
          burst = 0;
          await yieldToEventLoop();
        }
        this.checkSynced();
      }
    } catch (err) {
      if (err instanceof FifoClosedError || signal.aborted) return;
      throw err;
    }
  }

  private checkSynced(): void {
    if (this.synced || !this.fifo?.hasSynced()) return;
    this.synced = true;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w();
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
