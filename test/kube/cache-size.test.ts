// measureCacheSize over an in-memory server: what the report counts, and that its measured heap moves the
// way each transform should move it.
import { describe, expect, it } from 'vitest';
import { keepFields, METADATA_ONLY } from '../../src/informer/cache-transforms.js';
import type { KubeObject, ListerWatcher, ListPage } from '../../src/informer/types.js';
import { copiesToMeasure, measureCacheSize } from '../../src/kube/pipelines/cache-size.js';
import { retainedHeapBytes } from '../../src/kube/pipelines/retained-heap.js';

const managedFields = (n: number) => Array.from({ length: n }, (_, i) => ({ manager: `m${i}`, operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { [`f:l${i}`]: {} } } } }));
const pod = (ns: string, name: string, mf: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, uid: `uid-${name}`, resourceVersion: '5', labels: { app: name }, managedFields: managedFields(mf) },
  spec: { nodeName: `node-${name.length}`, containers: [{ name: 'c', image: 'nginx:1.27' }] },
  status: { phase: 'Running' },
});

/** Serves `items` in pages of `limit`, each page's bytes the length of its JSON (as a server would send it). */
function server(items: KubeObject[]): ListerWatcher {
  return {
    async list(o) {
      const from = o.continue ? Number(o.continue) : 0;
      const limit = o.limit ?? items.length;
      const slice = items.slice(from, from + limit);
      const more = from + limit < items.length;
      const page: ListPage = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9', ...(more ? { continue: String(from + limit) } : {}) }, items: slice };
      page.bytes = Buffer.byteLength(JSON.stringify(page));
      return page;
    },
    async watch() {
      throw new Error('not used');
    },
  };
}

describe('measureCacheSize', () => {
  const items = [
    ...Array.from({ length: 150 }, (_, i) => pod('big', `p-${i}`, 12)),
    ...Array.from({ length: 50 }, (_, i) => pod('small', `q-${i}`, 1)),
    pod('small', 'the-largest-one-by-far', 60),
  ];

  it('pages through the list and counts served bytes, objects, managedFields and namespaces exactly', async () => {
    const r = await measureCacheSize(server(items), { pageSize: 40, transforms: [METADATA_ONLY], top: 2 });
    expect(r.pages).toBe(6);
    expect(r.objects).toBe(201);
    expect(r.resourceVersion).toBe('9');
    const pageBytes = [0, 40, 80, 120, 160, 200].map((from) => {
      const slice = items.slice(from, from + 40);
      return Buffer.byteLength(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9', ...(from + 40 < 201 ? { continue: String(from + 40) } : {}) }, items: slice }));
    });
    expect(r.servedBytes).toBe(pageBytes.reduce((a, b) => a + b));
    const json = items.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
    expect(r.objectJsonBytes).toBe(json);
    const mf = items.reduce((n, o) => n + Buffer.byteLength(`,"managedFields":${JSON.stringify(o.metadata.managedFields)}`), 0);
    expect(r.managedFieldsBytes).toBe(mf);
    expect(r.managedFieldsShare).toBeCloseTo(mf / json, 6);
    expect(r.transforms.map((t) => t.transform)).toEqual(['none', 'strip-managed-fields', 'metadata-only']);
    expect(r.largestObjects.map((o) => o.name)).toEqual(['the-largest-one-by-far', expect.stringMatching(/^p-/)]);
    expect(r.largestNamespaces.map((n) => [n.namespace, n.objects])).toEqual([['big', 150], ['small', 51]]);
    expect(r.clientGoCache.bytes).toBe(r.transforms[0].clientGoBytes);
  });

  it('each transform holds less than none, measured in the V8 heap and estimated for Go; fields= least of all', async () => {
    const r = await measureCacheSize(server(items), { pageSize: 0, transforms: [METADATA_ONLY, keepFields([['spec', 'nodeName']])], top: 5 });
    const [none, strip, meta, fields] = r.transforms;
    expect(strip.transform).toBe('strip-managed-fields');
    expect(r.kwatchCache).toEqual({ transform: 'strip-managed-fields', heapBytes: strip.kwatchHeapBytes });
    for (const t of [none, strip, meta, fields]) expect(t.kwatchHeapBytes).toBeGreaterThan(0);
    // managedFields are most of these objects: stripping them must show in the measured heap, not just the JSON.
    expect(strip.kwatchHeapBytes!).toBeLessThan(none.kwatchHeapBytes! * 0.7);
    expect(fields.kwatchHeapBytes!).toBeLessThan(strip.kwatchHeapBytes!);
    expect(strip.jsonBytes).toBe(r.objectJsonBytes - r.managedFieldsBytes);
    for (const t of [strip, meta, fields]) {
      expect(t.clientGoBytes).toBeLessThan(none.clientGoBytes);
      expect(t.clientGoSaved).toBeCloseTo(1 - t.clientGoBytes / none.clientGoBytes, 9);
    }
    expect(fields.clientGoSaved).toBeGreaterThan(strip.clientGoSaved);
  });
});

describe('retainedHeapBytes on a small structure', () => {
  // ~20 kB of objects: one GC's leftovers (tens of kB) used to be the whole reading (0 B once in CI). Held as many
  // copies at once, a per-copy figure comes out, and it scales with the structure.
  const small = (n: number) => () => new Map(Array.from({ length: n }, (_, i) => [`k${i}`, { name: `n-${i}`, phase: 'Running', node: `node-${i % 7}` }]));
  it('weighs it above 0 and in proportion to its size', () => {
    const one = retainedHeapBytes(small(200), copiesToMeasure(20_000))!;
    const ten = retainedHeapBytes(small(2000), copiesToMeasure(200_000))!;
    expect(copiesToMeasure(20_000)).toBe(64);
    expect(copiesToMeasure(50 * 1024 * 1024)).toBe(1);
    expect(one).toBeGreaterThan(0);
    expect(ten / one).toBeGreaterThan(7);
    expect(ten / one).toBeLessThan(13);
  });
});
