// What an informer's cache of one resource costs: the objects listed (paged) as an informer's first list
// would, weighed as served, in kwatch's cache (V8 heap, measured), as client-go would hold them (Go heap,
// estimated), and under each transform a controller author might add.
import { goCachedObjectBytes, GO_ESTIMATE_METHOD } from '../../informer/go-heap-estimate.js';
import { STRIP_MANAGED_FIELDS, type CacheTransform } from '../../informer/cache-transforms.js';
import type { KubeObject, ListerWatcher } from '../../informer/types.js';
import { pagedList, type PageRow } from '../lister-watchers/paged-list.js';
import { retainedHeapBytes } from './retained-heap.js';

export interface CacheSizeOptions {
  pageSize: number;
  /** The transforms to weigh, beside "none" (always first) and strip-managed-fields (kwatch's cache). */
  transforms: CacheTransform[];
  /** How many of the largest objects and namespaces to report. */
  top: number;
  signal?: AbortSignal;
  onPage?(row: PageRow): void;
}

/** One way to hold the objects: untransformed ("none") or under a transform. */
export interface TransformCost {
  transform: string;
  upstream: string;
  /** The objects re-encoded as JSON after the transform (measured). */
  jsonBytes: number;
  /** V8 heap the transformed objects keep alive in a Map by namespace/name (measured); null if no GC could be forced. */
  kwatchHeapBytes: number | null;
  /** Go heap as a client-go cache of unstructured objects (estimated). */
  clientGoBytes: number;
  /** clientGoBytes saved against "none", as a fraction. */
  clientGoSaved: number;
}

export interface ObjectCost {
  namespace?: string;
  name: string;
  jsonBytes: number;
  managedFieldsBytes: number;
  clientGoBytes: number;
}

export interface NamespaceCost {
  namespace: string;
  objects: number;
  jsonBytes: number;
  /** Fraction of all objects' JSON bytes. */
  share: number;
}

export interface CacheSizeReport {
  objects: number;
  pages: number;
  resourceVersion: string;
  /** Bodies of the LIST responses as received (measured on the wire: envelopes and separators included). */
  servedBytes: number;
  /** The objects' JSON as cached: re-encoded compactly as the API server writes it, kind and apiVersion filled in (measured). */
  objectJsonBytes: number;
  /** What the objects' JSON loses without metadata.managedFields (measured). */
  managedFieldsBytes: number;
  managedFieldsShare: number;
  /** kwatch's cache as kwatch's informers hold it: managedFields stripped (their default transform). */
  kwatchCache: { transform: string; heapBytes: number | null };
  /** client-go's cache with no transform (its default), estimated. */
  clientGoCache: { transform: 'none'; bytes: number };
  transforms: TransformCost[];
  largestObjects: ObjectCost[];
  largestNamespaces: NamespaceCost[];
  methods: { served: string; objectJson: string; kwatchHeap: string; clientGo: string };
}

const NONE: CacheTransform = { name: 'none', upstream: 'client-go and controller-runtime default', apply: (o) => o };

export const METHODS: CacheSizeReport['methods'] = {
  served: 'measured: bytes of the LIST response bodies',
  objectJson: "measured: each object re-encoded as compact JSON, with the kind and apiVersion a list's items lack filled in (as client-go's decoder does)",
  kwatchHeap: 'measured: V8 heap kept alive by the objects (decoded, transformed, held by namespace/name) after a full GC',
  clientGo: GO_ESTIMATE_METHOD,
};

/** Lists every page (restarting on an expired continue token, as a reflector relists) and weighs the result. */
export async function measureCacheSize(lw: ListerWatcher, opts: CacheSizeOptions): Promise<CacheSizeReport> {
  const list = await pagedList(lw, { pageSize: opts.pageSize, onExpired: 'restart', signal: opts.signal, onPage: opts.onPage });
  return { ...weighObjects(list.items, opts), pages: list.pages.length, resourceVersion: list.resourceVersion, servedBytes: list.bytes };
}

/** Everything but the wire: the objects' sizes, each transform's, and the largest objects and namespaces. */
export function weighObjects(items: readonly KubeObject[], opts: Pick<CacheSizeOptions, 'transforms' | 'top'>): Omit<CacheSizeReport, 'pages' | 'resourceVersion' | 'servedBytes'> {
  const transforms = uniqueByName([NONE, STRIP_MANAGED_FIELDS, ...opts.transforms]);
  const costs = transforms.map((t) => transformCost(items, t));
  const none = costs[0];
  for (const c of costs) c.clientGoSaved = none.clientGoBytes > 0 ? 1 - c.clientGoBytes / none.clientGoBytes : 0;
  const objects: ObjectCost[] = items.map((o) => {
    const jsonBytes = jsonSize(o);
    return {
      ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
      name: o.metadata?.name ?? '',
      jsonBytes,
      managedFieldsBytes: jsonBytes - jsonSize(STRIP_MANAGED_FIELDS.apply(o)),
      clientGoBytes: goCachedObjectBytes(o as Record<string, unknown>, keyOf(o)),
    };
  });
  const objectJsonBytes = none.jsonBytes;
  const managedFieldsBytes = objects.reduce((n, o) => n + o.managedFieldsBytes, 0);
  const strip = costs.find((c) => c.transform === STRIP_MANAGED_FIELDS.name)!;
  return {
    objects: items.length,
    objectJsonBytes,
    managedFieldsBytes,
    managedFieldsShare: objectJsonBytes > 0 ? managedFieldsBytes / objectJsonBytes : 0,
    kwatchCache: { transform: strip.transform, heapBytes: strip.kwatchHeapBytes },
    clientGoCache: { transform: 'none', bytes: none.clientGoBytes },
    transforms: costs,
    largestObjects: [...objects].sort((a, b) => b.jsonBytes - a.jsonBytes || a.name.localeCompare(b.name)).slice(0, opts.top),
    largestNamespaces: namespaces(objects, objectJsonBytes).slice(0, opts.top),
    methods: METHODS,
  };
}

function transformCost(items: readonly KubeObject[], t: CacheTransform): TransformCost {
  let jsonBytes = 0;
  let clientGoBytes = 0;
  for (const o of items) {
    const held = t.apply(o);
    jsonBytes += jsonSize(held);
    clientGoBytes += goCachedObjectBytes(held as Record<string, unknown>, keyOf(o));
  }
  // Decoded from the text, as a cache gets them: objects that share nothing with `items`. Built once before
  // measuring, so that what V8 makes once per shape (hidden classes, internalized keys) is not charged to the
  // first transform measured; then the median of three measurements, as a GC's leftovers (a page not yet
  // swept, a cache V8 dropped) can move one of them by tens of kB.
  const fill = () => {
    const cache = new Map<string, KubeObject>();
    for (const o of items) cache.set(keyOf(o), t.apply(JSON.parse(JSON.stringify(o)) as KubeObject));
    return cache;
  };
  fill();
  const copies = copiesToMeasure(jsonBytes);
  const samples = [retainedHeapBytes(fill, copies), retainedHeapBytes(fill, copies), retainedHeapBytes(fill, copies)];
  const heap = samples.includes(undefined) ? undefined : (samples as number[]).sort((a, b) => a - b)[1];
  return { transform: t.name, upstream: t.upstream, jsonBytes, kwatchHeapBytes: heap ?? null, clientGoBytes, clientGoSaved: 0 };
}

function namespaces(objects: ObjectCost[], total: number): NamespaceCost[] {
  const by = new Map<string, NamespaceCost>();
  for (const o of objects) {
    if (o.namespace === undefined) continue;
    const ns = by.get(o.namespace) ?? { namespace: o.namespace, objects: 0, jsonBytes: 0, share: 0 };
    ns.objects++;
    ns.jsonBytes += o.jsonBytes;
    by.set(o.namespace, ns);
  }
  for (const ns of by.values()) ns.share = total > 0 ? ns.jsonBytes / total : 0;
  return [...by.values()].sort((a, b) => b.jsonBytes - a.jsonBytes || a.namespace.localeCompare(b.namespace));
}

function uniqueByName(ts: CacheTransform[]): CacheTransform[] {
  const seen = new Set<string>();
  return ts.filter((t) => !seen.has(t.name) && seen.add(t.name));
}

function keyOf(o: KubeObject): string {
  const m = o.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

function jsonSize(o: unknown): number {
  return Buffer.byteLength(JSON.stringify(o), 'utf8');
}

/** Enough copies of a small cache to weigh ~4 MB of JSON at once (at most 64), so a GC's leftovers stay a few percent. */
export function copiesToMeasure(jsonBytes: number): number {
  return Math.min(64, Math.max(1, Math.ceil(MEASURED_JSON_BYTES / Math.max(1, jsonBytes))));
}
const MEASURED_JSON_BYTES = 4 * 1024 * 1024;
