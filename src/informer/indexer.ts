// The Indexer: client-go's ThreadSafeStore — objects by key plus named indices kept in step with every change.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { KnownObjects, ObjectOrTombstone } from './deltas.js';
import { deletionHandlingKey } from './deltas.js';
import type { Tracer } from './trace.js';
import { noTracer } from './trace.js';
import type { KubeObject } from './types.js';
import { KwatchError } from './errors.js';
import { traceTime } from './trace-time.js';

/** Computes the index values of an object; may return several (or none). Must not throw for objects it is given. */
export type IndexFunc = (obj: KubeObject) => readonly string[];
/** Index functions by index name. */
export type Indexers = Record<string, IndexFunc>;

/** client-go's NamespaceIndex name; MetaNamespaceIndexFunc is built in under it. */
export const NAMESPACE_INDEX = 'namespace';

/** Read access to the cache. Never mutate what it hands out. */
export interface ReadonlyIndexer extends KnownObjects {
  getByKey(key: string): KubeObject | undefined;
  get(obj: ObjectOrTombstone): KubeObject | undefined;
  list(): KubeObject[];
  listKeys(): string[];
  readonly size: number;
  /** Objects whose key appears under any of obj's values in the named index (union). */
  index(indexName: string, obj: KubeObject): KubeObject[];
  /** Objects indexed under value (unordered). */
  byIndex(indexName: string, value: string): KubeObject[];
  /** Keys indexed under value, sorted. */
  indexKeys(indexName: string, value: string): string[];
  /** The values the named index currently holds (unordered); never a value with no keys. */
  listIndexFuncValues(indexName: string): string[];
  getIndexers(): Indexers;
}

export interface IndexerOptions {
  /** Extra indices; `namespace` is added unless `noNamespaceIndex` is set. */
  indexers?: Indexers;
  noNamespaceIndex?: boolean;
  tracer?: Tracer;
  clock?: Clock;
}

export class IndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexError';
  }
}

/** client-go's MetaNamespaceIndexFunc: cluster-scoped objects index under "". */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/**
 * value → (key → object). Holding the object itself (not only its key) lets byIndex return a result
 * without a lookup per key in the big `items` map, so its cost follows the result size, not the cache size.
 */
type Index = Map<string, Map<string, KubeObject>>;

/**
 * Contracts:
 * - for every index name, `indices.get(name)` maps value → keys, and a key is under value exactly when
 *   value is among indexers[name](items.get(key));
 * - no set is ever empty (empty sets are deleted), so listIndexFuncValues never shows stale values;
 * - byIndex/indexKeys cost is proportional to the result, independent of the number of objects.
 */
export class Indexer implements ReadonlyIndexer {
  private items = new Map<string, KubeObject>();
  private readonly indexers: Indexers = {};
  private readonly indices = new Map<string, Index>();
  /** indexers and indices side by side, in the order they were added: what every put walks. */
  private slots: IndexSlot[] = [];
  private readonly tracer: Tracer;
  private readonly clock: Clock;

  constructor(options: IndexerOptions = {}) {
    this.tracer = options.tracer ?? noTracer;
    this.clock = options.clock ?? realClock;
    const all: Indexers = options.noNamespaceIndex ? {} : { [NAMESPACE_INDEX]: metaNamespaceIndexFunc };
    this.addIndexers({ ...all, ...options.indexers });
  }

  get size(): number {
    return this.items.size;
  }

  /** Add = Update: store obj under its key and move its key between index values. */
  add(obj: KubeObject): void {
    this.put(obj, 'add');
  }

  update(obj: KubeObject): void {
    this.put(obj, 'update');
  }

  /** Add or update, whichever it is: stores obj under its key and returns what was there (one lookup, for processDeltas). */
  upsert(obj: KubeObject): KubeObject | undefined {
    return this.put(obj);
  }

  /** Removes the object (a tombstone's key works too); an unknown key is a no-op. */
  delete(obj: ObjectOrTombstone): void {
    const key = deletionHandlingKey(obj);
    const old = this.items.get(key);
    if (old === undefined) return;
    const changes = this.tracer.shouldEmit('indexer', 'delete') ? {} : undefined;
    this.updateIndices(old, undefined, key, changes);
    this.items.delete(key);
    if (changes !== undefined) {
      this.tracer.emit({ time: this.clock.now(), stage: 'indexer', op: 'delete', key, rv: old.metadata?.resourceVersion, indices: changes, size: this.items.size });
    }
  }

  /** Swaps the whole content and rebuilds every index from scratch. */
  replace(objs: readonly KubeObject[], resourceVersion = ''): void {
    this.items = new Map();
    for (const obj of objs) this.items.set(deletionHandlingKey(obj), obj);
    // Emptied in place: `indices` and `slots` hold the same maps for an index's whole life.
    for (const slot of this.slots) slot.index.clear();
    for (const [key, obj] of this.items) this.updateIndices(undefined, obj, key, undefined);
    if (this.tracer.shouldEmit('indexer', 'replace')) {
      this.tracer.emit({ time: this.clock.now(), stage: 'indexer', op: 'replace', rv: resourceVersion || undefined, size: this.items.size });
    }
  }

  getByKey(key: string): KubeObject | undefined {
    return this.items.get(key);
  }

  get(obj: ObjectOrTombstone): KubeObject | undefined {
    return this.items.get(deletionHandlingKey(obj));
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  list(): KubeObject[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  index(indexName: string, obj: KubeObject): KubeObject[] {
    const fn = this.indexers[indexName];
    const index = this.indices.get(indexName);
    if (fn === undefined || index === undefined) throw noSuchIndex(indexName);
    const values = fn(obj);
    if (values.length === 1) return objectsOf(index.get(values[0]));
    const union = new Map<string, KubeObject>();
    for (const v of values) for (const [k, o] of index.get(v) ?? []) union.set(k, o);
    return [...union.values()];
  }

  byIndex(indexName: string, value: string): KubeObject[] {
    const index = this.indices.get(indexName);
    if (index === undefined) throw noSuchIndex(indexName);
    return objectsOf(index.get(value));
  }

  indexKeys(indexName: string, value: string): string[] {
    const index = this.indices.get(indexName);
    if (index === undefined) throw noSuchIndex(indexName);
    const set = index.get(value);
    return set === undefined ? [] : [...set.keys()].sort();
  }

  listIndexFuncValues(indexName: string): string[] {
    const index = this.indices.get(indexName);
    return index === undefined ? [] : [...index.keys()];
  }

  getIndexers(): Indexers {
    return { ...this.indexers };
  }

  /** Number of keys under each value of an index (cheap; for `kwatch index` summaries). */
  indexSizes(indexName: string): Map<string, number> {
    const index = this.indices.get(indexName);
    if (index === undefined) throw noSuchIndex(indexName);
    const out = new Map<string, number>();
    for (const [v, keys] of index) out.set(v, keys.size);
    return out;
  }

  /** Adds indices, allowed at any time; existing objects are indexed immediately. A name already in use is a conflict. */
  addIndexers(newIndexers: Indexers): void {
    const conflicts = Object.keys(newIndexers).filter((n) => n in this.indexers);
    if (conflicts.length > 0) throw new IndexError(`indexer conflict: ${conflicts.sort().join(', ')}`);
    for (const [name, fn] of Object.entries(newIndexers)) {
      this.indexers[name] = fn;
      const index: Index = new Map();
      this.indices.set(name, index);
      this.slots = [...this.slots, { name, fn, index, namespace: fn === metaNamespaceIndexFunc }];
      for (const [key, obj] of this.items) {
        for (const v of this.compute(name, fn, obj, key)) addKey(index, v, key, obj);
      }
    }
  }

  /** Stores obj; `op` names the record (default: add when the key was new, else update). Returns the old object. */
  private put(obj: KubeObject, op?: 'add' | 'update'): KubeObject | undefined {
    const key = deletionHandlingKey(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    const traceOp = op ?? (old === undefined ? 'add' : 'update');
    const changes = this.tracer.shouldEmit('indexer', traceOp) ? {} : undefined;
    this.updateIndices(old, obj, key, changes);
    if (changes !== undefined) {
      this.tracer.emit({
        time: traceTime(this.clock),
        stage: 'indexer',
        op: traceOp,
        key,
        rv: obj.metadata?.resourceVersion,
        oldRv: old?.metadata?.resourceVersion,
        indices: changes,
        size: this.items.size,
      });
    }
    return old;
  }

  /** Moves key from old's index values to new's; records changed values in `changes` when tracing. */
  private updateIndices(old: KubeObject | undefined, obj: KubeObject | undefined, key: string, changes: Record<string, { old: readonly string[]; new: readonly string[] }> | undefined): void {
    for (const slot of this.slots) {
      const { name, fn, index } = slot;
      if (slot.namespace) {
        updateNamespaceIndex(index, old, obj, key, changes, name);
        continue;
      }
      const oldValues = old === undefined ? NONE : this.compute(name, fn, old, key);
      const newValues = obj === undefined ? NONE : this.compute(name, fn, obj, key);
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) {
        // Same value: only the object held under it changes.
        index.get(newValues[0])!.set(key, obj!);
        continue;
      }
      if (oldValues.length === 0 && newValues.length === 0) continue;
      for (const v of oldValues) removeKey(index, v, key);
      for (const v of newValues) addKey(index, v, key, obj!);
      if (changes !== undefined && !sameValues(oldValues, newValues)) changes[name] = { old: oldValues, new: newValues };
    }
  }

  private compute(name: string, fn: IndexFunc, obj: KubeObject, key: string): readonly string[] {
    try {
      return fn(obj);
    } catch (err) {
      // An error that already says whose code failed (a controller module's indexer) goes up as it is.
      if (err instanceof KwatchError) throw err;
      // client-go panics here; we throw a clear error instead.
      throw new IndexError(`unable to calculate an index entry for key "${key}" on index "${name}": ${(err as Error)?.message ?? String(err)}`);
    }
  }

}

interface IndexSlot {
  readonly name: string;
  readonly fn: IndexFunc;
  readonly index: Index;
  /** The index is metaNamespaceIndexFunc's: one value per object, read without building arrays. */
  namespace: boolean;
}

/** updateIndices for the namespace index, which every informer has: its one value per object compared as a string. */
function updateNamespaceIndex(index: Index, old: KubeObject | undefined, obj: KubeObject | undefined, key: string, changes: Record<string, { old: readonly string[]; new: readonly string[] }> | undefined, name: string): void {
  const was = old === undefined ? undefined : (old.metadata?.namespace ?? '');
  const now = obj === undefined ? undefined : (obj.metadata?.namespace ?? '');
  if (was === now) {
    // Same value: only the object held under it changes.
    if (now !== undefined) index.get(now)!.set(key, obj!);
    return;
  }
  if (was !== undefined) removeKey(index, was, key);
  if (now !== undefined) addKey(index, now, key, obj!);
  if (changes !== undefined) changes[name] = { old: was === undefined ? NONE : [was], new: now === undefined ? NONE : [now] };
}

function objectsOf(entries: Map<string, KubeObject> | undefined): KubeObject[] {
  return entries === undefined ? [] : [...entries.values()];
}

const NONE: readonly string[] = [];

function noSuchIndex(name: string): IndexError {
  return new IndexError(`Index with name ${name} does not exist`);
}

function addKey(index: Index, value: string, key: string, obj: KubeObject): void {
  let entries = index.get(value);
  if (entries === undefined) {
    entries = new Map();
    index.set(value, entries);
  }
  entries.set(key, obj);
}

function removeKey(index: Index, value: string, key: string): void {
  const set = index.get(value);
  if (set === undefined) return;
  set.delete(key);
  if (set.size === 0) index.delete(value);
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
