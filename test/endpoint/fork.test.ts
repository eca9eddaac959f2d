// The overlay's fork on its own (endpoint.test.ts drives it through the endpoint): what it says the controller changed,
// which kinds it mirrors (--mirror-resources), and the 503s it answers when the target does not let it mirror.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Fork } from '../../src/endpoint/fork.js';
import { requestInfo } from '../../src/endpoint/request-info.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { ApiStatusError } from '../../src/wire/api-status.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const SECRET = { group: '', version: 'v1', resource: 'secrets' };

let sim: SimServer;
let upstream: Connection;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0, controllers: false });
  upstream = connectionFromUrl(sim.url);
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

/** A fork in front of `target`, served over HTTP as the endpoint serves it: each request's kind made servable first. */
async function served(target: Connection, more: { only?: string[]; syncTimeoutMs?: number } = {}) {
  const notices: string[] = [];
  const fork = new Fork({ upstream: target, tracer: new Tracer(), maxObjects: 10_000, notice: (l) => notices.push(l), only: more.only && new Set(more.only), syncTimeoutMs: more.syncTimeoutMs });
  const server = createServer((req, res) => {
    const info = requestInfo(req.method ?? 'GET', req.url ?? '/');
    fork.ensure(info).then(() => fork.serve(req, res), (e: unknown) => {
      const status = e instanceof ApiStatusError ? e.status : { code: 500, message: String(e) };
      res.writeHead(status.code ?? 500, { 'content-type': 'application/json' }).end(JSON.stringify(status));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => { fork.close(); server.closeAllConnections(); server.close(() => r()); }));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (path: string, method = 'GET', body?: unknown, type = 'application/json') => {
    const res = await fetch(`${url}${path}`, { method, headers: { 'Content-Type': type }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { items?: { metadata: { name: string } }[]; message?: string; data?: Record<string, string> } };
  };
  return { fork, notices, call };
}

describe('Fork: what the controller changed', () => {
  it('an object created and then changed here is "created"; created and deleted here, nothing; the target\'s objects "updated" or "deleted", in the order first changed', async () => {
    sim.api.create(CM, { metadata: { name: 'upd', namespace: 'default' }, data: { v: '1' } });
    sim.api.create(CM, { metadata: { name: 'del', namespace: 'default' }, data: { v: '1' } });
    const { fork, call } = await served(upstream);
    expect(names((await call('/api/v1/namespaces/default/configmaps')).body)).toEqual(expect.arrayContaining(['upd', 'del']));
    const mirrored = fork.objects;
    expect(mirrored).toBeGreaterThanOrEqual(3); // the namespaces and the two
    expect((await call('/api/v1/namespaces/default/configmaps', 'POST', { metadata: { name: 'local' }, data: { v: '1' } })).status).toBe(201);
    expect((await call('/api/v1/namespaces/default/configmaps/upd', 'PATCH', { data: { v: '2' } }, 'application/merge-patch+json')).status).toBe(200);
    expect((await call('/api/v1/namespaces/default/configmaps/local', 'PATCH', { data: { v: '2' } }, 'application/merge-patch+json')).status).toBe(200);
    expect((await call('/api/v1/namespaces/default/configmaps/del', 'DELETE')).status).toBe(200);
    expect(fork.divergences()).toEqual([
      { resource: 'configmaps', key: 'default/local', change: 'created', conflicts: 0 },
      { resource: 'configmaps', key: 'default/upd', change: 'updated', conflicts: 0 },
      { resource: 'configmaps', key: 'default/del', change: 'deleted', conflicts: 0 },
    ]);
    expect((await call('/api/v1/namespaces/default/configmaps/local', 'DELETE')).status).toBe(200);
    expect(fork.divergences().map((d) => d.key)).toEqual(['default/upd', 'default/del']);
    // The controller's own writes are not mirrored objects.
    expect(fork.objects).toBe(mirrored);
    // The target's write to an object changed here is a conflict, kept out; the controller's version stays.
    sim.api.update(CM, { ...sim.api.get(CM, 'default', 'upd')!, data: { v: 'target' } });
    await until(() => fork.divergences()[0].conflicts === 1);
    expect((await call('/api/v1/namespaces/default/configmaps/upd')).body.data).toEqual({ v: '2' });
    sim.api.delete(CM, 'default', 'upd');
    sim.api.delete(CM, 'default', 'del');
  });
});

describe('Fork: writes answered as kube answers them', () => {
  it('a pod created in the fork reads back its quantities in canonical form (the sim\'s write handlers serve the fork)', async () => {
    const { call } = await served(upstream);
    const pod = { metadata: { name: 'q' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1000m', memory: '1.5Gi' } } }] } };
    const created = await call('/api/v1/namespaces/default/pods', 'POST', pod);
    expect(created.status).toBe(201);
    const read = (await call('/api/v1/namespaces/default/pods/q')).body as unknown as { spec: { containers: { resources: unknown }[] } };
    expect(read.spec.containers[0].resources).toEqual({ requests: { cpu: '1', memory: '1536Mi' } });
    expect((await call('/api/v1/namespaces/default/pods/q', 'DELETE')).status).toBe(200);
  });

  it('a create whose slashes are escaped is stored in the fork, as the cluster (here a sim) stores it: kube routes on the decoded path', async () => {
    const { fork, call } = await served(upstream);
    const path = '/api/v1%2Fnamespaces%2Fdefault%2Fconfigmaps';
    expect((await call(path, 'POST', { metadata: { name: 'escaped-fork' } })).status).toBe(201);
    expect(fork.divergences()).toContainEqual({ resource: 'configmaps', key: 'default/escaped-fork', change: 'created', conflicts: 0 });
    // The cluster answers the same request the same way.
    const direct = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'escaped-cluster' } }) });
    expect(direct.status).toBe(201);
    expect(sim.api.get(CM, 'default', 'escaped-cluster')).toBeDefined();
    sim.api.delete(CM, 'default', 'escaped-cluster');
  });
});

describe('Fork: --mirror-resources', () => {
  it('mirrors only the named kinds (and namespaces); another kind is served from what is written to it, with one line saying so', async () => {
    sim.api.create(SECRET, { metadata: { name: 'on-target', namespace: 'default' }, data: {} });
    sim.api.create(CM, { metadata: { name: 'on-target', namespace: 'default' }, data: {} });
    const { call, notices } = await served(upstream, { only: ['configmaps'] });
    expect(names((await call('/api/v1/namespaces/default/configmaps')).body)).toContain('on-target');
    expect(names((await call('/api/v1/namespaces/default/secrets')).body)).toEqual([]);
    expect((await call('/api/v1/namespaces/default/secrets/on-target')).status).toBe(404);
    expect(notices).toEqual(['kwatch: secrets is not mirrored (--mirror-resources): the fork serves only what is written to it locally']);
    expect((await call('/api/v1/namespaces/default/secrets', 'POST', { metadata: { name: 'local' }, data: {} })).status).toBe(201);
    expect(names((await call('/api/v1/namespaces/default/secrets')).body)).toEqual(['local']);
    sim.api.delete(SECRET, 'default', 'on-target');
    sim.api.delete(CM, 'default', 'on-target');
  });
});

/** A stand-in target: `answer` says what each path gets; a watch is held open. */
async function standIn(answer: (path: string) => { status: number; body?: unknown } | 'hang'): Promise<{ target: Connection; asked: string[] }> {
  const asked: string[] = [];
  const open: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    asked.push(path);
    const a = answer(path);
    if (a === 'hang') { open.push(res); return; }
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body ?? { kind: 'Status', code: a.status }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const target = connectionFromUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  cleanups.push(async () => { await target.close(); server.closeAllConnections(); await new Promise((r) => server.close(r)); });
  return { target, asked };
}
const emptyList = (kind: string) => ({ kind, apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] });

describe('Fork: a target that does not let it mirror', () => {
  it('answers 503 (retry after 5 s) when the target does not list the kind in time', async () => {
    // Namespaces, listed across the cluster (no namespace to ask about first).
    const { target } = await standIn(() => 'hang');
    const { call } = await served(target, { syncTimeoutMs: 300 });
    const r = await call('/api/v1/namespaces');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ reason: 'ServiceUnavailable', message: 'kwatch fork: the target did not list namespaces within 0s', details: { retryAfterSeconds: 5 } });
  });

  it('with credentials for one namespace: reads that namespace alone, lists the kind in it, and says 503 when the namespace cannot be read', async () => {
    const { target, asked } = await standIn((path) => {
      if (path.endsWith('?limit=1')) return { status: 403 };
      if (path === '/api/v1/namespaces/demo') return { status: 200, body: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'demo', resourceVersion: '3' } } };
      if (path === '/api/v1/namespaces/missing') return { status: 404 };
      if (path === '/api/v1/namespaces/broken') return { status: 500 };
      if (path.startsWith('/api/v1/namespaces/demo/configmaps') || path.startsWith('/api/v1/namespaces/missing/configmaps')) return path.includes('watch=') ? 'hang' : { status: 200, body: emptyList('ConfigMapList') };
      return { status: 404 };
    });
    const { call, fork } = await served(target);
    expect((await call('/api/v1/namespaces/demo/configmaps')).status).toBe(200);
    // The namespace object copied into the fork (the sim's handlers refuse writes into a namespace they lack).
    expect(fork.store.registry.lookup('', 'v1', 'namespaces')).toBeDefined();
    expect((await call('/api/v1/namespaces/demo/configmaps', 'POST', { metadata: { name: 'local' }, data: {} })).status).toBe(201);
    // Asked once each: a kind or namespace mirrored is not asked again.
    expect((await call('/api/v1/namespaces/demo/configmaps')).status).toBe(200);
    expect(asked.filter((p) => p === '/api/v1/namespaces/demo')).toHaveLength(1);
    expect(asked.filter((p) => p === '/api/v1/configmaps?limit=1')).toHaveLength(1);
    // A namespace the target does not have: nothing to copy, and nothing wrong.
    expect((await call('/api/v1/namespaces/missing/configmaps')).status).toBe(200);
    expect((await call('/api/v1/namespaces/missing/configmaps', 'POST', { metadata: { name: 'local' }, data: {} })).status).toBe(404);
    const broken = await call('/api/v1/namespaces/broken/configmaps');
    expect(broken.status).toBe(503);
    expect(broken.body.message).toBe('kwatch fork: the target answered 500 for namespace broken');
  });

  it('with credentials for one namespace: a GET of that namespace object is served from its copy, not a list of all namespaces', async () => {
    const { target, asked } = await standIn((path) => {
      if (path.endsWith('?limit=1')) return { status: 403 };
      if (path === '/api/v1/namespaces/demo') return { status: 200, body: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'demo', resourceVersion: '3' } } };
      // A list or watch of every namespace never answers (as a target that refuses would, after its timeout).
      return path.startsWith('/api/v1/namespaces?') ? 'hang' : { status: 404 };
    });
    const { call } = await served(target, { syncTimeoutMs: 5_000 });
    const r = await call('/api/v1/namespaces/demo');
    expect(r.status).toBe(200);
    expect((r.body as { metadata?: { name?: string } }).metadata?.name).toBe('demo');
    expect(asked.some((p) => p.startsWith('/api/v1/namespaces?') && !p.endsWith('limit=1'))).toBe(false);
  });
});

const names = (body: { items?: { metadata: { name: string } }[] }) => (body.items ?? []).map((i) => i.metadata.name);
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) throw new Error('timed out waiting');
}
