// End to end through the built CLI (run `npm run build` first): `kwatch cache-size` against an embedded server
// started here, its byte counts checked against the bodies that server serves for the same requests.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-e2e-cache-size-');
let sim: SimServer;
let env: Record<string, string>;

beforeAll(async () => {
  // A static cluster whose pods carry managedFields, as the workload writes them.
  sim = await startSimServer({ port: 0, pods: 40, churn: 0, seed: 4 });
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
});
afterAll(() => sim?.close());

/** The pages a client gets for `limit`, as raw bodies, fetched here and not through kwatch. */
async function servedPages(limit: number): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  let cont = '';
  do {
    const res = await fetch(`${sim.url}/api/v1/pods?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, { headers: { accept: 'application/json' } });
    const body = Buffer.from(await res.arrayBuffer());
    bodies.push(body);
    cont = JSON.parse(body.toString()).metadata.continue ?? '';
  } while (cont);
  return bodies;
}

describe('kwatch cache-size (built CLI)', () => {
  it('-o json: served bytes, object bytes and managedFields bytes are the bytes the server serves', async () => {
    const res = await kwatch(['cache-size', 'pods', '-A', '--page-size', '15', '-o', 'json'], env);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    const bodies = await servedPages(15);
    expect(report.pages).toBe(bodies.length);
    expect(report.servedBytes).toBe(bodies.reduce((n, b) => n + b.length, 0));
    let itemBytes = 0;
    let managedFields = 0;
    let objects = 0;
    for (const body of bodies) {
      const list = JSON.parse(body.toString());
      const items: Record<string, unknown>[] = list.items;
      objects += items.length;
      // The items re-encoded are their bytes in the body: envelope + items + commas = the body.
      const envelope = Buffer.byteLength(JSON.stringify({ ...list, items: [] }));
      const sizes = items.map((i) => Buffer.byteLength(JSON.stringify(i)));
      expect(envelope + sizes.reduce((a, b) => a + b, 0) + Math.max(0, items.length - 1)).toBe(body.length);
      for (const [i, item] of items.entries()) {
        expect(item.kind).toBeUndefined();
        // kwatch fills in the kind and apiVersion a typed list's items lack (as client-go's decoder does).
        itemBytes += sizes[i] + Buffer.byteLength(',"kind":"Pod","apiVersion":"v1"');
        const mf = (item.metadata as { managedFields?: unknown[] }).managedFields;
        expect(mf?.length).toBeGreaterThan(0);
        managedFields += Buffer.byteLength(`,"managedFields":${JSON.stringify(mf)}`);
      }
    }
    expect(report.objects).toBe(objects);
    expect(report.objectJsonBytes).toBe(itemBytes);
    expect(report.managedFieldsBytes).toBe(managedFields);
    expect(report.transforms.map((t: { transform: string }) => t.transform)).toEqual(['none', 'strip-managed-fields', 'metadata-only']);
    expect(report.kwatchCache.heapBytes).toBeGreaterThan(0);
    expect(report.methods.clientGo).toMatch(/^estimated: /);
    expect(report.methods.kwatchHeap).toMatch(/^measured: /);
  });

  it('the table says which numbers are measured and which estimated; -o ndjson is one record per row', async () => {
    const table = await kwatch(['cache-size', 'po', '-A', '--transform', 'fields=spec.nodeName', '--top', '2'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^pods in all namespaces: 40 objects in 1 page, resourceVersion \d+$/m);
    expect(table.stdout).toMatch(/│ kwatch cache \(V8, strip-managed-fields\) +│ +[\d.]+kB │ +[\d.]+kB │ measured +│/);
    expect(table.stdout).toMatch(/│ client-go cache \(Go, no transform\) +│ +[\d.]+[kM]B │ +[\d.]+kB │ estimated │/);
    expect(table.stdout).toMatch(/│ fields=spec\.nodeName +│/);
    expect(table.stdout).not.toMatch(/│ metadata-only/);
    expect(table.stdout).toMatch(/^client-go: estimated: Go 1\.24\+ heap/m);
    const nd = await kwatch(['cache-size', 'pods', '-A', '--top', '2', '-o', 'ndjson'], env);
    const records = nd.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((r) => r.record)).toEqual(['total', 'transform', 'transform', 'transform', 'object', 'object', 'namespace', 'namespace']);
    expect(records[0].objects).toBe(40);
  });

  it('an unknown transform or output is one line and exit 1', async () => {
    const bad = await kwatch(['cache-size', 'pods', '--transform', 'gzip'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('error: --transform gzip: use strip-managed-fields, metadata-only or fields=PATH,…');
    const out = await kwatch(['cache-size', 'pods', '-o', 'yaml'], env);
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toBe('error: --output yaml is not available for cache-size: use table, json or ndjson');
  });
});
