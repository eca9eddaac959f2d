// `reconcile --exec --expect`: the object an expectation names is read from the target (apply, intercept,
// server-dry-run) or from the fork (overlay). Against a stand-in target that logs each path it is asked (the request a
// wrong path or scope would make is visible), and the sim behind a fork.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpectedKindError, readExpectedObject } from '../../src/endpoint/expected-state.js';
import { Fork } from '../../src/endpoint/fork.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import type { Expectation } from '../../src/reconcile/expectations.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

const DISCOVERY: Record<string, unknown> = {
  '/api/v1': { kind: 'APIResourceList', groupVersion: 'v1', resources: [
    { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list'] },
    { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get', 'list'] },
    { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get'] },
  ] },
  '/apis/apps/v1': { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [
    { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get', 'list'] },
  ] },
};
const OBJECTS: Record<string, unknown> = {
  '/api/v1/namespaces/default/configmaps/plain': { kind: 'ConfigMap', metadata: { name: 'plain', namespace: 'default' }, data: { from: 'default' } },
  '/api/v1/namespaces/demo/configmaps/plain': { kind: 'ConfigMap', metadata: { name: 'plain', namespace: 'demo' }, data: { from: 'demo' } },
  '/api/v1/namespaces/demo/configmaps/a%20b%2Fc': { kind: 'ConfigMap', metadata: { name: 'a b/c', namespace: 'demo' } },
  '/api/v1/namespaces/demo': { kind: 'Namespace', metadata: { name: 'demo' } },
  '/apis/apps/v1/namespaces/demo/deployments/web': { kind: 'Deployment', metadata: { name: 'web', namespace: 'demo' }, spec: { replicas: 3 } },
};

let stand: Server;
let asked: string[];
let target: Connection;
beforeAll(async () => {
  asked = [];
  stand = createServer((req, res) => {
    const path = req.url ?? '/';
    asked.push(path);
    const body = DISCOVERY[path] ?? OBJECTS[path];
    if (path.endsWith('/forbidden')) res.writeHead(403, { 'content-type': 'application/json' }).end('{"kind":"Status","code":403}');
    else if (path.endsWith('/broken')) res.writeHead(500, { 'content-type': 'application/json' }).end('{"kind":"Status","code":500}');
    else if (path.endsWith('/choices')) res.writeHead(300, { 'content-type': 'application/json' }).end('{}');
    else if (body === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","code":404}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => stand.listen(0, '127.0.0.1', r));
  target = connectionFromUrl(`http://127.0.0.1:${(stand.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await target?.close();
  await new Promise((r) => stand?.close(r));
});

const want = (apiVersion: string, kind: string, name: string, namespace?: string): Expectation =>
  ({ apiVersion, kind, name, ...(namespace !== undefined ? { namespace } : {}), absent: false, want: {}, where: 'expect.yaml document 1' });

describe('readExpectedObject from the target', () => {
  it('reads a core object in its namespace, or in default when the expectation names none', async () => {
    asked.length = 0;
    expect(await readExpectedObject(want('v1', 'ConfigMap', 'plain', 'demo'), target, undefined)).toEqual({ resource: 'configmaps', found: OBJECTS['/api/v1/namespaces/demo/configmaps/plain'] });
    expect(await readExpectedObject(want('v1', 'ConfigMap', 'plain'), target, undefined)).toEqual({ resource: 'configmaps', found: OBJECTS['/api/v1/namespaces/default/configmaps/plain'] });
    expect(asked).toEqual(['/api/v1', '/api/v1/namespaces/demo/configmaps/plain', '/api/v1', '/api/v1/namespaces/default/configmaps/plain']);
  });

  it('reads a grouped kind under /apis, named resource.group as the trace names it', async () => {
    asked.length = 0;
    expect(await readExpectedObject(want('apps/v1', 'Deployment', 'web', 'demo'), target, undefined)).toEqual({ resource: 'deployments.apps', found: OBJECTS['/apis/apps/v1/namespaces/demo/deployments/web'] });
    expect(asked).toEqual(['/apis/apps/v1', '/apis/apps/v1/namespaces/demo/deployments/web']);
  });

  it('reads a cluster-scoped kind without a namespace in its path, whatever namespace the expectation gives', async () => {
    asked.length = 0;
    expect(await readExpectedObject(want('v1', 'Namespace', 'demo', 'other'), target, undefined)).toEqual({ resource: 'namespaces', found: OBJECTS['/api/v1/namespaces/demo'] });
    expect(asked).toEqual(['/api/v1', '/api/v1/namespaces/demo']);
  });

  it('escapes the name and the namespace in the path', async () => {
    asked.length = 0;
    const r = await readExpectedObject(want('v1', 'ConfigMap', 'a b/c', 'demo'), target, undefined);
    expect(r.found).toEqual(OBJECTS['/api/v1/namespaces/demo/configmaps/a%20b%2Fc']);
    await readExpectedObject(want('v1', 'ConfigMap', 'x', 'n s'), target, undefined);
    expect(asked.filter((p) => p !== '/api/v1')).toEqual(['/api/v1/namespaces/demo/configmaps/a%20b%2Fc', '/api/v1/namespaces/n%20s/configmaps/x']);
  });

  it('finds nothing, without an error, where the target answers 404', async () => {
    expect(await readExpectedObject(want('v1', 'ConfigMap', 'gone', 'demo'), target, undefined)).toEqual({ resource: 'configmaps', found: undefined });
  });

  it('says which expectation names a kind the target does not serve', async () => {
    const e = readExpectedObject(want('v1', 'Widget', 'w', 'demo'), target, undefined);
    await expect(e).rejects.toThrow(ExpectedKindError);
    await expect(readExpectedObject(want('v1', 'Widget', 'w', 'demo'), target, undefined)).rejects.toThrow(/^expect\.yaml document 1: the target serves no kind Widget in v1$/);
    await expect(readExpectedObject(want('example.com/v1', 'Widget', 'w', 'demo'), target, undefined)).rejects.toThrow(/^expect\.yaml document 1: the target serves no kind Widget in example\.com\/v1$/);
  });

  it('is an error, naming the path and the status, when the target answers other than 2xx or 404', async () => {
    for (const [name, status] of [['forbidden', 403], ['broken', 500], ['choices', 300]] as const) {
      await expect(readExpectedObject(want('v1', 'ConfigMap', name, 'demo'), target, undefined)).rejects.toThrow(
        new ExpectedKindError(`expect.yaml document 1: reading /api/v1/namespaces/demo/configmaps/${name} from the target answered ${status}`),
      );
    }
  });
});

describe('readExpectedObject under overlay', () => {
  let sim: SimServer;
  let upstream: Connection;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, churn: 0, nodes: 1, pods: 0 });
    upstream = connectionFromUrl(sim.url);
  });
  afterAll(async () => {
    await upstream?.close();
    await sim?.close();
  });

  it('reads the fork, where the controller\'s writes landed, not the target', async () => {
    const CM = { group: '', version: 'v1', resource: 'configmaps' };
    sim.api.create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'both', namespace: 'default' }, data: { on: 'target' } });
    const fork = new Fork({ upstream, tracer: new Tracer(), maxObjects: 10_000, notice: () => {} });
    try {
      // Nothing mirrored yet: the read mirrors the kind first (ensure), then reads the fork's copy.
      const before = await readExpectedObject(want('v1', 'ConfigMap', 'both'), upstream, fork);
      expect(before).toMatchObject({ resource: 'configmaps', found: { metadata: { name: 'both', namespace: 'default' }, data: { on: 'target' } } });
      fork.store.update(CM, { ...(fork.store.get(CM, 'default', 'both') as object), data: { on: 'fork' } } as never);
      fork.store.create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fork-only', namespace: 'default' } } as never);
      expect((await readExpectedObject(want('v1', 'ConfigMap', 'both', 'default'), upstream, fork)).found).toMatchObject({ data: { on: 'fork' } });
      expect((await readExpectedObject(want('v1', 'ConfigMap', 'fork-only'), upstream, fork)).found).toMatchObject({ metadata: { name: 'fork-only' } });
      expect((await readExpectedObject(want('v1', 'ConfigMap', 'nowhere'), upstream, fork)).found).toBeUndefined();
      expect((await readExpectedObject(want('apps/v1', 'Deployment', 'nowhere', 'default'), upstream, fork)).resource).toBe('deployments.apps');
    } finally {
      fork.close();
    }
  });
});
