// The human and line views of `kwatch cache-size`: what the cache costs, each transform's saving, the largest
// objects and namespaces, and how each number was obtained.
import type { CacheSizeReport } from '../kube/pipelines/cache-size.js';
import { formatBytes } from '../render/format-units.js';
import { reportTable } from '../render/report-table.js';

const pct = (f: number) => `${(f * 100).toFixed(f > 0 && f < 0.1 ? 1 : 0)}%`;
const heap = (n: number | null) => (n === null ? 'n/a' : formatBytes(n));
const perObject = (n: number | null, objects: number) => (n === null || objects === 0 ? '-' : formatBytes(n / objects));

/** The report as kwatch's boxed tables, with the method of every number spelled out under them. */
export function formatCacheSize(r: CacheSizeReport, what: string, opts: { color?: boolean } = {}): string {
  const color = opts.color;
  let out = `${what}: ${r.objects} object${r.objects === 1 ? '' : 's'} in ${r.pages} page${r.pages === 1 ? '' : 's'}, resourceVersion ${r.resourceVersion || '<none>'}\n`;
  out += reportTable(
    ['', 'BYTES', 'PER OBJECT', 'HOW'],
    [
      ['served (LIST bodies)', formatBytes(r.servedBytes), perObject(r.servedBytes, r.objects), 'measured'],
      ['objects as cached (JSON)', formatBytes(r.objectJsonBytes), perObject(r.objectJsonBytes, r.objects), 'measured'],
      ['  of which managedFields', `${formatBytes(r.managedFieldsBytes)} (${pct(r.managedFieldsShare)})`, perObject(r.managedFieldsBytes, r.objects), 'measured'],
      [`kwatch cache (V8, ${r.kwatchCache.transform})`, heap(r.kwatchCache.heapBytes), perObject(r.kwatchCache.heapBytes, r.objects), r.kwatchCache.heapBytes === null ? 'not measured: no GC could be forced' : 'measured'],
      ['client-go cache (Go, no transform)', formatBytes(r.clientGoCache.bytes), perObject(r.clientGoCache.bytes, r.objects), 'estimated'],
    ],
    { color, alignRight: [1, 2] },
  );
  out += reportTable(
    ['TRANSFORM', 'JSON', 'KWATCH HEAP', 'CLIENT-GO (EST.)', 'SAVES', 'UPSTREAM'],
    r.transforms.map((t) => [t.transform, formatBytes(t.jsonBytes), heap(t.kwatchHeapBytes), formatBytes(t.clientGoBytes), t.transform === 'none' ? '-' : pct(t.clientGoSaved), t.upstream]),
    { color, alignRight: [1, 2, 3, 4] },
  );
  if (r.largestObjects.length > 0) {
    out += reportTable(
      ['LARGEST OBJECTS', 'JSON', 'MANAGEDFIELDS', 'CLIENT-GO (EST.)'],
      r.largestObjects.map((o) => [o.namespace ? `${o.namespace}/${o.name}` : o.name, formatBytes(o.jsonBytes), formatBytes(o.managedFieldsBytes), formatBytes(o.clientGoBytes)]),
      { color, alignRight: [1, 2, 3] },
    );
  }
  if (r.largestNamespaces.length > 0) {
    out += reportTable(
      ['LARGEST NAMESPACES', 'OBJECTS', 'JSON', 'SHARE'],
      r.largestNamespaces.map((n) => [n.namespace, String(n.objects), formatBytes(n.jsonBytes), pct(n.share)]),
      { color, alignRight: [1, 2, 3] },
    );
  }
  out += `served: ${r.methods.served}\nJSON: ${r.methods.objectJson}\nkwatch heap: ${r.methods.kwatchHeap}\nclient-go: ${r.methods.clientGo}\n`;
  return out;
}

/** -o ndjson: one line per row — a "total", then each "transform", "object" and "namespace" (a contract: add, never rename). */
export function cacheSizeLines(r: CacheSizeReport): string {
  const { transforms, largestObjects, largestNamespaces, ...total } = r;
  const lines: object[] = [
    { record: 'total', ...total },
    ...transforms.map((t) => ({ record: 'transform', ...t })),
    ...largestObjects.map((o) => ({ record: 'object', ...o })),
    ...largestNamespaces.map((n) => ({ record: 'namespace', ...n })),
  ];
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}
