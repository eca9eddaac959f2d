// Under --writes overlay, discovery documents gain the kinds of CRDs the controller created in the fork (the target
// lacks them): in /apis (legacy and aggregated), /apis/G and /apis/G/V, each added once, with the target's own kept;
// where the target has no such group or version, the fork answers. Other requests are left to the forwarder.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveForkDiscovery } from '../../src/endpoint/fork-discovery.js';
import type { Fork } from '../../src/endpoint/fork.js';
import type { Connection, HttpRequest } from '../../src/kube/http/connection.js';
import type { ResourceType } from '../../src/sim/registry.js';

const kind = (group: string, version: string, resource: string, k: string): ResourceType => ({
  group, version, resource, singular: resource.slice(0, -1), kind: k, listKind: `${k}List`, namespaced: true, verbs: ['get', 'list'], subresources: [], hasStatusSubresource: false, crd: `${resource}.${group}`,
});
const LOCAL = [kind('local.example.com', 'v1', 'things', 'Thing'), kind('local.example.com', 'v2', 'things', 'Thing'), kind('shared.example.com', 'v1', 'bits', 'Bit')];

const fork = {
  localKinds: () => LOCAL,
  localGroups: () => [{ name: 'local.example.com', versions: ['v2', 'v1'] }, { name: 'shared.example.com', versions: ['v1'] }],
  serve: (_req: IncomingMessage, res: import('node:http').ServerResponse) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"from":"fork"}'); },
} as unknown as Fork;

function upstream(status: number, doc: unknown, headers: Record<string, string> = { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }) {
  const asked: HttpRequest[] = [];
  const conn = { request: async (r: HttpRequest) => { asked.push(r); return { status, headers, body: { text: async () => (typeof doc === 'string' ? doc : JSON.stringify(doc)) } }; } } as unknown as Connection;
  return { conn, asked };
}

let server: Server | undefined;
afterEach(async () => { await new Promise<void>((r) => (server ? server.close(() => r()) : r())); server = undefined; });

/** One request through serveForkDiscovery; a request it leaves alone is answered 299 'passed'. */
async function ask(t: { conn: Connection }, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage['headers']; body: unknown }> {
  server = createServer((req, res) => {
    void serveForkDiscovery(fork, t.conn, req, res, new URL(req.url ?? '/', 'http://x').pathname).then((served) => { if (!served) { res.writeHead(299); res.end('"passed"'); } });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveForkDiscovery', () => {
  it('adds the fork\'s groups to /apis, and its versions to a group the target has, each once; no ETag, no caching', async () => {
    const t = upstream(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }] },
      { name: 'shared.example.com', versions: [{ groupVersion: 'shared.example.com/v1', version: 'v1' }, { groupVersion: 'shared.example.com/v0', version: 'v0' }] },
    ] }, { 'content-type': 'application/json', etag: '"target"' });
    const got = await ask(t, '/apis?x=1', 'GET', { 'if-none-match': '"old"', authorization: 'Bearer client', 'x-keep': 'k' });
    expect(got.status).toBe(200);
    expect(got.headers).toMatchObject({ 'content-type': 'application/json', vary: 'Accept', 'cache-control': 'no-cache, private' });
    expect(got.headers.etag).toBeUndefined();
    expect(got.body).toEqual({ kind: 'APIGroupList', apiVersion: 'v1', groups: [
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }] },
      { name: 'shared.example.com', versions: [{ groupVersion: 'shared.example.com/v1', version: 'v1' }, { groupVersion: 'shared.example.com/v0', version: 'v0' }] },
      { name: 'local.example.com', versions: [{ groupVersion: 'local.example.com/v2', version: 'v2' }, { groupVersion: 'local.example.com/v1', version: 'v1' }], preferredVersion: { groupVersion: 'local.example.com/v2', version: 'v2' } },
    ] });
    // The client's path and headers, but not If-None-Match (a 304 would keep a document without the fork's kinds).
    expect(t.asked).toHaveLength(1);
    expect(t.asked[0].path).toBe('/apis?x=1');
    expect(t.asked[0].headers).toMatchObject({ 'x-keep': 'k' });
    expect(t.asked[0].headers).not.toHaveProperty('if-none-match');
    expect(t.asked[0].headers).not.toHaveProperty('authorization');
    expect(t.asked[0].allowErrorStatus).toBe(true);
  });

  it('adds a group, its versions and their resources to the aggregated /apis, keeping what the target has', async () => {
    const existing = { resource: 'bits', responseKind: { group: 'shared.example.com', version: 'v1', kind: 'Bit' }, scope: 'Namespaced', singularResource: 'bit', verbs: ['get'] };
    const t = upstream(200, { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', items: [
      { metadata: { name: 'shared.example.com' }, versions: [{ version: 'v1', resources: [existing], freshness: 'Current' }] },
    ] });
    const got = await ask(t, '/apis');
    const items = (got.body as { items: { metadata: { name: string }; versions: { version: string; resources: { resource: string }[] }[] }[] }).items;
    expect(got.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(items.map((i) => [i.metadata.name, i.versions.map((v) => [v.version, v.resources.map((r) => r.resource)])])).toEqual([
      ['shared.example.com', [['v1', ['bits']]]],
      ['local.example.com', [['v2', ['things']], ['v1', ['things']]]],
    ]);
    expect(items[0].versions[0].resources[0]).toEqual(existing);
    expect(items[1].versions[0]).toMatchObject({ version: 'v2', freshness: 'Current', resources: [{ resource: 'things', responseKind: { group: 'local.example.com', version: 'v2', kind: 'Thing' }, scope: 'Namespaced' }] });
    // A group the target lists with another version only: the fork's version is added beside it.
    const other = upstream(200, { kind: 'APIGroupDiscoveryList', items: [{ metadata: { name: 'local.example.com' }, versions: [{ version: 'v9', resources: [] }] }, { metadata: { name: 'shared.example.com' } }] });
    const merged = (await ask(other, '/apis')).body as { items: { metadata: { name: string }; versions: { version: string; resources: unknown[] }[] }[] };
    expect(merged.items.map((i) => [i.metadata.name, i.versions.map((v) => `${v.version}:${v.resources.length}`)])).toEqual([['local.example.com', ['v9:0', 'v2:1', 'v1:1']], ['shared.example.com', ['v1:1']]]);
  });

  it('adds the fork\'s versions to /apis/G and its resources to /apis/G/V, once', async () => {
    const group = await ask(upstream(200, { kind: 'APIGroup', name: 'local.example.com', versions: [{ groupVersion: 'local.example.com/v1', version: 'v1' }] }), '/apis/local.example.com');
    expect((group.body as { versions: unknown[] }).versions).toEqual([{ groupVersion: 'local.example.com/v1', version: 'v1' }, { groupVersion: 'local.example.com/v2', version: 'v2' }]);
    const versionDoc = await ask(upstream(200, { kind: 'APIResourceList', groupVersion: 'local.example.com/v1', resources: [{ name: 'others', kind: 'Other' }] }), '/apis/local.example.com/v1');
    expect((versionDoc.body as { resources: { name: string }[] }).resources.map((r) => r.name)).toEqual(['others', 'things']);
    const already = await ask(upstream(200, { kind: 'APIResourceList', resources: [{ name: 'things', kind: 'Thing' }] }), '/apis/local.example.com/v1');
    expect((already.body as { resources: { name: string }[] }).resources).toEqual([{ name: 'things', kind: 'Thing' }]);
  });

  it('lets the fork answer a group or version the target does not have', async () => {
    expect((await ask(upstream(404, { kind: 'Status' }), '/apis/local.example.com/v2')).body).toEqual({ from: 'fork' });
    expect((await ask(upstream(404, { kind: 'Status' }), '/apis/local.example.com')).body).toEqual({ from: 'fork' });
    // /apis itself always exists on a target: its 404 is passed on as it is.
    expect((await ask(upstream(404, { kind: 'Status' }), '/apis')).status).toBe(299);
  });

  it('leaves alone what the fork\'s kinds do not change, and what it cannot read', async () => {
    const t = upstream(200, { kind: 'APIGroupList', groups: [] });
    for (const [path, method] of [['/apis', 'POST'], ['/api', 'GET'], ['/api/v1', 'GET'], ['/apis/local.example.com/v1/things', 'GET'], ['/apis/apps', 'GET'], ['/apis/local.example.com/v3', 'GET'], ['/version', 'GET']]) {
      expect((await ask(t, path, method)).status, `${method} ${path}`).toBe(299);
    }
    expect(t.asked).toEqual([]);
    for (const doc of ['not json', { kind: 'APIGroupList' }, { kind: 'APIGroupDiscoveryList', items: {} }, { kind: 'APIResourceList' }, { kind: 'Status' }, {}]) {
      expect((await ask(upstream(200, doc), '/apis/local.example.com/v1')).status, JSON.stringify(doc)).toBe(299);
    }
    expect((await ask(upstream(200, { kind: 'APIGroupList' }), '/apis')).status).toBe(299);
    expect((await ask(upstream(500, { kind: 'APIGroupList', groups: [] }), '/apis')).status).toBe(299);
  });
});
