// The sim routes a request path as kube-apiserver does: on Go's req.URL.Path, with every %XX decoded before the path
// is split (an escaped slash separates segments like a slash), slashes trimmed at both ends and empty inner segments
// kept (apiserver endpoints/request/requestinfo.go splitPath; go-restful's CurlyRouter tokenizes URL.Path the same way).
// kwatch's fork in `--writes overlay` is these handlers, so what the sim answers here is what the fork answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { rawHttp } from './sim-helpers.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer();
  sim.api.create(NAMESPACES, { metadata: { name: 'other' } });
  sim.api.create(CONFIGMAPS, { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } });
  sim.api.create(CONFIGMAPS, { metadata: { name: 'elsewhere', namespace: 'other' } });
  sim.api.create(PODS, { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
});
afterAll(() => sim.close());

describe('escaped slashes separate segments', () => {
  it('a create whose slashes are escaped is stored, as kube stores it', async () => {
    for (const [path, name] of [['/api/v1%2Fnamespaces%2Fdefault%2Fconfigmaps', 'escaped-1'], ['/api%2Fv1%2Fnamespaces%2Fdefault%2Fconfigmaps', 'escaped-2']]) {
      const r = await rawHttp(sim.url, 'POST', path, { body: { metadata: { name } } });
      expect(r.status, path).toBe(201);
      expect(sim.api.get(CONFIGMAPS, 'default', name)?.metadata.name).toBe(name);
    }
    const got = await rawHttp(sim.url, 'GET', '/api/v1/namespaces%2fdefault%2fconfigmaps%2fescaped-1');
    expect(got.status).toBe(200);
    expect(got.json.metadata.name).toBe('escaped-1');
  });

  it('configmaps/a%2fkeep is configmap "a" with a subresource "keep", which no handler serves: 404, not a 400 about the name', async () => {
    const r = await rawHttp(sim.url, 'GET', '/api/v1/namespaces/default/configmaps/a%2fkeep');
    expect(r.status).toBe(404);
    // go-restful's unmatched route, as kube-apiserver's serviceErrorHandler writes it.
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
    const del = await rawHttp(sim.url, 'DELETE', '/api/v1/namespaces/default/configmaps/a%2Fkeep');
    expect(del.status).toBe(404);
    expect(sim.api.get(CONFIGMAPS, 'default', 'a')).toBeDefined();
  });

  it('an escaped slash can lead to a subresource that is served: pods/web%2fstatus is the pod\'s status', async () => {
    const r = await rawHttp(sim.url, 'GET', '/api/v1/namespaces/default/pods/web%2Fstatus');
    expect(r.status).toBe(200);
    expect(r.json.metadata.name).toBe('web');
  });
});

describe('an empty namespace segment is the namespace ""', () => {
  it('GET …/namespaces//configmaps lists every namespace\'s configmaps (NamespaceKeyRootFunc adds no namespace for "")', async () => {
    const r = await rawHttp(sim.url, 'GET', '/api/v1/namespaces//configmaps');
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('ConfigMapList');
    const keys = r.json.items.map((o: { metadata: { namespace: string; name: string } }) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(keys).toEqual(expect.arrayContaining(['default/a', 'other/elsewhere']));
  });

  it('a named object in namespace "" is a 400 from the storage key function', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await rawHttp(sim.url, method, '/api/v1/namespaces//configmaps/a');
      expect(r.status, method).toBe(400);
      expect(r.json.message).toBe('Namespace parameter required.');
    }
    expect(sim.api.get(CONFIGMAPS, 'default', 'a')).toBeDefined();
  });

  it('a create in namespace "" loses its body\'s namespace and is refused by validation (422), storing nothing', async () => {
    const r = await rawHttp(sim.url, 'POST', '/api/v1/namespaces//configmaps', { body: { metadata: { name: 'nowhere', namespace: 'default' } } });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe('Invalid');
    expect(r.json.message).toBe('ConfigMap "nowhere" is invalid: metadata.namespace: Required value');
    expect(sim.api.get(CONFIGMAPS, 'default', 'nowhere')).toBeUndefined();
  });

  it('an empty name before a subresource (pods//status) is kube\'s 400 "name must be provided"', async () => {
    const r = await rawHttp(sim.url, 'GET', '/api/v1/namespaces/default/pods//status');
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('name must be provided');
  });

  it('trailing slashes are trimmed, as splitPath does; a leading double slash misses every API prefix, as in kube\'s director', async () => {
    const r = await rawHttp(sim.url, 'GET', '/api/v1/namespaces/default/configmaps/a//');
    expect(r.status).toBe(200);
    expect(r.json.metadata.name).toBe('a');
    const lead = await rawHttp(sim.url, 'GET', '//api/v1/namespaces/default/configmaps/a');
    expect(lead.status).toBe(404);
  });
});
