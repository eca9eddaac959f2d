// The FIFO vocabulary: DeltaType, Delta, Deltas and the DeletedFinalStateUnknown tombstone (client-go's names).
import { AbortableWaiters } from './abortable-waiters.js';
import type { KubeObject } from './types.js';
import { metaNamespaceKey } from './types.js';

export const DELTA_TYPES = ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync'] as const;
/** What happened to an object; the string values are client-go's. */
export type DeltaType = (typeof DELTA_TYPES)[number];

/**
 * Placed in a FIFO when an object vanished from a relist while its delete event was missed (for
 * example while the watch was disconnected). `obj` is the last state we knew, possibly stale, or
 * undefined when nothing was known.
 */
export class DeletedFinalStateUnknown {
  constructor(
    readonly key: string,
    readonly obj: KubeObject | undefined,
  ) {}
}

/**
 * The trace fields that say what a tombstone is, in words (after `tombstone: true`), for every stage that emits one:
 * `tombstoneType` (client-go's type name) and `tombstoneExplanation`. Empty for an object.
 */
export function tombstoneTraceFields(obj: unknown): { tombstoneType?: string; tombstoneExplanation?: string } {
  if (!(obj instanceof DeletedFinalStateUnknown)) return {};
  const rv = obj.obj?.metadata?.resourceVersion;
  return {
    tombstoneType: 'DeletedFinalStateUnknown',
    tombstoneExplanation: `deleted while the watch was down (a relist no longer had it); ${rv ? `last state known at RV ${rv}` : 'no last state known'}`,
  };
}

/** An object, or a tombstone for an object whose final state is unknown. */
export type ObjectOrTombstone = KubeObject | DeletedFinalStateUnknown;

/** One change. Only Deleted deltas can carry a tombstone. */
export interface Delta {
  readonly type: DeltaType;
  readonly object: ObjectOrTombstone;
}

/** Changes to one object, oldest first. Never empty when handed out by a FIFO. */
export type Deltas = readonly Delta[];

export function isTombstone(obj: unknown): obj is DeletedFinalStateUnknown {
  return obj instanceof DeletedFinalStateUnknown;
}

/** client-go's DeletionHandlingMetaNamespaceKeyFunc: a tombstone's key is its `key` field. */
export function deletionHandlingKey(obj: ObjectOrTombstone): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : metaNamespaceKey(obj);
}

/** The resourceVersion of an object, or of a tombstone's last known object. */
export function resourceVersionOf(obj: ObjectOrTombstone | undefined): string | undefined {
  if (obj === undefined) return undefined;
  if (obj instanceof DeletedFinalStateUnknown) return obj.obj?.metadata?.resourceVersion;
  return obj.metadata?.resourceVersion;
}

/** The object inside a tombstone, or the object itself. */
export function unwrapTombstone(obj: ObjectOrTombstone): KubeObject | undefined {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

/** Whatever a FIFO needs to know about the cache: client-go's KeyListerGetter (the indexer). */
export interface KnownObjects {
  listKeys(): string[];
  getByKey(key: string): KubeObject | undefined;
}

/** client-go's ErrFIFOClosed: pop() rejects with it once the FIFO is closed and empty. */
export class FifoClosedError extends Error {
  readonly code = 'FIFO_CLOSED';
  constructor() {
    super('DeltaFIFO: manipulating with closed queue');
    this.name = 'FifoClosedError';
  }
}

/**
 * client-go's ErrRequeue: thrown by a pop() process function to put the popped deltas back (only if
 * the key has not been queued again meanwhile). pop() then rejects with `err` if one was given.
 */
export class RequeueError extends Error {
  constructor(readonly err?: unknown) {
    super(err instanceof Error ? `requeue: ${err.message}` : 'requeue');
    this.name = 'RequeueError';
  }
}

/** The process function handed to pop(). Keep it synchronous to get client-go's "under the lock" atomicity. */
export type PopProcessFunc = (deltas: Deltas, isInInitialList: boolean) => void | Promise<void>;

/** A transform applied to incoming objects before they are queued (client-go's TransformFunc). */
export type TransformFunc = (obj: KubeObject) => KubeObject;

/** What both FIFOs offer beyond ReflectorStore: the informer's consumer side. */
export interface InformerQueue {
  pop(process: PopProcessFunc, signal?: AbortSignal): Promise<Deltas>;
  /** Pops and processes one item if one is ready; undefined when empty. Throws FifoClosedError when closed and empty. */
  tryPop(process: (deltas: Deltas, isInInitialList: boolean) => void): Deltas | undefined;
  /** RealFIFO only: pops a batch of distinct keys (client-go 1.35's PopBatch); returns how many deltas, 0 when empty. */
  tryPopBatch?(process: (deltas: Deltas, isInInitialList: boolean) => void, maxSize?: number): number;
  /**
   * Resolves once an item is queued or the FIFO is closed (at once if so already); rejects with the signal's
   * reason when it aborts first. A consumer that pops with tryPop waits here, which costs one promise where
   * pop() costs three.
   */
  waitForItem(signal?: AbortSignal): Promise<void>;
  hasSynced(): boolean;
  close(): void;
  isClosed(): boolean;
  listKeys(): string[];
  /** Queue depth: keys (DeltaFIFO) or entries (RealFIFO). */
  readonly length: number;
}

/** pop() calls waiting for the FIFO to become non-empty (client-go's cond.Wait). */
export class FifoWaiters {
  private readonly waiters = new AbortableWaiters<void>();

  /** Wakes every waiter; each re-checks the FIFO (cond.Broadcast). */
  broadcast(): void {
    this.waiters.resolveAll(undefined);
  }

  /** Resolves on the next broadcast; rejects with the signal's reason when aborted. */
  wait(signal?: AbortSignal): Promise<void> {
    return this.waiters.wait(signal);
  }
}
