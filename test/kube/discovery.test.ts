import { readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiResourcesTable, listApiResources } from '../../src/kube/discovery/api-resources.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { safeHostDir } from '../../src/kube/discovery/discovery-cache.js';
import { DiscoveryClient } from '../../src/kube/discovery/discovery-client.js';
import { discoveryReport } from '../../src/kube/discovery/discovery-report.js';
import { explainResource, resolveResource, resolveResources } from '../../src/kube/discovery/resolve-resource.js';
import { UnknownResourceTypeError } from '../../src/kube/discovery/unknown-resource-error.js';
import { formatColumns } from '../../src/render/columns.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kubectl } from './kubectl.js';
import { tempDir } from '../temp-dir.js';

let sim: SimServer;
let conn: Connection;
let kubeconfig: string;
const root = tempDir('kwatch-disc-');
let n = 0;
const freshDir = () => join(root, `cache-${++n}`);

function crd(plural: string, kind: string, group = 'example.com') {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [`${plural.slice(0, 2)}x`] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

async function createCrd(plural: string, kind: string) {
  const res = await fetch(`${sim.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(crd(plural, kind)) });
  expect(res.status).toBe(201);
}

const discoveryRequests = (since: number) => sim.requests().slice(since).filter((r) => /^\/(api|apis)(\/|\?|$)/.test(r.url) && !/\/namespaces\//.test(r.url) && !r.url.includes('watch'));

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  kubeconfig = join(root, 'config');
  await sim.writeKubeconfig(kubeconfig);
  await createCrd('widgets', 'Widget');
  conn = connectionFromUrl(sim.url);
});
afterAll(async () => {
  await conn?.close();
  await sim?.close();
});

describe('the discovery cache shared with kubectl', () => {
  it('computes the host directory as cli-runtime does', () => {
    expect(safeHostDir('https://127.0.0.1:6443')).toBe('127.0.0.1_6443');
    expect(safeHostDir('https://my-api.example.com:443/k8s/c-1')).toBe('my_api.example.com_443/k8s/c_1');
    expect(safeHostDir('http://[::1]:8080')).toBe('___1__8080');
  });

  it('reads a cache written by kubectl as hits, with no discovery request', async () => {
    const cacheDir = freshDir();
    const k = await kubectl(['--kubeconfig', kubeconfig, 'api-resources'], { KUBECACHEDIR: cacheDir });
    expect(k.code).toBe(0);
    const before = sim.requests().length;
    const report = await discoveryReport(conn, { cacheDir });
    expect(report.mode).toBe('cache');
    expect(report.requests).toEqual([]);
    expect(discoveryRequests(before)).toEqual([]);
    expect(report.files.length).toBeGreaterThan(5);
    expect(report.files.every((f) => f.state === 'hit' && !f.written)).toBe(true);
    expect(report.fresh).toBe(false);
    const { rows } = await listApiResources(conn, { cacheDir, cached: true });
    const t = apiResourcesTable(rows, 'table');
    expect(formatColumns(t.headers, t.cells)).toBe(k.stdout);
  });

  it('writes a cache kubectl uses as is (kubectl api-resources --cached asks the server nothing)', async () => {
    const cacheDir = freshDir();
    const { rows } = await listApiResources(conn, { cacheDir });
    const t = apiResourcesTable(rows, 'wide');
    const ours = formatColumns(t.headers, t.cells);
    const before = sim.requests().length;
    const k = await kubectl(['--kubeconfig', kubeconfig, 'api-resources', '--cached', '-o', 'wide'], { KUBECACHEDIR: cacheDir });
    expect(k.stderr).toBe('');
    expect(k.stdout).toBe(ours);
    expect(discoveryRequests(before)).toEqual([]);
  });

  it('writes byte-identical files to kubectl, atomically with modes 0660 in 0750 directories', async () => {
    const a = freshDir();
    const b = freshDir();
    await kubectl(['--kubeconfig', kubeconfig, 'api-resources'], { KUBECACHEDIR: a });
    await new DiscoveryClient(conn, { cacheDir: b }).discover();
    const host = join('discovery', safeHostDir(sim.url));
    const files = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.json'))
        .sort();
    expect(files(join(b, host))).toEqual(files(join(a, host)));
    for (const f of files(join(a, host))) expect(readFileSync(join(b, host, f), 'utf8'), f).toBe(readFileSync(join(a, host, f), 'utf8'));
    expect(statSync(join(b, host, 'servergroups.json')).mode & 0o777).toBe(0o660);
    expect(statSync(join(b, host, 'apps')).mode & 0o777).toBe(0o750 & ~process.umask());
    expect(readdirSync(join(b, host)).some((f) => /servergroups\.json\.\d+/.test(f))).toBe(false);
  });

  it('re-fetches when the files are older than the TTL, and honours a shorter --discovery-ttl', async () => {
    const cacheDir = freshDir();
    await new DiscoveryClient(conn, { cacheDir }).discover();
    const groups = join(cacheDir, 'discovery', safeHostDir(sim.url), 'servergroups.json');
    const sevenHoursAgo = new Date(Date.now() - 7 * 3600_000);
    utimesSync(groups, sevenHoursAgo, sevenHoursAgo);
    const expired = await discoveryReport(conn, { cacheDir });
    expect(expired.files.find((f) => f.file === 'servergroups.json')).toMatchObject({ state: 'expired', written: true });
    expect(expired.mode).toBe('aggregated');
    const warm = await discoveryReport(conn, { cacheDir });
    expect(warm.mode).toBe('cache');
    const short = await discoveryReport(conn, { cacheDir, ttlMs: 0 });
    expect(short.files.find((f) => f.file === 'servergroups.json')?.state).toBe('expired');
  });

  it('--refresh invalidates first and fetches again', async () => {
    const cacheDir = freshDir();
    await new DiscoveryClient(conn, { cacheDir }).discover();
    const r = await discoveryReport(conn, { cacheDir, refresh: true });
    expect(r.invalidations).toEqual(['--refresh']);
    expect(r.files.find((f) => f.file === 'servergroups.json')).toMatchObject({ state: 'invalidated', written: true });
    expect(r.requests.map((q) => q.path).sort()).toEqual(['/api', '/apis']);
    expect(r.requests.every((q) => q.aggregated === 'v2' && q.etag)).toBe(true);
  });

  it('ignores a corrupt cache file with a warning and rewrites it', async () => {
    const cacheDir = freshDir();
    await new DiscoveryClient(conn, { cacheDir }).discover();
    const file = join(cacheDir, 'discovery', safeHostDir(sim.url), 'apps', 'v1', 'serverresources.json');
    writeFileSync(file, '{"kind":"APIResourceList","resour');
    const warnings: string[] = [];
    const r = await discoveryReport(conn, { cacheDir, warn: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/ignoring corrupt discovery cache file .*apps\/v1\/serverresources.json/);
    expect(r.files.find((f) => f.file === 'apps/v1/serverresources.json')).toMatchObject({ state: 'unreadable', written: true });
    expect(r.requests.map((q) => q.path)).toEqual(['/apis/apps/v1']);
    expect(JSON.parse(readFileSync(file, 'utf8')).groupVersion).toBe('apps/v1');
  });
});

describe('resolving resource names like kubectl', () => {
  it('resolves plural, singular, short names, kinds, resource.group and resource.version.group', async () => {
    const cacheDir = freshDir();
    const discovery = new DiscoveryClient(conn, { cacheDir });
    const r = (name: string) => resolveResource(conn, name, { discovery }).then((x) => `${x.resource}.${x.group}/${x.version} ${x.kind} ${x.namespaced}`);
    expect(await r('pods')).toBe('pods./v1 Pod true');
    expect(await r('po')).toBe('pods./v1 Pod true');
    expect(await r('pod')).toBe('pods./v1 Pod true');
    expect(await r('Pod')).toBe('pods./v1 Pod true');
    expect(await r('deploy')).toBe('deployments.apps/v1 Deployment true');
    expect(await r('Deployment.apps')).toBe('deployments.apps/v1 Deployment true');
    expect(await r('deployments.v1.apps')).toBe('deployments.apps/v1 Deployment true');
    expect(await r('no')).toBe('nodes./v1 Node false');
    expect(await r('leases')).toBe('leases.coordination.k8s.io/v1 Lease true');
    expect(await r('crd')).toMatch(/^customresourcedefinitions\.apiextensions\.k8s\.io\/v1 /);
    expect(await r('widgets.example.com')).toBe('widgets.example.com/v1 Widget true');
    expect(await r('wix')).toBe('widgets.example.com/v1 Widget true');
    expect(await r('ev')).toBe('events./v1 Event true');
  });

  it('expands categories (all) and comma lists', async () => {
    const discovery = new DiscoveryClient(conn, { cacheDir: freshDir() });
    const all = await resolveResources(conn, 'all', { discovery });
    expect(all.map((x) => x.resource)).toEqual(expect.arrayContaining(['pods', 'services', 'deployments', 'replicasets']));
    const two = await resolveResources(conn, 'po,deploy,pods', { discovery });
    expect(two.map((x) => x.resource)).toEqual(['pods', 'deployments']);
  });

  it('explains how a name resolved and from which entry', async () => {
    const cacheDir = freshDir();
    await new DiscoveryClient(conn, { cacheDir }).discover();
    const e = await explainResource(conn, 'deploy', { cacheDir });
    expect(e.steps.join('\n')).toMatch(/"deploy" is a short name of deployments\.apps \(apps\/v1 entry, cache apps\/v1\/serverresources.json\)/);
    expect(e.resources[0].source).toBe('cache apps/v1/serverresources.json');
  });

  it('a CRD created after the cache was written resolves on the first try', async () => {
    const cacheDir = freshDir();
    await new DiscoveryClient(conn, { cacheDir }).discover();
    await createCrd('gizmos', 'Gizmo');
    const e = await explainResource(conn, 'gizmos', { cacheDir });
    expect(e.resources[0]).toMatchObject({ group: 'example.com', version: 'v1', kind: 'Gizmo' });
    expect(e.steps[0]).toMatch(/invalidated the cache and fetched discovery again/);
    // and kubectl, reading the cache we rewrote, knows it too
    const k = await kubectl(['--kubeconfig', kubeconfig, 'api-resources', '--cached', '--api-group', 'example.com', '-o', 'name'], { KUBECACHEDIR: cacheDir });
    expect(k.stdout.split('\n')).toContain('gizmos.example.com');
  });

  it('fails with kubectl\'s wording after one re-fetch', async () => {
    const cacheDir = freshDir();
    await new DiscoveryClient(conn, { cacheDir }).discover();
    const discovery = new DiscoveryClient(conn, { cacheDir });
    const err = await resolveResource(conn, 'foo', { discovery }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownResourceTypeError);
    expect((err as Error).message).toBe('the server doesn\'t have a resource type "foo"');
    expect(discovery.events.filter((e) => e.type === 'invalidate')).toHaveLength(1);
  });
});

describe('revalidating aggregated discovery with its ETag', () => {
  it('asks again with If-None-Match, gets 304 and reuses the stored document; a changed document comes back whole', async () => {
    const cacheDir = freshDir();
    const fetchAll = async () => {
      const client = new DiscoveryClient(conn, { cacheDir });
      client.invalidate('test');
      const snap = await client.discover();
      const http = client.events.filter((e) => e.type === 'http' && (e.path === '/api' || e.path === '/apis'));
      return { snap, statuses: http.map((e) => (e.type === 'http' ? e.status : undefined)) };
    };
    const first = await fetchAll();
    expect(first.statuses).toEqual([200, 200]);
    const second = await fetchAll();
    expect(second.statuses).toEqual([304, 304]);
    expect(second.snap.mode).toBe('aggregated');
    expect([...second.snap.resources.keys()].sort()).toEqual([...first.snap.resources.keys()].sort());
    await createCrd('gadgets', 'Gadget');
    const third = await fetchAll();
    expect(third.statuses).toEqual([304, 200]);
    expect(third.snap.resources.get('example.com/v1')?.resources.map((r) => r.name)).toContain('gadgets');
  });
});
