// The discovery cache of an in-process server (--sim) kept in memory: the same reads, writes, ages, invalidations and
// ETag revalidations as the disk cache, within one run, with nothing written to disk; --cache-dir still writes there.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { safeHostDir } from '../../src/kube/discovery/discovery-cache.js';
import { DiscoveryClient } from '../../src/kube/discovery/discovery-client.js';
import { discoveryReport } from '../../src/kube/discovery/discovery-report.js';
import { MEMORY_STORE_ROOT, MemoryDiscoveryStore } from '../../src/kube/discovery/discovery-store.js';
import { explainResource, resolveResource } from '../../src/kube/discovery/resolve-resource.js';
import { UnknownResourceTypeError } from '../../src/kube/discovery/unknown-resource-error.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { tempDir } from '../temp-dir.js';

let sim: SimServer;
const root = tempDir('kwatch-disc-mem-');
const conns: Connection[] = [];
let clockMs = Date.now();

/** A connection whose discovery cache lives in a memory store of its own, on a clock the test moves. */
function memoryConnection(): { conn: Connection; store: MemoryDiscoveryStore } {
  const store = new MemoryDiscoveryStore(() => clockMs);
  const conn = connectionFromUrl(sim.url, { discoveryStore: store });
  conns.push(conn);
  return { conn, store };
}

const client = (conn: Connection) => new DiscoveryClient(conn, { now: () => clockMs });
/** Where a memory store keeps the sim's discovery files, and kwatch's ETags of them (the disk layout, under its root). */
const inMemory = () => join(MEMORY_STORE_ROOT, 'discovery', safeHostDir(sim.url));
const etagsInMemory = () => join(MEMORY_STORE_ROOT, 'kwatch', 'etags', safeHostDir(sim.url));

async function createCrd(plural: string, kind: string) {
  const body = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.mem.example.com` },
    spec: {
      group: 'mem.example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [`${plural.slice(0, 2)}m`] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  const res = await fetch(`${sim.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  // Where a disk cache would go: it must never appear.
  process.env.KUBECACHEDIR = join(root, 'kube-cache');
});
afterAll(async () => {
  for (const c of conns) await c.close();
  await sim?.close();
});

describe('a discovery cache in memory', () => {
  it('is written and read as the disk cache is, and nothing reaches the disk', async () => {
    const { conn, store } = memoryConnection();
    const cold = await discoveryReport(conn, {});
    expect(cold.mode).toBe('aggregated');
    expect(cold.requests.map((r) => r.path).sort()).toEqual(['/api', '/apis']);
    expect(cold.files.find((f) => f.file === 'servergroups.json')).toMatchObject({ state: 'miss', written: true });
    expect(cold.files.find((f) => f.file === 'apps/v1/serverresources.json')).toMatchObject({ state: 'miss', written: true });
    // Every file the report says was written is in the store, and the ETag of /apis beside them.
    const written = cold.files.filter((f) => f.written);
    expect(written.map((f) => f.file)).toContain('servergroups.json');
    for (const f of written) expect(store.read(join(inMemory(), f.file)), f.file).toBeDefined();
    expect(store.read(join(etagsInMemory(), '_apis.json'))).toBeDefined();

    // A second client of the same run reads what the first wrote: hits, no request, not fresh (as another process's files).
    const warm = await discoveryReport(conn, {});
    expect(warm.mode).toBe('cache');
    expect(warm.requests).toEqual([]);
    expect(warm.fresh).toBe(false);
    expect(warm.files.every((f) => f.state === 'hit' && !f.written)).toBe(true);
    expect(existsSync(join(root, 'kube-cache'))).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });

  it('ages by its own clock: past the TTL the files are expired and fetched again, revalidated by ETag (304)', async () => {
    const { conn } = memoryConnection();
    await client(conn).discover();
    clockMs += 7 * 3600_000;
    const expired = client(conn);
    const snap = await expired.discover();
    expect(snap.mode).toBe('aggregated');
    expect(expired.events.find((e) => e.type === 'cache-read' && e.file === 'servergroups.json')).toMatchObject({ state: 'expired' });
    expect(expired.events.filter((e) => e.type === 'http').map((e) => (e.type === 'http' ? e.status : 0))).toEqual([304, 304]);
    const warm = client(conn);
    expect((await warm.discover()).mode).toBe('cache');
  });

  it('a CRD created after the cache was written resolves on the first try; a name nobody serves fails after one re-fetch', async () => {
    const { conn } = memoryConnection();
    await client(conn).discover();
    await createCrd('sprockets', 'Sprocket');
    const e = await explainResource(conn, 'spm', {});
    expect(e.resources[0]).toMatchObject({ group: 'mem.example.com', version: 'v1', kind: 'Sprocket' });
    expect(e.steps[0]).toMatch(/invalidated the cache and fetched discovery again/);
    const discovery = client(conn);
    const err = await resolveResource(conn, 'nosuchthing', { discovery }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(UnknownResourceTypeError);
    expect(discovery.events.filter((x) => x.type === 'invalidate')).toHaveLength(1);
  });

  it('--refresh invalidates it first', async () => {
    const { conn } = memoryConnection();
    await client(conn).discover();
    const r = await discoveryReport(conn, { refresh: true });
    expect(r.invalidations).toEqual(['--refresh']);
    expect(r.files.find((f) => f.file === 'servergroups.json')).toMatchObject({ state: 'invalidated', written: true });
  });

  it('--cache-dir puts it on disk even for a connection that keeps it in memory', async () => {
    const { conn, store } = memoryConnection();
    const cacheDir = join(root, 'asked-for');
    const r = await discoveryReport(conn, { cacheDir });
    expect(r.cacheRoot).toBe(cacheDir);
    expect(readdirSync(join(cacheDir, 'discovery', safeHostDir(sim.url)))).toContain('servergroups.json');
    // None of the files the run wrote, nor the ETags of /api and /apis, went to the memory store.
    expect(r.files.filter((f) => f.written).length).toBeGreaterThan(0);
    for (const f of r.files) expect(store.read(join(inMemory(), f.file)), f.file).toBeUndefined();
    for (const file of ['_api.json', '_apis.json']) expect(store.read(join(etagsInMemory(), file)), file).toBeUndefined();
  });
});
