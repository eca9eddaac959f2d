// /openapi/v2 and /openapi/v3 over raw HTTP: real schemas named as kube names them, filtered by what the registry serves
// (custom resources included), paths whose bodies $ref them, content negotiation and hashes that follow changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http } from './sim-helpers.js';
import { request } from 'node:http';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer({ kubeVersion: '1.32' }); });
afterAll(() => sim.close());

function rawGet(path: string, accept: string): Promise<{ status: number; type?: string; etag?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(sim.url + path, { headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], etag: res.headers.etag, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';

describe('/openapi/v2', () => {
  it('serves swagger 2.0 JSON with the served kinds\' definitions (gvk-tagged) and their paths, and no kind it does not serve', async () => {
    const r = await http(sim.url, '/openapi/v2', { headers: { Accept: 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' } });
    const d = r.json.definitions[DEPLOYMENT];
    expect(d['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    // The generated models carry no description for a field that is a $ref (kube's document has one).
    expect(d.properties.spec).toEqual({ $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentSpec' });
    expect(d.properties.kind.description).toContain('Kind is a string value representing the REST resource');
    expect(r.json.definitions['io.k8s.api.apps.v1.DeploymentSpec'].required).toEqual(['selector', 'template']);
    // Patch tags the models lack, restored from kube's Go struct tags (kubectl's strategic merge patches read them).
    expect(r.json.definitions['io.k8s.api.core.v1.PodSpec'].properties.containers).toMatchObject({
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    expect(r.json.definitions['io.k8s.api.storagemigration.v1alpha1.StorageVersionMigration']).toBeUndefined();
    const patch = r.json.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(patch.parameters.map((p: { name: string }) => p.name)).toContain('fieldValidation');
    const post = r.json.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].post;
    expect(post.parameters[0]).toEqual({ name: 'body', in: 'body', required: true, schema: { $ref: `#/definitions/${DEPLOYMENT}` } });
  });

  it('answers kubectl\'s protobuf Accept with gnostic protobuf, a media type it cannot serve with 406, and If-None-Match with 304', async () => {
    const pb = await rawGet('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
    expect(pb.status).toBe(200);
    expect(pb.type).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // Field 1 (swagger), a 3-byte string: "2.0"; then the definitions hold the kind's name.
    expect([...pb.body.subarray(0, 5)]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30]);
    expect(pb.body.includes(Buffer.from(DEPLOYMENT))).toBe(true);
    expect((await rawGet('/openapi/v2', 'text/html')).status).toBe(406);
    const again = await http(sim.url, '/openapi/v2', { headers: { 'If-None-Match': pb.etag!, Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(again.status).toBe(304);
  });
});

describe('/openapi/v3', () => {
  it('each group-version document carries components.schemas and $refs from its request and response bodies; the index hash is its ETag', async () => {
    const index = (await http(sim.url, '/openapi/v3')).json;
    const url: string = index.paths['apis/apps/v1'].serverRelativeURL;
    const doc = await http(sim.url, url);
    expect(doc.status).toBe(200);
    expect(doc.headers.etag).toBe(`"${new URL(url, sim.url).searchParams.get('hash')}"`);
    const schemas = doc.json.components.schemas;
    expect(schemas[DEPLOYMENT].properties.spec).toMatchObject({ allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }] });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();
    expect(schemas['io.k8s.api.batch.v1.Job']).toBeUndefined();
    const item = doc.json.paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
    expect(item.post.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${DEPLOYMENT}` });
    expect(item.get.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentList' });
  });

  it('a CRD adds its group-version with its schema (named as kube names it); removing it takes the document away', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.stable.example.com' },
      spec: { group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' }, versions: [{ name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } } }] },
    };
    expect((await http(sim.url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: crd })).status).toBe(201);
    const index = (await http(sim.url, '/openapi/v3')).json;
    const doc = (await http(sim.url, index.paths['apis/stable.example.com/v1'].serverRelativeURL)).json;
    const s = doc.components.schemas['com.example.stable.v1.CronTab'];
    expect(s['x-kubernetes-group-version-kind']).toEqual([{ group: 'stable.example.com', version: 'v1', kind: 'CronTab' }]);
    expect(s.properties.spec.properties.cronSpec).toEqual({ type: 'string' });
    expect(s.properties.metadata).toEqual({ allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] });
    expect((await http(sim.url, '/openapi/v2')).json.definitions['com.example.stable.v1.CronTab']).toBeDefined();
    expect((await http(sim.url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com', { method: 'DELETE' })).status).toBe(200);
    expect((await http(sim.url, '/openapi/v3')).json.paths['apis/stable.example.com/v1']).toBeUndefined();
    expect((await http(sim.url, '/openapi/v3/apis/stable.example.com/v1')).status).toBe(404);
  });
});
