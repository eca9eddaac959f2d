// Bad bodies (issue 14, item 10): what kube-apiserver's decoder refuses with a 400 (or, for a patch, a 422) the sim
// refuses with the same message, instead of a 500 or a stored object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64Error, jsonDepthError } from '../../src/sim/decode-body.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { DEPLOYMENTS, pod, PODS, rawHttp } from './sim-helpers.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const CM = '/api/v1/namespaces/default/configmaps';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer();
  sim.api.create(CONFIGMAPS, { metadata: { name: 'live', namespace: 'default', labels: { a: '1' } }, data: { k: 'v' } });
});
afterAll(() => sim.close());

const send = (method: string, path: string, body: unknown, contentType = 'application/json') => rawHttp(sim.url, method, path, { body, headers: { 'Content-Type': contentType } });
const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, code, message });
const cannot = (kind: string, err: string) => status(400, 'BadRequest', `${kind} in version "v1" cannot be handled as a ${kind}: ${err}`);
/** n levels of `open`…`close` around `inner`: valid JSON, e.g. [[[]]] or {"a":{"a":1}}. */
const nested = (open: string, close: string, n: number, inner = open === '[' ? '' : '1') => open.repeat(n) + inner + close.repeat(n);

describe('create and update bodies the kind cannot hold', () => {
  it('a 100 000-deep body is a 400, not a 500 (Maximum call stack size exceeded)', async () => {
    const r = await send('POST', CM, nested('[', ']', 100_000));
    expect(r.json).toEqual(status(400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (${'5b'.repeat(30)} ...)`));
    const inside = await send('POST', CM, `{"metadata":{"name":"deep"},"data":${nested('{"a":', '}', 100_000)}}`);
    expect(inside.status).toBe(400);
    expect(inside.json.message).toBe(`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth ({"metadata":{"name":"deep"},"d ...)`);
    expect(sim.api.get(CONFIGMAPS, 'default', 'deep')).toBeUndefined();
  });

  it('nesting well inside the bound is stored as sent', async () => {
    const r = await send('POST', '/api/v1/namespaces/default/pods', `{"metadata":{"name":"nest"},"spec":{"containers":[{"name":"c","image":"i"}],"x":${nested('{"a":', '}', 500)}}}`);
    expect(r.status).toBe(201);
  });

  it('metadata.name: 123 is a 400 with encoding/json\'s error, and nothing is stored', async () => {
    const before = sim.api.currentRevision();
    const r = await send('POST', CM, { metadata: { name: 123 } });
    expect(r.json).toEqual(cannot('ConfigMap', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'));
    expect(sim.api.currentRevision()).toBe(before);
  });

  it('labels: "x" is a 400 (it was stored as {"0":"x"})', async () => {
    const r = await send('POST', CM, { metadata: { name: 'lx', labels: 'x' } });
    expect(r.json).toEqual(cannot('ConfigMap', 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string'));
    const value = await send('POST', CM, { metadata: { name: 'lx', annotations: { a: 1 } } });
    expect(value.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string');
    expect(sim.api.get(CONFIGMAPS, 'default', 'lx')).toBeUndefined();
  });

  it('data: [1,2] is a 400', async () => {
    const r = await send('POST', CM, { metadata: { name: 'dx' }, data: [1, 2] });
    expect(r.json).toEqual(cannot('ConfigMap', 'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string'));
    expect(sim.api.get(CONFIGMAPS, 'default', 'dx')).toBeUndefined();
  });

  it('metadata that is not an object is the decoder\'s error too', async () => {
    const r = await send('POST', CM, { metadata: 'x' });
    expect(r.json).toEqual(cannot('ConfigMap', 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'));
  });

  it('finalizers, ownerReferences and timestamps are decoded into their Go types', async () => {
    const fin = await send('POST', CM, { metadata: { name: 'f', finalizers: 'x' } });
    expect(fin.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string');
    const owner = await send('POST', CM, { metadata: { name: 'o', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 7, uid: 'u' }] } });
    expect(owner.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.name of type string');
    // metav1.Time decodes with its own decoder, whose error names no field.
    const time = await send('POST', CM, { metadata: { name: 't', creationTimestamp: 5 } });
    expect(time.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go value of type string');
    expect([fin.status, owner.status, time.status]).toEqual([400, 400, 400]);
  });

  it('a Secret\'s data must be base64, as []byte decodes', async () => {
    const r = await send('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: { password: 'hunter2' } });
    expect(r.json).toEqual(cannot('Secret', 'illegal base64 data at input byte 4'));
    const ok = await send('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: { password: 'aHVudGVyMg==' }, stringData: { user: 'me' } });
    expect(ok.status).toBe(201);
  });

  it('spec fields of workloads: containers, replicas', async () => {
    const p = await send('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'px' }, spec: { containers: 'nginx' } });
    expect(p.json).toEqual(cannot('Pod', 'json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container'));
    const d = await send('POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'dx' }, spec: { replicas: '3', template: { spec: { containers: [] } } } });
    expect(d.json).toEqual(cannot('Deployment', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'));
    const frac = await send('POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'dx' }, spec: { replicas: 1.5 } });
    expect(frac.json.message).toBe('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32');
    expect(sim.api.get(DEPLOYMENTS, 'default', 'dx')).toBeUndefined();
  });

  it('an update (PUT) is decoded the same way and leaves the stored object alone', async () => {
    const cur = sim.api.get(CONFIGMAPS, 'default', 'live')!;
    const r = await send('PUT', `${CM}/live`, { ...cur, metadata: { ...cur.metadata, labels: 'x' } });
    expect(r.json).toEqual(cannot('ConfigMap', 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string'));
    expect(sim.api.get(CONFIGMAPS, 'default', 'live')!.metadata.labels).toEqual({ a: '1' });
  });

  it('objects as clients send them still go through', async () => {
    expect((await send('POST', '/api/v1/namespaces/default/pods', pod('fine', { labels: { app: 'x' }, node: 'n1' }))).status).toBe(201);
    expect(sim.api.get(PODS, 'default', 'fine')).toBeDefined();
  });
});

describe('the media type of a create or update body', () => {
  // kube matches Content-Type exactly against its serializers (negotiation.NegotiateInputSerializerForMediaType):
  // a `+json` type is no JSON to it.
  const accepted = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf';
  it('a patch media type on a create is a 415, and nothing is stored', async () => {
    const r = await send('POST', CM, { metadata: { name: 'merge-typed' }, data: { k: 'v' } }, 'application/merge-patch+json');
    expect(r.json).toEqual(status(415, 'UnsupportedMediaType', accepted));
    expect(sim.api.get(CONFIGMAPS, 'default', 'merge-typed')).toBeUndefined();
  });

  it('any other +json type on an update is a 415 too, and the object stays', async () => {
    const cur = sim.api.get(CONFIGMAPS, 'default', 'live')!;
    const r = await send('PUT', `${CM}/live`, { ...cur, data: { k: 'changed' } }, 'application/vnd.example+json');
    expect(r.status).toBe(415);
    expect(sim.api.get(CONFIGMAPS, 'default', 'live')!.data).toEqual({ k: 'v' });
  });

  it('a DeleteOptions body in another media type is a 415 and deletes nothing; without a body the type is not read', async () => {
    sim.api.create(CONFIGMAPS, { metadata: { name: 'doomed', namespace: 'default' } });
    // fetch, as Node's http client sends a DELETE body unframed (no chunking by default for DELETE).
    const del = (body: string, contentType: string) => fetch(`${sim.url}${CM}/doomed`, { method: 'DELETE', body, headers: { 'Content-Type': contentType } });
    const r = await del(JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }), 'application/merge-patch+json');
    expect(await r.json()).toEqual(status(415, 'UnsupportedMediaType', accepted));
    expect(sim.api.get(CONFIGMAPS, 'default', 'doomed')).toBeDefined();
    // kubectl delete sends its options as JSON; a YAML body is decoded too (kube's YAML serializer), here a dry run.
    const yaml = await del('kind: DeleteOptions\napiVersion: v1\ndryRun: [All]\n', 'application/yaml');
    expect(yaml.status).toBe(200);
    expect(sim.api.get(CONFIGMAPS, 'default', 'doomed')).toBeDefined();
    const bodiless = await rawHttp(sim.url, 'DELETE', `${CM}/doomed`, { headers: { 'Content-Type': 'text/plain' } });
    expect(bodiless.status).toBe(200);
    expect(sim.api.get(CONFIGMAPS, 'default', 'doomed')).toBeUndefined();
  });

  it('application/json with parameters, in any case, and no Content-Type at all are JSON', async () => {
    expect((await send('POST', CM, { metadata: { name: 'charset' } }, 'Application/JSON; charset=utf-8')).status).toBe(201);
    // A byte body: fetch sends it with no Content-Type (a string would go as text/plain).
    const bare = await fetch(`${sim.url}${CM}`, { method: 'POST', body: new TextEncoder().encode('{"metadata":{"name":"no-type"}}') });
    expect(bare.status).toBe(201);
  });
});

describe('patches whose result the kind cannot hold', () => {
  it('a merge patch that makes labels a string is kube\'s 422 on the patched object, and nothing changes', async () => {
    const rv = sim.api.currentRevision();
    const r = await send('PATCH', `${CM}/live`, { metadata: { labels: 'x' } }, 'application/merge-patch+json');
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch' }] } });
    expect(r.json.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal string into Go struct field ObjectMeta\.metadata\.labels of type map\[string\]string$/);
    expect(sim.api.get(CONFIGMAPS, 'default', 'live')!.metadata.labels).toEqual({ a: '1' });
    expect(sim.api.currentRevision()).toBe(rv);
  });

  it('a merge patch that makes metadata a string is the same 422', async () => {
    const r = await send('PATCH', `${CM}/live`, { metadata: 'x' }, 'application/merge-patch+json');
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/json: cannot unmarshal string into Go struct field ConfigMap\.metadata of type v1\.ObjectMeta$/);
  });

  it('a JSON patch that replaces data with an array is refused the same way', async () => {
    const r = await send('PATCH', `${CM}/live`, [{ op: 'replace', path: '/data', value: [1, 2] }], 'application/json-patch+json');
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/json: cannot unmarshal array into Go struct field ConfigMap\.data of type map\[string\]string$/);
    expect(sim.api.get(CONFIGMAPS, 'default', 'live')!.data).toEqual({ k: 'v' });
  });

  it('a server-side apply configuration the kind cannot hold is a 400', async () => {
    const r = await send('PATCH', `${CM}/applied?fieldManager=t`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: [1, 2] }, 'application/apply-patch+yaml');
    expect(r.json).toEqual(cannot('ConfigMap', 'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string'));
    expect(sim.api.get(CONFIGMAPS, 'default', 'applied')).toBeUndefined();
  });

  it('a 100 000-deep patch is a 400, not a 500', async () => {
    const r = await send('PATCH', `${CM}/live`, `{"data":${nested('{"a":', '}', 100_000)}}`, 'application/merge-patch+json');
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(`couldn't get version/kind; json parse error: invalid character '{' exceeded max depth`);
  });
});

describe('the decoder\'s pieces', () => {
  it('measures depth outside strings only', () => {
    expect(jsonDepthError(`{"a":"${'['.repeat(5000)}"}`)).toBeUndefined();
    expect(jsonDepthError(`{"a":"\\"${'['.repeat(5000)}"}`)).toBeUndefined();
    expect(jsonDepthError(nested('[', ']', 1000))).toBeUndefined();
    expect(jsonDepthError(nested('[', ']', 1001))).toBe(`invalid character '[' exceeded max depth`);
  });

  it('finds base64 errors at the offsets Go reports', () => {
    const cases: [string, number | undefined][] = [
      ['', undefined], ['aGk=', undefined], ['aA==', undefined], ['aGVsbG8=\n', undefined], ['aGVsbG8\n', 5], ['YWJj\r\nZGVm', undefined],
      ['hunter2', 4], ['abc', 0], ['a===', 1], ['ab=', 3], ['ab=c', 2], ['abc=d', 4], ['hello world', 5], ['ab-d', 2],
    ];
    for (const [s, want] of cases) expect(base64Error(s), JSON.stringify(s)).toBe(want);
  });
});
