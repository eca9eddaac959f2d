// DeltaFIFO: per-key lists of deltas, one queue entry per key, with client-go 1.32's exact rules.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { Delta, DeltaType, Deltas, InformerQueue, KnownObjects, ObjectOrTombstone, PopProcessFunc, TransformFunc } from './deltas.js';
import { DeletedFinalStateUnknown, FifoClosedError, FifoWaiters, RequeueError, deletionHandlingKey, resourceVersionOf, tombstoneTraceFields } from './deltas.js';
import { ArrayQueue } from './array-queue.js';
import type { ReflectorStore } from './reflector-store.js';
import type { Tracer } from './trace.js';
import { noTracer } from './trace.js';
import type { KubeObject } from './types.js';
import { traceTime } from './trace-time.js';
import { FifoPopRecord } from './trace-records.js';

export interface DeltaFifoOptions {
  /** The indexer: affects Delete (ignored for unknown keys), Replace (tombstones) and Resync. */
  knownObjects?: KnownObjects;
  /** Emit Replaced (true, what shared informers use) or Sync (false, the legacy behaviour) from Replace. Default true. */
  emitDeltaTypeReplaced?: boolean;
  /** Runs on every incoming object except tombstones and Sync deltas. */
  transform?: TransformFunc;
  tracer?: Tracer;
  clock?: Clock;
}

/**
 * client-go's DeltaFIFO. Contracts:
 * - a key is in `queue` exactly when it is in `items`, and appears there once;
 * - `items.get(key)` is never empty;
 * - only two consecutive Deleted deltas are ever merged (the one with more information survives);
 *   everything else accumulates until popped.
 */
export class DeltaFifo implements ReflectorStore, InformerQueue {
  /** Keys in pop order. */
  private readonly queue = new ArrayQueue<string>();
  private readonly items = new Map<string, Delta[]>();
  /** True once Replace ran first, or Add/Update/Delete was called first. */
  private populated = false;
  /** Items of the first Replace not popped yet. */
  private initialPopulationCount = 0;
  private closed = false;
  private readonly waiters = new FifoWaiters();
  private readonly knownObjects?: KnownObjects;
  private readonly emitDeltaTypeReplaced: boolean;
  private readonly transform?: TransformFunc;
  private readonly tracer: Tracer;
  private readonly clock: Clock;
  /** The last resourceVersion the reflector reported (bookmarks included). */
  resourceVersion = '';

  constructor(options: DeltaFifoOptions = {}) {
    this.knownObjects = options.knownObjects;
    this.emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? true;
    this.transform = options.transform;
    this.tracer = options.tracer ?? noTracer;
    this.clock = options.clock ?? realClock;
  }

  /** Number of keys queued. */
  get length(): number {
    return this.queue.length;
  }

  add(obj: KubeObject): void {
    this.populated = true;
    this.queueAction('Added', obj);
  }

  update(obj: KubeObject): void {
    this.populated = true;
    this.queueAction('Updated', obj);
  }

  /** Queues a Deleted delta, unless the key is neither known (indexer) nor queued. */
  delete(obj: ObjectOrTombstone): void {
    const key = deletionHandlingKey(obj);
    this.populated = true;
    if (!this.items.has(key)) {
      if (this.knownObjects === undefined || this.knownObjects.getByKey(key) === undefined) return;
    }
    this.queueAction('Deleted', obj);
  }

  /**
   * Replaced for every listed object, then Deleted(DeletedFinalStateUnknown) for every queued key absent
   * from the list (with its newest queued object) and for every known key absent with nothing queued
   * (with the indexer's object). The first Replace sets populated and the initial population count.
   */
  replace(list: KubeObject[], resourceVersion: string): void {
    const action: DeltaType = this.emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    const listed = new Set<string>();
    for (const obj of list) {
      const key = deletionHandlingKey(obj);
      listed.add(key);
      // Transformed even when emitted as Sync: client-go queues these with the internal action Replaced.
      this.queueAction(action, obj, key, 'Replaced');
    }
    let queuedDeletions = 0;
    // Queue order (client-go iterates a Go map; we pick the deterministic order).
    const queued = [...this.items];
    for (const [key, deltas] of queued) {
      if (listed.has(key)) continue;
      const newest = deltas[deltas.length - 1].object;
      const last = newest instanceof DeletedFinalStateUnknown ? newest.obj : newest;
      queuedDeletions++;
      this.queueAction('Deleted', new DeletedFinalStateUnknown(key, last), key);
    }
    if (this.knownObjects !== undefined) {
      // Sorted, so the tombstones come in the same order whatever order the cache was filled in
      // (client-go walks a Go map here: its order is random).
      const vanished = this.knownObjects.listKeys().filter((key) => !listed.has(key) && !this.items.has(key));
      for (const key of vanished.sort()) {
        queuedDeletions++;
        this.queueAction('Deleted', new DeletedFinalStateUnknown(key, this.knownObjects.getByKey(key)), key);
      }
    }
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = listed.size + queuedDeletions;
    }
    this.resourceVersion = resourceVersion;
  }

  /** A Sync delta for every known object whose key has nothing queued; keys with queued deltas are skipped. */
  resync(): void {
    if (this.knownObjects === undefined) return;
    for (const key of this.knownObjects.listKeys()) {
      const obj = this.knownObjects.getByKey(key);
      if (obj === undefined) continue;
      if (this.items.has(key)) continue;
      this.queueAction('Sync', obj, key);
    }
  }

  updateResourceVersion(resourceVersion: string): void {
    this.resourceVersion = resourceVersion;
  }

  /** Re-adds popped deltas unless the key was queued again meanwhile (client-go's AddIfNotPresent). */
  addIfNotPresent(deltas: Deltas): void {
    if (deltas.length === 0) return;
    const key = deletionHandlingKey(deltas[deltas.length - 1].object);
    this.populated = true;
    if (this.items.has(key)) return;
    this.queue.push(key);
    this.items.set(key, [...deltas]);
    this.waiters.broadcast();
  }

  /** Synced once the first Replace's items were all popped (or Add/Update/Delete came first). */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  close(): void {
    this.closed = true;
    this.waiters.broadcast();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Queued keys in pop order. */
  listKeys(): string[] {
    return this.queue.toArray();
  }

  /** A copy of the deltas queued for key, or undefined. */
  getByKey(key: string): Deltas | undefined {
    const d = this.items.get(key);
    return d === undefined ? undefined : d.slice();
  }

  /**
   * Waits for an item, removes it (queue and items) and calls process(deltas, isInInitialList). Resolves
   * with the deltas; rejects with FifoClosedError once closed and empty, or with the signal's reason.
   * A RequeueError from process puts the deltas back (if the key was not queued again) and pop rejects
   * with its inner error, if any.
   */
  async pop(process: PopProcessFunc, signal?: AbortSignal): Promise<Deltas> {
    for (;;) {
      if (this.length > 0) {
        const [key, deltas, isInInitialList] = this.take();
        try {
          await process(deltas, isInInitialList);
        } catch (err) {
          this.afterProcessError(key, deltas, err);
        }
        return deltas;
      }
      if (this.closed) throw new FifoClosedError();
      await this.waiters.wait(signal);
    }
  }

  waitForItem(signal?: AbortSignal): Promise<void> {
    return this.length > 0 || this.closed ? Promise.resolve() : this.waiters.wait(signal);
  }

  tryPop(process: (deltas: Deltas, isInInitialList: boolean) => void): Deltas | undefined {
    if (this.length === 0) {
      if (this.closed) throw new FifoClosedError();
      return undefined;
    }
    const [key, deltas, isInInitialList] = this.take();
    try {
      process(deltas, isInInitialList);
    } catch (err) {
      this.afterProcessError(key, deltas, err);
    }
    return deltas;
  }

  /** A RequeueError puts the deltas back and rethrows its inner error, if any; anything else is rethrown. */
  private afterProcessError(key: string, deltas: Delta[], err: unknown): void {
    if (!(err instanceof RequeueError)) throw err;
    this.requeue(key, deltas);
    if (err.err !== undefined) throw err.err;
  }

  private take(): [string, Delta[], boolean] {
    const isInInitialList = !this.hasSynced();
    const key = this.queue.shift()!;
    if (this.initialPopulationCount > 0) this.initialPopulationCount--;
    const deltas = this.items.get(key)!;
    this.items.delete(key);
    if (this.tracer.shouldEmit('fifo', 'pop')) {
      const newest = deltas[deltas.length - 1];
      this.tracer.emit(new FifoPopRecord(traceTime(this.clock), key, resourceVersionOf(newest.object), deltas.map((d) => d.type), isInInitialList, this.length, 'delta', undefined));
    }
    return [key, deltas, isInInitialList];
  }

  private requeue(key: string, deltas: Delta[]): void {
    if (this.tracer.shouldEmit('fifo', 'requeue')) {
      this.tracer.emit({ time: this.clock.now(), stage: 'fifo', op: 'requeue', key, deltas: deltas.length, requeued: !this.items.has(key), depth: this.length, fifo: 'delta' });
    }
    this.addIfNotPresent(deltas);
  }

  /**
   * Appends a delta to key's list (transforming first), collapsing two consecutive Deleted deltas. `origin` is
   * client-go's internalActionType (queueActionInternalLocked): only a resync's Sync skips the transform (its object
   * comes from the indexer, already transformed); Replace's objects, emitted as Sync or Replaced, do not.
   */
  private queueAction(type: DeltaType, obj: ObjectOrTombstone, key = deletionHandlingKey(obj), origin: DeltaType = type): void {
    if (this.transform !== undefined && origin !== 'Sync' && !(obj instanceof DeletedFinalStateUnknown)) obj = this.transform(obj);
    let deltas = this.items.get(key);
    if (deltas === undefined) {
      deltas = [{ type, object: obj }];
      this.items.set(key, deltas);
      this.queue.push(key);
    } else {
      const n = deltas.length;
      const prev = deltas[n - 1];
      if (type === 'Deleted' && prev.type === 'Deleted') {
        // Keep the one with the most information: the older one, unless it is a tombstone.
        if (prev.object instanceof DeletedFinalStateUnknown) deltas[n - 1] = { type, object: obj };
      } else {
        deltas.push({ type, object: obj });
      }
    }
    if (this.tracer.shouldEmit('fifo', type)) {
      this.tracer.emit({
        time: traceTime(this.clock),
        stage: 'fifo',
        op: type,
        key,
        rv: resourceVersionOf(obj),
        tombstone: obj instanceof DeletedFinalStateUnknown || undefined,
        ...tombstoneTraceFields(obj),
        deltas: deltas.length,
        depth: this.length,
        fifo: 'delta',
      });
    }
    this.waiters.broadcast();
  }
}
