import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { encodeContinue } from '../../src/sim/continue-token.js';
import { protobufToJson } from '../../src/wire/protobuf/to-json.js';
import { http, pod, PODS, NAMESPACES } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ tooLargeWaitMs: 200 });
  sim.api.create(NAMESPACES, { metadata: { name: 'other' } });
  for (const n of ['a', 'b', 'c', 'd', 'e']) sim.api.create(PODS, pod(n, { labels: { app: n < 'c' ? 'x' : 'y' }, node: n === 'a' ? 'n1' : 'n2' }));
  sim.api.create(PODS, pod('z', { namespace: 'other' }));
});
afterAll(() => sim.close());

const get = (path: string, headers?: Record<string, string>) => http(sim.url, path, { headers });

describe('LIST', () => {
  it('returns <Kind>List with the current revision, JSON content type and items never null', async () => {
    const r = await get('/api/v1/namespaces/default/pods');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(sim.api.currentRevision()) } });
    expect(r.json.items.map((p: any) => p.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const empty = await get('/apis/apps/v1/deployments');
    expect(empty.json).toMatchObject({ kind: 'DeploymentList', apiVersion: 'apps/v1', items: [] });
  });

  it('answers a protobuf-first Accept list in protobuf, as kube does (test/sim/protobuf-wire.test.ts covers the encoding)', async () => {
    const res = await fetch(`${sim.url}/api/v1/pods`, { headers: { Accept: 'application/vnd.kubernetes.protobuf,application/json' } });
    expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    const list = protobufToJson(Buffer.from(await res.arrayBuffer())) as { items: unknown[] };
    expect(list.items).toHaveLength(6);
  });

  it('pages with limit/continue over one snapshot: same RV, remainingItemCount, no continue on the last page', async () => {
    const p1 = await get('/api/v1/namespaces/default/pods?limit=2');
    expect(p1.json.items.map((p: any) => p.metadata.name)).toEqual(['a', 'b']);
    expect(p1.json.metadata.remainingItemCount).toBe(3);
    const rv = p1.json.metadata.resourceVersion;
    expect(JSON.parse(Buffer.from(p1.json.metadata.continue, 'base64url').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: Number(rv), start: 'b\u0000' });
    // Changes between pages don't show up in the paged result.
    sim.api.create(PODS, pod('bb'));
    sim.api.delete(PODS, 'default', 'e');
    const p2 = await get(`/api/v1/namespaces/default/pods?limit=2&continue=${p1.json.metadata.continue}`);
    expect(p2.json.items.map((p: any) => p.metadata.name)).toEqual(['c', 'd']);
    expect(p2.json.metadata).toMatchObject({ resourceVersion: rv, remainingItemCount: 1 });
    const p3 = await get(`/api/v1/namespaces/default/pods?limit=2&continue=${p2.json.metadata.continue}`);
    expect(p3.json.items.map((p: any) => p.metadata.name)).toEqual(['e']);
    expect(p3.json.metadata).toEqual({ resourceVersion: rv });
    sim.api.delete(PODS, 'default', 'bb');
    sim.api.create(PODS, pod('e', { labels: { app: 'y' }, node: 'n2' }));
  });

  it('uses namespace/name keys in all-namespace continue tokens', async () => {
    const p1 = await get('/api/v1/pods?limit=1');
    expect(JSON.parse(Buffer.from(p1.json.metadata.continue, 'base64url').toString()).start).toBe('default/a\u0000');
  });

  it('sends no remainingItemCount when a selector is set', async () => {
    const p1 = await get('/api/v1/pods?limit=1&labelSelector=app%3Dx');
    expect(p1.json.items.map((p: any) => p.metadata.name)).toEqual(['a']);
    expect(p1.json.metadata.continue).toBeTruthy();
    expect(p1.json.metadata.remainingItemCount).toBeUndefined();
    const p2 = await get(`/api/v1/pods?limit=1&labelSelector=app%3Dx&continue=${p1.json.metadata.continue}`);
    expect(p2.json.items.map((p: any) => p.metadata.name)).toEqual(['b']);
    expect(p2.json.metadata.continue).toBeUndefined();
  });

  it('serves resourceVersion=0 with a limit in full, without continue (like the watch cache)', async () => {
    const r = await get('/api/v1/pods?limit=2&resourceVersion=0');
    expect(r.json.items).toHaveLength(6);
    expect(r.json.metadata.continue).toBeUndefined();
  });

  it('filters by field selector spec.nodeName and rejects unknown fields with 400', async () => {
    const r = await get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn1');
    expect(r.json.items.map((p: any) => p.metadata.name)).toEqual(['a']);
    const bad = await get('/api/v1/pods?fieldSelector=spec.foo%3Dx');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message: 'field label not supported: spec.foo' });
    const badLabel = await get('/api/v1/pods?labelSelector=a%20in%20(');
    expect(badLabel.status).toBe(400);
  });

  it('validates resourceVersionMatch with 422 ListOptions errors', async () => {
    const noRv = await get('/api/v1/pods?resourceVersionMatch=Exact');
    expect(noRv.status).toBe(422);
    expect(noRv.json).toMatchObject({ reason: 'Invalid', details: { group: 'meta.k8s.io', kind: 'ListOptions' } });
    expect(noRv.json.message).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    expect(noRv.json.details.causes).toEqual([{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' }]);
    const tok = encodeContinue(sim.api.currentRevision(), 'default/a');
    expect((await get(`/api/v1/pods?continue=${tok}&resourceVersionMatch=NotOlderThan&resourceVersion=5`)).status).toBe(422);
    expect((await get('/api/v1/pods?resourceVersionMatch=Exact&resourceVersion=0')).json.message).toContain('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    expect((await get('/api/v1/pods?resourceVersionMatch=Bogus&resourceVersion=1')).status).toBe(422);
    expect((await get('/api/v1/pods?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=1')).json.message).toContain('sendInitialEvents is forbidden for list');
  });

  it('answers 400 for continue with a resourceVersion and for undecodable tokens', async () => {
    const tok = encodeContinue(sim.api.currentRevision(), 'default/a');
    const r = await get(`/api/v1/pods?continue=${tok}&resourceVersion=5`);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('specifying resource version is not allowed when using continue');
    const bad = await get('/api/v1/pods?continue=notatoken!');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^invalid continue token/);
  });

  it('lists at an exact past revision (legacy limit rule and resourceVersionMatch=Exact)', async () => {
    const rv = sim.api.currentRevision();
    const tmp = sim.api.create(PODS, pod('tmp'));
    const exact = await get(`/api/v1/namespaces/default/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.json.metadata.resourceVersion).toBe(String(rv));
    expect(exact.json.items.map((p: any) => p.metadata.name)).not.toContain('tmp');
    const legacy = await get(`/api/v1/namespaces/default/pods?resourceVersion=${rv}&limit=100`);
    expect(legacy.json.metadata.resourceVersion).toBe(String(rv));
    const notOlder = await get(`/api/v1/namespaces/default/pods?resourceVersion=${rv}`);
    expect(notOlder.json.metadata.resourceVersion).toBe(tmp.metadata.resourceVersion);
    sim.api.delete(PODS, 'default', 'tmp');
  });

  it('answers 504 Timeout with Retry-After for a resourceVersion newer than the store, after waiting', async () => {
    const cur = sim.api.currentRevision();
    const r = await get(`/api/v1/pods?resourceVersion=${cur + 100}`);
    expect(r.status).toBe(504);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json).toMatchObject({
      reason: 'Timeout', code: 504, message: `Timeout: Too large resource version: ${cur + 100}, current: ${cur}`,
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    });
  });

  it('expires compacted revisions: 410 for an Exact list, and 410 with a fresh token for an old continue', async () => {
    const p1 = await get('/api/v1/namespaces/default/pods?limit=2');
    const rv = Number(p1.json.metadata.resourceVersion);
    sim.api.create(PODS, pod('later'));
    sim.faults.compact();
    const exact = await get(`/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.json).toMatchObject({ reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
    const cont = await get(`/api/v1/namespaces/default/pods?limit=2&continue=${p1.json.metadata.continue}`);
    expect(cont.status).toBe(410);
    expect(cont.json.message).toBe('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
    const fresh = cont.json.metadata.continue;
    expect(JSON.parse(Buffer.from(fresh, 'base64url').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: -1, start: 'b\u0000' });
    const rest = await get(`/api/v1/namespaces/default/pods?limit=10&continue=${fresh}`);
    expect(rest.json.items.map((p: any) => p.metadata.name)).toEqual(['c', 'd', 'e', 'later']);
    sim.api.delete(PODS, 'default', 'later');
  });

  it('accepts and ignores the client-go timeout parameter and treats watch=false as LIST', async () => {
    const r = await get('/api/v1/pods?timeout=7m3s&watch=false');
    expect(r.json.kind).toBe('PodList');
    const r0 = await get('/api/v1/pods?watch=0');
    expect(r0.json.kind).toBe('PodList');
  });
});
