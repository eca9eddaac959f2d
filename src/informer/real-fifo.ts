// RealFIFO (client-go 1.33+): one entry per event, popped in arrival order as single-delta Deltas.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { Delta, DeltaType, Deltas, InformerQueue, KnownObjects, ObjectOrTombstone, PopProcessFunc, TransformFunc } from './deltas.js';
import { DeletedFinalStateUnknown, FifoClosedError, FifoWaiters, deletionHandlingKey, resourceVersionOf, tombstoneTraceFields } from './deltas.js';
import { ArrayQueue } from './array-queue.js';
import type { ReflectorStore } from './reflector-store.js';
import type { TraceRecord, Tracer } from './trace.js';
import { noTracer } from './trace.js';
import type { KubeObject } from './types.js';
import { traceTime } from './trace-time.js';
import { FifoDeltaRecord, FifoPopRecord } from './trace-records.js';

/** client-go's RealFIFO defaultBatchSize: the most deltas one PopBatch hands out. */
export const DEFAULT_FIFO_BATCH_SIZE = 1000;

export interface RealFifoOptions {
  /** The indexer (required by client-go): affects Replace (tombstones) and Resync. */
  knownObjects: KnownObjects;
  /** Runs on every incoming object except tombstones and Sync deltas. */
  transform?: TransformFunc;
  tracer?: Tracer;
  clock?: Clock;
}

/**
 * client-go's RealFIFO. Contracts: `items` holds every event not yet popped, in arrival order;
 * nothing is merged, so a key may appear many times; every pop hands out exactly one delta.
 * Unlike DeltaFIFO, Delete is never ignored (there is nothing queued to compare with).
 */
export class RealFifo implements ReflectorStore, InformerQueue {
  private readonly items = new ArrayQueue<Delta>();
  private populated = false;
  /** Entries queued by the first Replace (all of the queue at that point) not popped yet. */
  private initialPopulationCount = 0;
  private closed = false;
  /** Batches handed out by tryPopBatch (their number in the trace). */
  private batches = 0;
  private readonly waiters = new FifoWaiters();
  private readonly knownObjects: KnownObjects;
  private readonly transform?: TransformFunc;
  private readonly tracer: Tracer;
  private readonly clock: Clock;
  /** The last resourceVersion the reflector reported (bookmarks included). */
  resourceVersion = '';

  constructor(options: RealFifoOptions) {
    this.knownObjects = options.knownObjects;
    this.transform = options.transform;
    this.tracer = options.tracer ?? noTracer;
    this.clock = options.clock ?? realClock;
  }

  /** Number of entries queued. */
  get length(): number {
    return this.items.length;
  }

  add(obj: KubeObject): void {
    this.populated = true;
    this.append('Added', obj, false);
  }

  update(obj: KubeObject): void {
    this.populated = true;
    this.append('Updated', obj, false);
  }

  delete(obj: ObjectOrTombstone): void {
    this.populated = true;
    this.append('Deleted', obj, false);
  }

  /**
   * Tombstones first — for queued keys absent from the list whose last queued delta isn't Deleted (with
   * that delta's object), then for known keys absent from the list with nothing queued — then Replaced
   * for every listed object, in list order.
   */
  replace(list: KubeObject[], resourceVersion: string): void {
    const listed = new Set<string>();
    for (const obj of list) listed.add(deletionHandlingKey(obj));
    // Last queued delta per key, in order of each key's first appearance in the queue.
    const lastQueued = new Map<string, Delta>();
    this.items.forEach((d) => lastQueued.set(deletionHandlingKey(d.object), d));
    for (const [key, last] of lastQueued) {
      if (listed.has(key) || last.type === 'Deleted') continue;
      this.append('Deleted', new DeletedFinalStateUnknown(key, last.object as KubeObject), true, key);
    }
    // Sorted, so the tombstones come in the same order whatever order the cache was filled in.
    const vanished = this.knownObjects.listKeys().filter((key) => !listed.has(key) && !lastQueued.has(key));
    for (const key of vanished.sort()) {
      this.append('Deleted', new DeletedFinalStateUnknown(key, this.knownObjects.getByKey(key)), false, key);
    }
    for (const obj of list) this.append('Replaced', obj, false);
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = this.length;
    }
    this.resourceVersion = resourceVersion;
  }

  /** A Sync entry for every known object whose key has nothing queued. */
  resync(): void {
    const queued = new Set<string>();
    this.items.forEach((d) => queued.add(deletionHandlingKey(d.object)));
    for (const key of this.knownObjects.listKeys()) {
      if (queued.has(key)) continue;
      const obj = this.knownObjects.getByKey(key);
      if (obj === undefined) continue;
      this.append('Sync', obj, true, key);
    }
  }

  updateResourceVersion(resourceVersion: string): void {
    this.resourceVersion = resourceVersion;
  }

  /** Synced once every entry queued by the first Replace was popped (or Add/Update/Delete came first). */
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

  /** Distinct queued keys, in order of first appearance. */
  listKeys(): string[] {
    const keys = new Set<string>();
    this.items.forEach((d) => keys.add(deletionHandlingKey(d.object)));
    return [...keys];
  }

  /** Waits for an entry, removes it and calls process([delta], isInInitialList). Rejects with FifoClosedError once closed and empty. */
  async pop(process: PopProcessFunc, signal?: AbortSignal): Promise<Deltas> {
    for (;;) {
      if (this.length > 0) {
        const isInInitialList = !this.hasSynced();
        const deltas = this.take(isInInitialList);
        await process(deltas, isInInitialList);
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
    const isInInitialList = !this.hasSynced();
    const deltas = this.take(isInInitialList);
    process(deltas, isInInitialList);
    return deltas;
  }

  /**
   * client-go 1.35's RealFIFO.PopBatch (tools/cache/the_real_fifo.go, the InOrderInformersBatchProcess gate): takes
   * the oldest entries as one batch — at most `maxSize`, never past the end of the initial list while it is being
   * popped, and closed at the first key already in the batch, so a batch holds each key once — and hands them to
   * `process`. Every delta type kwatch queues is batchable there. Returns how many were taken (0 when empty);
   * throws FifoClosedError when closed and empty. A batch of one is an ordinary pop (client-go's processSingle).
   */
  tryPopBatch(process: (deltas: Deltas, isInInitialList: boolean) => void, maxSize = DEFAULT_FIFO_BATCH_SIZE): number {
    if (this.length === 0) {
      if (this.closed) throw new FifoClosedError();
      return 0;
    }
    const isInInitialList = !this.hasSynced();
    const limit = Math.min(maxSize, this.length, this.initialPopulationCount > 0 ? this.initialPopulationCount : Infinity);
    const keys = new Set<string>();
    let size = 0;
    while (size < limit) {
      const key = deletionHandlingKey(this.items.at(size)!.object);
      if (keys.has(key)) break;
      keys.add(key);
      size++;
    }
    if (size === 1) {
      process(this.take(isInInitialList), isInInitialList);
      return 1;
    }
    const batch = ++this.batches;
    if (this.tracer.shouldEmit('fifo', 'batch')) {
      this.tracer.emit({ time: this.clock.now(), stage: 'fifo', op: 'batch', key: keys.values().next().value, batch, size, isInInitialList, depth: this.length - size, fifo: 'real' });
    }
    const deltas: Delta[] = new Array(size);
    for (let i = 0; i < size; i++) deltas[i] = this.take(isInInitialList, batch)[0];
    process(deltas, isInInitialList);
    return size;
  }

  /** Removes the oldest entry; `isInInitialList` is whether the informer had not synced before it (for its trace record). */
  private take(isInInitialList: boolean, batch?: number): Deltas {
    const delta = this.items.shift()!;
    if (this.initialPopulationCount > 0) this.initialPopulationCount--;
    if (this.tracer.shouldEmit('fifo', 'pop')) {
      this.tracer.emit(new FifoPopRecord(traceTime(this.clock), deletionHandlingKey(delta.object), resourceVersionOf(delta.object), [delta.type], isInInitialList, this.length, 'real', batch));
    }
    return [delta];
  }

  private append(type: DeltaType, obj: ObjectOrTombstone, skipTransform: boolean, key?: string): void {
    if (this.transform !== undefined && !skipTransform && type !== 'Sync' && !(obj instanceof DeletedFinalStateUnknown)) obj = this.transform(obj);
    this.items.push({ type, object: obj });
    if (this.tracer.shouldEmit('fifo', type)) {
      if (obj instanceof DeletedFinalStateUnknown) {
        // A tombstone's delta carries its fields between rv and depth: a literal (rare; every other delta is a FifoDeltaRecord).
        const record: TraceRecord = { time: traceTime(this.clock), stage: 'fifo', op: type, key: key ?? deletionHandlingKey(obj), rv: resourceVersionOf(obj), tombstone: true };
        Object.assign(record, tombstoneTraceFields(obj));
        record.depth = this.length;
        record.fifo = 'real';
        this.tracer.emit(record);
      } else this.tracer.emit(new FifoDeltaRecord(traceTime(this.clock), type, key ?? deletionHandlingKey(obj), resourceVersionOf(obj), this.length, 'real'));
    }
    this.waiters.broadcast();
  }
}
