// What `kwatch index` reports about an indexer: `--by` specs as index funcs with an explicit `<none>`, rows per value, client-go's Indices shape, build time and size.
import { indexFuncFromSpec } from './index-funcs.js';
import { NestingTooDeepError } from './nesting.js';
import type { IndexFunc, Indexers, ReadonlyIndexer } from './indexer.js';
import { Indexer } from './indexer.js';
import type { KubeObject } from './types.js';

/** The value objects without the indexed field are filed under, so that they stay visible. */
export const NONE_VALUE = '<none>';

/** client-go's Indices: index name → index value → keys (sorted here, for stable output). */
export type Indices = Record<string, Record<string, string[]>>;

/** One row of the report: an index value and the keys under it (sorted). */
export interface IndexRow {
  index: string;
  value: string;
  count: number;
  keys: string[];
}

/** Per-index totals. `keys` can exceed `objects` when an index func returns several values for one object. */
export interface IndexTotals {
  index: string;
  values: number;
  keys: number;
  /** Objects in the cache. */
  objects: number;
  /** Objects filed under NONE_VALUE. */
  none: number;
  /** A rough size of the index structures (maps, sets, value strings), not of the objects. */
  approxBytes: number;
}

/** Specs whose core index func uses "" for "the field is absent" (an unscheduled pod, a cluster-scoped object). */
const EMPTY_MEANS_ABSENT = new Set(['namespace', 'nodeName']);

/** `--by` as the user may spell it: `jsonpath=EXPR` is accepted beside the core's `jsonpath:EXPR`. */
export function normalizeIndexSpec(spec: string): string {
  const s = spec.trim();
  return s.startsWith('jsonpath=') ? `jsonpath:${s.slice('jsonpath='.length)}` : s;
}

/**
 * Wraps a core index func so that an object it does not index lands under NONE_VALUE: the core funcs
 * return no value for a missing field (client-go's behaviour: the object disappears from the index).
 */
export function withNoneValue(fn: IndexFunc, emptyMeansAbsent = false): IndexFunc {
  const none = [NONE_VALUE] as const;
  return (obj) => {
    const values = fn(obj);
    if (values.length === 0) return none;
    if (emptyMeansAbsent && values.length === 1 && values[0] === '') return none;
    return values;
  };
}

export interface IndexSpecOptions {
  /**
   * What the index funcs of `annotation:KEY` and JSONPath specs see instead of the cached object, e.g.
   * a copy with Secret values masked: every value such an index holds (and every index change traced)
   * is derived from that view. The fixed specs (namespace, nodeName, phase, owner, label:KEY) read
   * only metadata and status fields that such a view leaves alone, so they skip it: it runs on every
   * indexing. Should return its input when it has nothing to change.
   */
  view?: (obj: KubeObject) => KubeObject;
  /** An object nested deeper than kwatch follows: it goes into no value of that index, and this hears of it. */
  onTooDeep?: (obj: KubeObject, index: string, err: NestingTooDeepError) => void;
}

/** Index funcs for `--by` specs, each named by the spec as written; throws the core's error for an unknown spec. */
export function indexersFromSpecs(specs: readonly string[], opts: IndexSpecOptions = {}): Indexers {
  const out: Indexers = {};
  const view = opts.view;
  for (const raw of specs) {
    const name = raw.trim();
    if (name in out) continue;
    const spec = normalizeIndexSpec(name);
    const fn = indexFuncFromSpec(spec);
    const viewed = view && readsAnyField(spec) ? (obj: KubeObject) => fn(view(obj)) : fn;
    out[name] = withNoneValue(skippingTooDeep(viewed, name, opts.onTooDeep), EMPTY_MEANS_ABSENT.has(spec));
  }
  return out;
}

function skippingTooDeep(fn: IndexFunc, index: string, onTooDeep: IndexSpecOptions['onTooDeep']): IndexFunc {
  return (obj) => {
    try {
      return fn(obj);
    } catch (e) {
      if (!(e instanceof NestingTooDeepError)) throw e;
      onTooDeep?.(obj, index, e);
      return [];
    }
  };
}

/** Specs whose values can come from any field: an annotation (the last-applied one holds a whole object) or a JSONPath. */
function readsAnyField(spec: string): boolean {
  return spec.startsWith('annotation:') || spec.startsWith('jsonpath:') || spec.startsWith('{');
}

/** The number of keys under each value of an index, without sorting anything (cheap enough for every frame). */
export function indexCounts(indexer: ReadonlyIndexer, index: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const value of indexer.listIndexFuncValues(index)) out.set(value, indexer.byIndex(index, value).length);
  return out;
}

/** Rows of one index, by count (largest first), then value. */
export function indexRows(indexer: ReadonlyIndexer, index: string): IndexRow[] {
  const rows = indexer.listIndexFuncValues(index).map((value) => {
    const keys = indexer.indexKeys(index, value);
    return { index, value, count: keys.length, keys };
  });
  return rows.sort(byCountThenValue);
}

export function byCountThenValue(a: { count: number; value: string }, b: { count: number; value: string }): number {
  return b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
}

/** client-go's Indices shape for the named indices. */
export function indicesOf(indexer: ReadonlyIndexer, names: readonly string[]): Indices {
  const out: Indices = {};
  for (const name of names) {
    const values: Record<string, string[]> = {};
    for (const row of indexRows(indexer, name)) values[row.value] = row.keys;
    out[name] = values;
  }
  return out;
}

/** Totals of one index from its rows. */
export function indexTotals(index: string, rows: readonly IndexRow[], objects: number): IndexTotals {
  let keys = 0;
  let none = 0;
  for (const r of rows) {
    keys += r.count;
    if (r.value === NONE_VALUE) none = r.count;
  }
  return { index, values: rows.length, keys, objects, none, approxBytes: approxIndexBytes(rows) };
}

/**
 * Rough heap size of one index in V8: the value → Map map, one Map per value, one Map slot (key → object) per key.
 * Key strings are shared with the store and not counted. Constants calibrated against heap deltas
 * measured by bench/index.js (64-bit V8, no pointer compression).
 */
export function approxIndexBytes(rows: readonly { value: string; count: number }[]): number {
  const MAP = 120;
  const PER_VALUE = 180; // map slot + Map object + its smallest backing table
  const PER_KEY = 39; // a Map slot (key and object reference) at the average load factor
  let bytes = MAP;
  for (const r of rows) bytes += PER_VALUE + r.value.length + r.count * PER_KEY;
  return bytes;
}

/** Indexes `objects` from scratch with `indexers` (what a relist's Replace does) and times it. */
export function timeIndexBuild(objects: readonly KubeObject[], indexers: Indexers, now: () => number = () => performance.now()): { ms: number; indexer: Indexer } {
  const indexer = new Indexer({ indexers, noNamespaceIndex: true });
  const started = now();
  indexer.replace(objects);
  return { ms: now() - started, indexer };
}
