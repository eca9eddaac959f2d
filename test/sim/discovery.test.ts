import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http } from './sim-helpers.js';

const AGG = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

let sim: SimServer;
// The server this file describes is a 1.32 one (the default is the newest release; kube-versions.test.ts covers the others).
beforeAll(async () => { sim = await startSimServer({ kubeVersion: '1.32' }); });
afterAll(() => sim.close());

describe('discovery', () => {
  it('serves /version with all nine string fields of a 1.32 server', async () => {
    const r = await http(sim.url, '/version');
    expect(Object.keys(r.json).sort()).toEqual(['buildDate', 'compiler', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minor', 'platform']);
    expect(r.json.gitVersion).toMatch(/^v1\.32\./);
    for (const v of Object.values(r.json)) expect(typeof v).toBe('string');
  });

  it('serves legacy /api, /apis and /apis/{g} for a plain JSON Accept', async () => {
    const api = await http(sim.url, '/api', { headers: { Accept: 'application/json' } });
    expect(api.json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const apis = await http(sim.url, '/apis');
    expect(apis.headers['content-type']).toBe('application/json');
    expect(apis.json.kind).toBe('APIGroupList');
    // A 1.32 server's /apis, in kube-aggregator's order (descending group priority, then name); the sim serves a subset.
    const kube132 = ['apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io',
      'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io',
      'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io'];
    const names: string[] = apis.json.groups.map((g: any) => g.name);
    expect(names).toEqual(kube132.filter((g) => names.includes(g)));
    expect(names).toEqual(expect.arrayContaining(['apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io', 'networking.k8s.io', 'policy',
      'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'scheduling.k8s.io', 'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io']));
    const autoscaling = apis.json.groups.find((g: any) => g.name === 'autoscaling');
    expect(autoscaling).toEqual({ name: 'autoscaling', versions: [{ groupVersion: 'autoscaling/v2', version: 'v2' }, { groupVersion: 'autoscaling/v1', version: 'v1' }], preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' } });
    const apps = await http(sim.url, '/apis/apps');
    expect(apps.json).toMatchObject({ kind: 'APIGroup', name: 'apps', preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
  });

  it('lists resources per group-version with verbs, shortNames, categories and parent/sub entries', async () => {
    const v1 = await http(sim.url, '/api/v1');
    const pods = v1.json.resources.find((r: any) => r.name === 'pods');
    expect(pods).toMatchObject({ singularName: 'pod', namespaced: true, kind: 'Pod', shortNames: ['po'], categories: ['all'] });
    expect(pods.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    expect(v1.json.resources.find((r: any) => r.name === 'pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(v1.json.resources.find((r: any) => r.name === 'nodes')).toMatchObject({ namespaced: false, shortNames: ['no'] });
    const apps = await http(sim.url, '/apis/apps/v1');
    expect(apps.json.groupVersion).toBe('apps/v1');
    expect(apps.json.resources.find((r: any) => r.name === 'deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const leases = await http(sim.url, '/apis/coordination.k8s.io/v1');
    expect(leases.json.resources[0]).toMatchObject({ name: 'leases', namespaced: true });
  });

  it('serves aggregated discovery v2 on /api and /apis with the exact media type, ETag, Vary and 304', async () => {
    for (const path of ['/api', '/apis']) {
      const r = await http(sim.url, path, { headers: { Accept: AGG } });
      expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      expect(r.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
      expect(r.headers.vary).toBe('Accept');
      expect(r.json).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      const again = await http(sim.url, path, { headers: { Accept: AGG, 'If-None-Match': r.headers.etag as string } });
      expect(again.status).toBe(304);
    }
    const core = (await http(sim.url, '/api', { headers: { Accept: AGG } })).json.items[0];
    const pods = core.versions[0].resources.find((r: any) => r.resource === 'pods');
    expect(core.versions[0].freshness).toBe('Current');
    expect(pods).toMatchObject({ responseKind: { group: '', version: 'v1', kind: 'Pod' }, scope: 'Namespaced', singularResource: 'pod' });
    expect(pods.subresources.find((s: any) => s.subresource === 'status').responseKind).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    const beta = await http(sim.url, '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    expect(beta.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
  });

  it('serves a created CRD\'s resources at once, changes the ETag, and removes them on CRD deletion', async () => {
    const before = await http(sim.url, '/apis', { headers: { Accept: AGG } });
    const crd = sim.api.create(CRDS, structuredClone(widgetCrd));
    expect(crd.status).toMatchObject({ acceptedNames: { plural: 'widgets', kind: 'Widget' } });
    expect((crd.status as any).conditions.map((c: any) => [c.type, c.status])).toEqual([['NamesAccepted', 'True'], ['Established', 'True']]);
    const after = await http(sim.url, '/apis', { headers: { Accept: AGG } });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json.items.find((g: any) => g.metadata.name === 'example.com').versions[0].resources[0]).toMatchObject({ resource: 'widgets', shortNames: ['wd'] });
    const created = await http(sim.url, '/apis/example.com/v1/namespaces/default/widgets', { method: 'POST', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } } });
    expect(created.status).toBe(201);
    expect((await http(sim.url, '/apis/example.com/v1/widgets')).json.items).toHaveLength(1);
    sim.api.delete(CRDS, undefined, 'widgets.example.com');
    expect((await http(sim.url, '/apis/example.com/v1/widgets')).status).toBe(404);
    expect((await http(sim.url, '/apis', { headers: { Accept: AGG } })).headers.etag).toBe(before.headers.etag);
  });

  it('answers unknown paths with Go\'s plain-text 404', async () => {
    for (const path of ['/nope', '/apis/nope.io/v1', '/api/v2']) {
      const r = await http(sim.url, path);
      expect(r.status).toBe(404);
      expect(r.text).toBe('404 page not found\n');
    }
  });

  // kube's director hands /api/v1/… and /apis/GROUP/VERSION/… to go-restful, whose unmatched route becomes a Status
  // (apiserver/pkg/server/handler.go serviceErrorHandler); the sim used to answer these with the plain text too.
  it('answers an unknown path under a built-in group/version with go-restful\'s NotFound Status', async () => {
    for (const path of ['/api/v1/foos', '/apis/apps/v1/foos', '/api/v1/namespaces/default/configmaps/a/keep']) {
      const r = await http(sim.url, path);
      expect(r.status, path).toBe(404);
      expect(r.json, path).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
    }
  });

  it('serves an OpenAPI v3 index whose PATCH operations declare fieldValidation', async () => {
    const root = await http(sim.url, '/openapi/v3');
    const url = root.json.paths['api/v1'].serverRelativeURL as string;
    const doc = await http(sim.url, url);
    const patch = doc.json.paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(patch.parameters.map((p: any) => p.name)).toContain('fieldValidation');
  });
});
