import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, pod, PODS } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer(); });
afterAll(() => sim.close());

const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(sim.url, path, { method, body, headers });
const P = '/api/v1/namespaces/default/pods';

describe('write verbs', () => {
  it('creates with 201, fills metadata, and supports generateName', async () => {
    const r = await req('POST', P, pod('w1'));
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json.metadata).toMatchObject({ name: 'w1', namespace: 'default', resourceVersion: String(sim.api.currentRevision()) });
    const g = await req('POST', P, { metadata: { generateName: 'gen-' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    expect(g.json.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('answers a create into a missing namespace with 404 namespaces "x" not found', async () => {
    const r = await req('POST', '/api/v1/namespaces/ghost/pods', pod('x', { namespace: 'ghost' }));
    expect(r.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'namespaces "ghost" not found', details: { name: 'ghost', kind: 'namespaces' } });
  });

  it('answers 400 when the body namespace differs from the path', async () => {
    const r = await req('POST', P, pod('x', { namespace: 'kube-system' }));
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  it('updates with PUT, 409 on a stale resourceVersion, and keeps status on the main resource', async () => {
    const cur = (await req('GET', `${P}/w1`)).json;
    const up = await req('PUT', `${P}/w1`, { ...cur, metadata: { ...cur.metadata, labels: { a: '1' } }, status: { phase: 'Running' } });
    expect(up.status).toBe(200);
    expect(up.json.metadata.labels).toEqual({ a: '1' });
    expect(up.json.status.phase).toBe('Pending');
    const stale = await req('PUT', `${P}/w1`, cur);
    expect(stale.status).toBe(409);
    expect(stale.json.message).toBe('Operation cannot be fulfilled on pods "w1": the object has been modified; please apply your changes to the latest version and try again');
    const st = await req('PUT', `${P}/w1/status`, { ...up.json, status: { phase: 'Running' } });
    expect(st.json.status.phase).toBe('Running');
  });

  it('patches with merge, JSON and strategic merge patches; a no-op patch keeps the resourceVersion', async () => {
    const m = await req('PATCH', `${P}/w1`, { metadata: { labels: { b: '2' } } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(m.json.metadata.labels).toEqual({ a: '1', b: '2' });
    const j = await req('PATCH', `${P}/w1`, [{ op: 'remove', path: '/metadata/labels/a' }], { 'Content-Type': 'application/json-patch+json' });
    expect(j.json.metadata.labels).toEqual({ b: '2' });
    const s = await req('PATCH', `${P}/w1`, { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    // The patched container keeps what defaulting and admission gave it on create (pull policy, token mount…).
    expect(s.json.spec.containers).toHaveLength(1);
    expect(s.json.spec.containers[0]).toMatchObject({ name: 'c', image: 'nginx:2', terminationMessagePolicy: 'File' });
    const rv = sim.api.currentRevision();
    const noop = await req('PATCH', `${P}/w1`, { metadata: { labels: { b: '2' } } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(noop.json.metadata.resourceVersion).toBe(String(rv));
    expect(sim.api.currentRevision()).toBe(rv);
    const stale = await req('PATCH', `${P}/w1`, { metadata: { resourceVersion: '1', labels: { c: '3' } } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(stale.status).toBe(409);
  });

  it('server-side apply creates when absent and merges when present', async () => {
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ssa', namespace: 'default', labels: { x: '1' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const created = await req('PATCH', `${P}/ssa?fieldManager=test`, body, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(created.status).toBe(201);
    // Another manager's apply merges in (the same container values: shared ownership, no conflict) …
    const merged = await req('PATCH', `${P}/ssa?fieldManager=other`, { ...body, metadata: { ...body.metadata, labels: { y: '2' } } }, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(merged.json.metadata.labels).toEqual({ x: '1', y: '2' });
    // … and a manager that stops applying a field it alone owns removes it.
    const pruned = await req('PATCH', `${P}/ssa?fieldManager=test`, { ...body, metadata: { ...body.metadata, labels: { z: '3' } } }, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(pruned.json.metadata.labels).toEqual({ y: '2', z: '3' });
    const noManager = await req('PATCH', `${P}/ssa`, body, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(noManager.status).toBe(422);
  });

  it('never stores dryRun=All writes and never bumps the revision for them', async () => {
    const rv = sim.api.currentRevision();
    const c = await req('POST', `${P}?dryRun=All`, pod('dry'));
    expect(c.status).toBe(201);
    expect(c.json.metadata.name).toBe('dry');
    const d = await req('DELETE', `${P}/w1?dryRun=All`);
    expect(d.status).toBe(200);
    const p = await req('PATCH', `${P}/w1?dryRun=All`, { metadata: { labels: { z: '9' } } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(p.json.metadata.labels.z).toBe('9');
    expect(sim.api.currentRevision()).toBe(rv);
    expect(sim.api.get(PODS, 'default', 'dry')).toBeUndefined();
    expect(sim.api.get(PODS, 'default', 'w1')!.metadata.labels).toEqual({ b: '2' });
    expect((await req('POST', `${P}?dryRun=Some`, pod('dry'))).status).toBe(422);
  });

  it('reads a DELETE\'s dryRun from its DeleteOptions body when there is one, and then ignores the query (kube\'s rule)', async () => {
    for (const n of ['bw1', 'bw2', 'bw3']) await req('POST', P, pod(n, { labels: { bodywins: n } }));
    // Node's client sends a DELETE body without framing unless told its length.
    const del = (path: string, body?: unknown) => req('DELETE', path, body, body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(JSON.stringify(body))) });
    // A body without dryRun: a real delete, dryRun=All in the query notwithstanding.
    expect((await del(`${P}/bw1?dryRun=All`, { propagationPolicy: 'Background' })).status).toBe(200);
    expect(sim.api.get(PODS, 'default', 'bw1')).toBeUndefined();
    // dryRun in the body: nothing deleted, whatever the query says.
    expect((await del(`${P}/bw2`, { dryRun: ['All'] })).status).toBe(200);
    expect(sim.api.get(PODS, 'default', 'bw2')).toBeDefined();
    // The same for deletecollection.
    expect((await del(`${P}?labelSelector=bodywins%3Dbw2&dryRun=All`, { propagationPolicy: 'Background' })).status).toBe(200);
    expect(sim.api.get(PODS, 'default', 'bw2')).toBeUndefined();
    expect((await del(`${P}?labelSelector=bodywins%3Dbw3`, { dryRun: ['All'] })).status).toBe(200);
    expect(sim.api.get(PODS, 'default', 'bw3')).toBeDefined();
    // No body: the query's dryRun counts.
    expect((await del(`${P}/bw3?dryRun=All`)).status).toBe(200);
    expect(sim.api.get(PODS, 'default', 'bw3')).toBeDefined();
  });

  it('deletes returning the object, and deletecollection honours selectors', async () => {
    for (const n of ['k1', 'k2', 'k3']) await req('POST', P, pod(n, { labels: { kill: n === 'k3' ? 'no' : 'yes' } }));
    const d = await req('DELETE', `${P}/w1`);
    expect(d.json).toMatchObject({ kind: 'Pod', metadata: { name: 'w1', resourceVersion: String(sim.api.currentRevision()) } });
    const gone = await req('DELETE', `${P}/w1`);
    expect(gone.json).toMatchObject({ code: 404, message: 'pods "w1" not found' });
    const dc = await req('DELETE', `${P}?labelSelector=kill%3Dyes`);
    expect(dc.json.kind).toBe('PodList');
    expect(dc.json.items.map((p: any) => p.metadata.name)).toEqual(['k1', 'k2']);
    expect(sim.api.get(PODS, 'default', 'k3')).toBeDefined();
  });

  it('names the group in Status errors of non-core resources', async () => {
    const r = await req('GET', '/apis/apps/v1/namespaces/default/deployments/none');
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'deployments.apps "none" not found', reason: 'NotFound', details: { name: 'none', group: 'apps', kind: 'deployments' }, code: 404 });
  });

  it('answers 405 for verbs a resource lacks', async () => {
    const r = await req('DELETE', '/api/v1/namespaces');
    expect(r.status).toBe(405);
    expect(r.json).toMatchObject({ reason: 'MethodNotAllowed', message: 'deletecollection is not supported on resources of kind "namespaces"' });
  });

  it('keeps the connection usable after errors (keep-alive, no hangs)', async () => {
    const results = await Promise.all([req('POST', P, '{not json'), req('GET', '/nope'), req('GET', `${P}/missing`)]);
    expect(results.map((r) => r.status)).toEqual([400, 404, 404]);
  });

  it('folds a Secret\'s stringData into base64 data and never stores stringData', async () => {
    const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
    const created = sim.api.create(SECRETS, { metadata: { name: 'folded', namespace: 'default' }, data: { a: 'eA==' }, stringData: { b: 'hunter2', a: 'y' } });
    expect(created.stringData).toBeUndefined();
    expect(created.data).toEqual({ a: 'eQ==', b: 'aHVudGVyMg==' });
    expect(sim.api.get(SECRETS, 'default', 'folded')).toMatchObject({ type: 'Opaque', data: { a: 'eQ==', b: 'aHVudGVyMg==' } });
  });
});

// Cases the mutation run of write-handlers.ts found untested (docs/mutation.md, sim section).
describe('write verbs: subresources and names', () => {
  it('GET of a pod\'s status and resize subresources answers the pod', async () => {
    expect((await req('POST', P, pod('sub1'))).status).toBe(201);
    for (const sub of ['status', 'resize']) {
      const r = await req('GET', `${P}/sub1/${sub}`);
      expect(r.status, sub).toBe(200);
      expect(r.json).toMatchObject({ kind: 'Pod', metadata: { name: 'sub1' } });
    }
  });

  it('a pod\'s status write stores its conditions as sent (the CSR condition stamping is for CSRs only)', async () => {
    const cur = (await req('GET', `${P}/sub1`)).json;
    const r = await req('PUT', `${P}/sub1/status`, { ...cur, status: { ...cur.status, conditions: [{ type: 'Ready', status: 'True' }] } });
    expect(r.status).toBe(200);
    expect(r.json.status.conditions).toEqual([{ type: 'Ready', status: 'True' }]);
  });

  it('a body that is no object is a 400; one without metadata is validated as kube validates it (422: name required)', async () => {
    for (const body of [[pod('in-a-list')], 'null', '5']) expect((await req('POST', P, body)).json, String(body)).toMatchObject({ code: 400, reason: 'BadRequest' });
    const bare = await req('POST', P, { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    expect(bare.json).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('"metadata": null is decoded as empty metadata, as kube\'s decoder does: validation answers 422 (name required)', async () => {
    const r = await req('POST', P, { apiVersion: 'v1', kind: 'Pod', metadata: null, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422,
      message: 'Pod "" is invalid: metadata.name: Required value: name or generateName is required',
      details: { kind: 'Pod', causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] },
    });
  });

  it('a PUT whose body names another object is kube\'s 400 (rest.go checkName), and nothing changes', async () => {
    const cur = (await req('GET', `${P}/sub1`)).json;
    const r = await req('PUT', `${P}/sub1`, { ...cur, metadata: { ...cur.metadata, name: 'other', labels: { moved: 'yes' } } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: 'BadRequest', message: 'the name of the object (other) does not match the name on the URL (sub1)' });
    expect((await req('GET', `${P}/sub1`)).json.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });

  it('a resize records its manager under subresource "resize", as kube\'s per-path field manager does', async () => {
    const created = await req('POST', P, { ...pod('sized'), spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } });
    expect(created.status).toBe(201);
    const r = await req('PATCH', `${P}/sized/resize?fieldManager=sizer`, { spec: { containers: [{ name: 'c', image: 'evil', resources: { requests: { cpu: '200m' } } }] } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    expect(r.status).toBe(200);
    expect(r.json.spec.containers[0].resources.requests.cpu).toBe('200m');
    // Only resources go through resize: the image stays.
    expect(r.json.spec.containers[0].image).toBe('nginx');
    expect(r.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'sizer')).toMatchObject({ operation: 'Update', subresource: 'resize' });
  });

  it('an unsupported dryRun is a 422 on the verb\'s own options kind (handlers: Create/Update/Patch/DeleteOptions), after a PATCH\'s media type', async () => {
    const message = (kind: string) => `${kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"`;
    const cur = (await req('GET', `${P}/sub1`)).json;
    const create = await req('POST', `${P}?dryRun=Some`, pod('dry-some'));
    expect(create.json).toMatchObject({ code: 422, reason: 'Invalid', message: message('CreateOptions'), details: { group: 'meta.k8s.io', kind: 'CreateOptions' } });
    expect((await req('PUT', `${P}/sub1?dryRun=Some`, cur)).json).toMatchObject({ code: 422, message: message('UpdateOptions') });
    expect((await req('PATCH', `${P}/sub1?dryRun=Some`, {}, { 'Content-Type': 'application/merge-patch+json' })).json).toMatchObject({ code: 422, message: message('PatchOptions') });
    expect((await req('DELETE', `${P}/sub1?dryRun=Some`)).json).toMatchObject({ code: 422, message: message('DeleteOptions') });
    expect((await req('DELETE', `${P}?dryRun=Some`)).json).toMatchObject({ code: 422, message: message('DeleteOptions') });
    // One unsupported value among supported ones is enough (ValidateDryRun: the set must hold them all).
    expect((await req('POST', `${P}?dryRun=All&dryRun=Some`, pod('dry-some'))).json).toMatchObject({ code: 422, message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Some"}: supported values: "All"' });
    // kube checks a patch's media type first (patch.go): a 415 then, whatever the options.
    expect((await req('PATCH', `${P}/sub1?dryRun=Some`, {}, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await req('GET', `${P}/sub1`)).json.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });

  it('an events.k8s.io Event deleted through that API (no controllers) is answered in that API\'s shape', async () => {
    const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
    const created = await req('POST', V1, {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev-plain' }, eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl', reportingInstance: 'ctl-0', action: 'Reconciling', reason: 'Synced', type: 'Normal', note: 'plain',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'default' },
    });
    expect(created.status).toBe(201);
    const r = await req('DELETE', `${V1}/ev-plain`);
    expect(r.json).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: 'plain', metadata: { name: 'ev-plain' } });
    expect(r.json.message).toBeUndefined();
  });

  it('a body for another API version is kube\'s 400 (create.go), and one over 3 MiB is its 413', async () => {
    const other = await req('POST', P, { ...pod('elsewhere'), apiVersion: 'apps/v1' });
    expect(other.json).toMatchObject({ code: 400, reason: 'BadRequest', message: 'the API version in the data (apps/v1) does not match the expected API version (v1)' });
    const big = await req('POST', P, { ...pod('huge'), metadata: { name: 'huge', annotations: { a: 'x'.repeat(3 * 1024 * 1024) } } });
    expect(big.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
    expect((await req('GET', `${P}/huge`)).status).toBe(404);
  });

  it('a body that does not parse is kube\'s 400 with the decoder\'s text: JSON, YAML, too deep, an apply configuration too deep', async () => {
    const json = await req('POST', P, '{"apiVersion": nope}');
    expect(json.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(json.json.message).toMatch(/^couldn't get version\/kind; json parse error: .+ \(the sim accepts JSON objects only\)$/);
    const yaml = await req('POST', P, 'apiVersion: v1\nkind: [Pod\n', { 'Content-Type': 'application/yaml' });
    expect(yaml.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(yaml.json.message).toMatch(/^couldn't get version\/kind; yaml parse error: ./);
    const deep = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep"},"x":${'['.repeat(1001)}${']'.repeat(1001)}}`;
    const deepYaml = await req('POST', P, deep, { 'Content-Type': 'application/yaml' });
    expect(deepYaml.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(deepYaml.json.message).toMatch(/^the object provided is unrecognized \(must be of type Pod\): couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth/);
    const deepApply = await req('PATCH', `${P}/deep?fieldManager=me`, deep, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(deepApply.json).toMatchObject({ code: 400, reason: 'BadRequest', message: "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth" });
    expect((await req('GET', `${P}/deep`)).status).toBe(404);
  });

  it('a YAML body of too many aliases is the 400 of bad YAML (go-yaml refuses excessive aliasing), not a 500', async () => {
    // Each level lists the one before it 13 times: 13^8 nodes once expanded.
    const levels = ['a: &a [x, x]'];
    for (let i = 1; i <= 8; i++) levels.push(`l${i}: &l${i} [${Array(13).fill(i === 1 ? '*a' : `*l${i - 1}`).join(', ')}]`);
    const bomb = ['apiVersion: v1', 'kind: Pod', 'metadata: {name: bomb}', ...levels].join('\n') + '\n';
    const created = await req('POST', P, bomb, { 'Content-Type': 'application/yaml' });
    expect(created.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(created.json.message).toMatch(/^couldn't get version\/kind; yaml parse error: ./);
    const applied = await req('PATCH', `${P}/bomb?fieldManager=me`, bomb, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(applied.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(applied.json.message).toMatch(/^error decoding YAML: ./);
  });
});

describe('write verbs: patch and server-side apply refusals', () => {
  const JSONP = { 'Content-Type': 'application/json-patch+json' };
  const MERGE = { 'Content-Type': 'application/merge-patch+json' };
  const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
  const applied = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ssa2', labels, ...extra }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  const options = (field: string, type: string, reason: string, detail: string) => ({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
    message: `PatchOptions.meta.k8s.io "" is invalid: ${field}: ${type}: ${detail}`,
    details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason, message: `${type}: ${detail}`, field }] },
  });

  it('a failed JSON patch operation is kube\'s 422 with the library\'s text as its one cause (NewGenericServerResponse); a patch that is no list is a 400', async () => {
    expect((await req('POST', P, pod('jp'))).status).toBe(201);
    const failed = await req('PATCH', `${P}/jp`, [{ op: 'test', path: '/metadata/name', value: 'other' }], JSONP);
    expect(failed.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422, message: 'the server rejected our request due to an error in our request',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'testing value /metadata/name failed: test failed' }] },
    });
    const notList = await req('PATCH', `${P}/jp`, { op: 'test' }, JSONP);
    expect(notList.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' });
  });

  it('force on a patch that is no apply is kube\'s 422 on PatchOptions (ValidatePatchOptions), and nothing changes', async () => {
    const before = (await req('GET', `${P}/jp`)).json.metadata.resourceVersion;
    const r = await req('PATCH', `${P}/jp?force=true`, { metadata: { labels: { f: '1' } } }, MERGE);
    expect(r.json).toEqual(options('force', 'Forbidden', 'FieldValueForbidden', 'may not be specified for non-apply patch'));
    expect((await req('GET', `${P}/jp`)).json.metadata.resourceVersion).toBe(before);
  });

  it('apply: fieldManager required, validation on create, conflicts unless forced, the URL\'s name, the resourceVersion precondition', async () => {
    expect((await req('PATCH', `${P}/ssa2`, applied({ a: '1' }), APPLY)).json).toEqual(options('fieldManager', 'Required value', 'FieldValueRequired', 'is required for apply patch'));
    const invalidCreate = await req('PATCH', `${P}/ssa2?fieldManager=one`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ssa2' }, spec: { containers: [] } }, APPLY);
    expect(invalidCreate.json).toMatchObject({ code: 422, message: 'Pod "ssa2" is invalid: spec.containers: Required value' });
    expect((await req('PATCH', `${P}/ssa2?fieldManager=one`, applied({ a: '1' }), APPLY)).status).toBe(201);
    const conflict = await req('PATCH', `${P}/ssa2?fieldManager=two`, applied({ a: '2' }), APPLY);
    expect(conflict.json).toMatchObject({ code: 409, reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "one": .metadata.labels.a' });
    const forced = await req('PATCH', `${P}/ssa2?fieldManager=two&force=true`, applied({ a: '2' }), APPLY);
    expect([forced.status, forced.json.metadata.labels]).toEqual([200, { a: '2' }]);
    const renamed = await req('PATCH', `${P}/ssa2?fieldManager=two`, { ...applied({ a: '2' }), metadata: { name: 'elsewhere', labels: { a: '2' } } }, APPLY);
    expect(renamed.json).toMatchObject({ code: 400, message: 'the name of the object (elsewhere) does not match the name on the URL (ssa2)' });
    const stale = await req('PATCH', `${P}/ssa2?fieldManager=two`, applied({ a: '3' }, { resourceVersion: '1' }), APPLY);
    expect(stale.json).toMatchObject({ code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods "ssa2": the object has been modified; please apply your changes to the latest version and try again' });
    expect((await req('GET', `${P}/ssa2`)).json.metadata.labels).toEqual({ a: '2' });
    // The current resourceVersion is no conflict.
    const current = (await req('GET', `${P}/ssa2`)).json.metadata.resourceVersion;
    const fresh = await req('PATCH', `${P}/ssa2?fieldManager=two`, applied({ a: '3' }, { resourceVersion: current }), APPLY);
    expect([fresh.status, fresh.json.metadata.labels]).toEqual([200, { a: '3' }]);
  });

  it('a merge patch through events.k8s.io applies to the Event in that API\'s shape', async () => {
    const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
    expect((await req('POST', V1, {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev-patched' }, eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl', reportingInstance: 'ctl-0', action: 'Reconciling', reason: 'Synced', type: 'Normal', note: 'before',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'default' },
    })).status).toBe(201);
    const r = await req('PATCH', `${V1}/ev-patched`, { note: 'after' }, MERGE);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: 'after', reason: 'Synced', regarding: { name: 'cfg' } });
    expect((await req('GET', `/api/v1/namespaces/default/events/ev-patched`)).json.message).toBe('after');
  });

  it('orders a strategic merge like kube: a new list element goes ahead of the live ones', async () => {
    // kube's mergeSortedSlice (apimachinery strategicpatch/patch.go) puts a patch element first unless a server-only
    // element is live before it: env [A] + [B] → [B, A]; finalizers [x] + [y] → [y, x].
    const D = '/apis/apps/v1/namespaces/default/deployments';
    const created = await req('POST', D, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ordered', finalizers: ['example.com/x'] },
      spec: { selector: { matchLabels: { app: 'o' } }, template: { metadata: { labels: { app: 'o' } }, spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'A', value: '1' }] }] } } },
    });
    expect(created.status).toBe(201);
    const r = await req('PATCH', `${D}/ordered`, {
      metadata: { finalizers: ['example.com/y'] },
      spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'B', value: '2' }] }] } } },
    }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    expect(r.status).toBe(200);
    expect(r.json.spec.template.spec.containers[0].env).toEqual([{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
    expect(r.json.metadata.finalizers).toEqual(['example.com/y', 'example.com/x']);
  });

  it('keeps server-side apply order: live elements first, a new one appended (structured-merge-diff merge.go)', async () => {
    const D = '/apis/apps/v1/namespaces/default/deployments';
    const config = (env: string) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ssa-ordered' },
      spec: { selector: { matchLabels: { app: 's' } }, template: { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: env, value: '1' }] }] } } },
    });
    const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
    expect((await req('PATCH', `${D}/ssa-ordered?fieldManager=first`, config('A'), APPLY)).status).toBe(201);
    const r = await req('PATCH', `${D}/ssa-ordered?fieldManager=second`, config('B'), APPLY);
    expect(r.status).toBe(200);
    expect(r.json.spec.template.spec.containers[0].env.map((e: any) => e.name)).toEqual(['A', 'B']);
  });
});
