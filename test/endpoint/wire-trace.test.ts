// The endpoint's trace records (src/endpoint/wire-trace.ts) built from what a request and its answer were, without a
// server: what each record says (http, list, write with its diff and dry-run verdict, watch, question) and the
// findings derived from a sequence of writes (periodic, fight, stale-write). The endpoint's session tests reach the
// same code over HTTP; this file states each record field by field, with a fake clock where time matters.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scanWatchEvent } from '../../src/endpoint/body-scan.js';
import { ClientSession } from '../../src/endpoint/client-session.js';
import { requestInfo } from '../../src/endpoint/request-info.js';
import type { CapturedResponse } from '../../src/endpoint/response-capture.js';
import { decodedObject } from '../../src/endpoint/sent-object.js';
import { HeldPages } from '../../src/endpoint/held-pages.js';
import { encodeCbor } from '../../src/sim/cbor-wire.js';
import { WireTrace } from '../../src/endpoint/wire-trace.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';

const T0 = Date.UTC(2026, 10, 29, 5, 0, 0);
beforeEach(() => { vi.useFakeTimers(); vi.setSystemTime(T0); });
afterEach(() => { vi.useRealTimers(); });

function answer(status: number, body?: object | string, o: { contentType?: string; aborted?: boolean; tooLarge?: boolean } = {}): CapturedResponse {
  const b = body === undefined ? Buffer.alloc(0) : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { status, contentType: o.contentType ?? 'application/json', bytes: b.length + (o.tooLarge ? 1 << 30 : 0), aborted: o.aborted ?? false, chunks: o.tooLarge ? undefined : [b], body: o.tooLarge ? undefined : b };
}

function setup(listen = true) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  if (listen) tracer.subscribe((r) => records.push(r));
  const trace = new WireTrace(tracer);
  const s = new ClientSession('manager', 'manager/v0');
  const ops = (op: string) => records.filter((r) => r.op === op).map((r) => { const { time: _t, id: _id, ...rest } = r as TraceRecord & Record<string, unknown>; return rest; });
  return { tracer, trace, s, records, ops };
}

const cm = (name: string, rv: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'demo', resourceVersion: rv, uid: `uid-${name}`, ...extra }, data });
const body = (o: object) => Buffer.from(JSON.stringify(o));
const write = (mode: string, extra: { base?: Record<string, unknown>; body?: Buffer; sentAt?: number; refused?: string } = {}) =>
  ({ mode, body: extra.body, contentType: 'application/json', base: extra.base, loopThreshold: 99, ...(extra.refused ? { refused: extra.refused } : {}), ...(extra.sentAt !== undefined ? { sentAt: extra.sentAt } : {}) });

describe('http and refused records', () => {
  it('names the request: client, pid, method, path, the telling query decoded, status, time and size; aborted and refused when so', () => {
    const { trace, s, ops } = setup();
    const info = requestInfo('GET', '/api/v1/namespaces/demo/pods/p1?pretty=true&resourceVersion=5&labelSelector=app%3Dweb&limit=10');
    trace.http(s, info, 'GET', answer(200, { a: 1 }), 12, { pid: 42 });
    trace.http(s, info, 'GET', answer(200, { a: 1 }, { aborted: true }), 3);
    trace.http(s, requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), 'POST', answer(403, {}), 1, { sent: new URLSearchParams('dryRun=All&x=1'), refusal: { reason: 'Forbidden', message: 'no' } });
    trace.http(s, requestInfo('GET', '/api/v1/pods?watch=true'), 'GET', answer(200, '{}'), 9);
    expect(ops('http')).toStrictEqual([
      { stage: 'endpoint', op: 'http', key: 'demo/p1', client: 'manager', pid: 42, method: 'GET', path: '/api/v1/namespaces/demo/pods/p1', query: 'resourceVersion=5&limit=10&labelSelector=app=web', status: 200, ms: 12, bytes: 7 },
      { stage: 'endpoint', op: 'http', key: 'demo/p1', client: 'manager', method: 'GET', path: '/api/v1/namespaces/demo/pods/p1', query: 'resourceVersion=5&limit=10&labelSelector=app=web', status: 200, ms: 3, bytes: 7, aborted: true },
      { stage: 'endpoint', op: 'http', key: undefined, client: 'manager', method: 'POST', path: '/api/v1/namespaces/demo/configmaps', query: 'dryRun=All', status: 403, ms: 1, bytes: 2, refused: 'Forbidden', error: 'no' },
      // A watch's size is not its answer's: no bytes.
      { stage: 'endpoint', op: 'http', key: undefined, client: 'manager', method: 'GET', path: '/api/v1/pods', query: 'watch=true', status: 200, ms: 9 },
    ]);
  });

  it('records kwatch\'s own refusals even when no listener asks for http records', () => {
    const { tracer, trace, s, records } = setup(false);
    const seen: TraceRecord[] = [];
    tracer.subscribe((r) => seen.push(r), { wants: (stage) => stage === 'reconcile', skipped: () => {} });
    trace.http(s, requestInfo('GET', '/api/v1/pods'), 'GET', answer(200, {}), 1);
    trace.refused('ctl', requestInfo('DELETE', '/api/v1/namespaces/demo/pods/p1'), 'DELETE', 415, 'UnsupportedMediaType', 'bad type', 2);
    expect(records).toEqual([]);
    expect(seen.filter((r) => r.op === 'refused' || (r.op === 'http' && (r as { refused?: string }).refused))).toEqual([
      expect.objectContaining({ stage: 'endpoint', op: 'http', key: 'demo/p1', client: 'ctl', method: 'DELETE', status: 415, refused: 'UnsupportedMediaType', error: 'bad type', ms: 2 }),
    ]);
    trace.refused('ctl', requestInfo('POST', '/api/v1/namespaces/demo/pods'), 'POST', 413, 'RequestEntityTooLarge', 'big', 1);
    expect(seen.at(-1)).toMatchObject({ key: undefined, path: '/api/v1/namespaces/demo/pods' });
  });
});

describe('read: lists and gets', () => {
  it('keeps a got object as the client\'s newest, but not a Table or a Status, and not an error answer', () => {
    const { trace, s } = setup();
    const get = requestInfo('GET', '/api/v1/namespaces/demo/configmaps/c1');
    expect(trace.read(s, get, answer(200, cm('c1', '5')))).toBeUndefined();
    expect(s.newest('configmaps', 'demo/c1')?.rv).toBe('5');
    trace.read(s, get, answer(200, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9' }, rows: [] }));
    trace.read(s, get, answer(200, { kind: 'Status', metadata: { name: 'c1', namespace: 'demo', resourceVersion: '8' } }));
    trace.read(s, get, answer(404, cm('c1', '7')));
    expect(s.newest('configmaps', 'demo/c1')?.rv).toBe('5');
  });

  it('a list page: its items kept, and a list record with its count, page, continue, remaining and resourceVersion', () => {
    const { trace, s, ops } = setup();
    const page = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '20', continue: 'tok', remainingItemCount: 3 }, items: [cm('a', '11'), cm('b', '12')] };
    expect(trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps?limit=2'), answer(200, page))).toBe('20');
    expect(s.newest('configmaps', 'demo/b')?.rv).toBe('12');
    expect(trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps?limit=2&continue=tok'), answer(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '20' }, items: [] }))).toBe('20');
    expect(trace.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, 'not json', { contentType: 'text/plain' }))).toBeUndefined();
    trace.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, undefined, { tooLarge: true }));
    trace.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, { kind: 'Table', metadata: { resourceVersion: '21' }, rows: [{ cells: [] }, { cells: [] }] }));
    expect(trace.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(500, page))).toBeUndefined();
    expect(ops('list')).toEqual([
      { stage: 'endpoint', op: 'list', key: 'demo', rv: '20', client: 'manager', resource: 'configmaps', items: 2, continue: true, remaining: 3 },
      { stage: 'endpoint', op: 'list', key: 'demo', rv: '20', client: 'manager', resource: 'configmaps', items: 0, page: 'next' },
      { stage: 'endpoint', op: 'list', key: undefined, rv: undefined, client: 'manager', resource: 'configmaps', items: undefined, bytes: 8, traced: 'size only (not JSON)' },
      { stage: 'endpoint', op: 'list', key: undefined, rv: undefined, client: 'manager', resource: 'configmaps', items: undefined, bytes: 1 << 30, traced: 'size only (too large to decode)' },
      { stage: 'endpoint', op: 'list', key: undefined, rv: '21', client: 'manager', resource: 'configmaps', items: 2 },
    ]);
  });

  it('collections and resources: group, namespace, selectors; a non-resource path as itself', () => {
    const { trace } = setup();
    expect(trace.collectionOf(requestInfo('GET', '/apis/apps/v1/namespaces/demo/deployments?labelSelector=a%3Db&fieldSelector=x'))).toBe('deployments.apps demo a=b x');
    expect(trace.collectionOf(requestInfo('GET', '/api/v1/pods'))).toBe('pods *  ');
    expect(trace.resourceOf(requestInfo('GET', '/version'))).toBe('/version');
  });
});

describe('write records', () => {
  it('an update: its diff against the newest version the client was sent, the key\'s tally, and what a refusal says', () => {
    const { trace, s, ops } = setup();
    const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    const base = cm('c1', '5', { a: '1', b: '2' });
    trace.write(s, put, answer(200, cm('c1', '6', { a: '9', b: '2' })), write('apply', { base, body: body(cm('c1', '5', { a: '9', b: '2' })) }));
    trace.write(s, put, answer(409, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Conflict', code: 409, message: 'modified' }), write('apply', { base, refused: 'stale' }));
    trace.write(s, put, answer(500, { kind: 'Status', message: 'injected by kwatch: 500' }), write('apply'));
    const [ok, conflict, injected] = ops('write');
    expect(ok).toEqual({ stage: 'endpoint', op: 'write', key: 'demo/c1', rv: '6', client: 'manager', verb: 'update', resource: 'configmaps', mode: 'apply', code: 200, old: base, new: cm('c1', '6', { a: '9', b: '2' }) });
    expect(conflict).toEqual({ stage: 'endpoint', op: 'write', key: 'demo/c1', rv: undefined, client: 'manager', verb: 'update', resource: 'configmaps', mode: 'apply', code: 409, refused: 'stale', error: 'modified', reason: 'Conflict', old: base });
    expect(injected).toMatchObject({ code: 500, error: 'injected by kwatch: 500' });
    expect(injected).not.toHaveProperty('reason');
    const w = trace.written.get('manager configmaps demo/c1')!;
    expect({ ...w, fields: [...w.fields] }).toEqual({ client: 'manager', resource: 'configmaps', key: 'demo/c1', writes: 3, changing: 1, fields: ['data.a'], lastCode: 500, lastAt: T0, lastInjected: true, failedWrites: 2, lastReason: undefined });
    // The answer is what the client now holds.
    expect(s.newest('configmaps', 'demo/c1')?.rv).toBe('6');
  });

  it('a create: named by generateName when the server named nothing, with its kind, controller owner, labels and fields', () => {
    const { trace, s, ops } = setup();
    const post = requestInfo('POST', '/api/v1/namespaces/demo/pods');
    const owners = [{ kind: 'ReplicaSet', name: 'rs-0', uid: 'u0' }, { kind: 'ReplicaSet', name: 'rs-1', uid: 'u1', controller: true }];
    const created = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web-x1', namespace: 'demo', resourceVersion: '30', labels: { app: 'web', tier: 'f' }, ownerReferences: owners }, spec: {}, status: {} };
    trace.write(s, post, answer(201, created), write('overlay', { body: body({ metadata: { generateName: 'web-' } }) }));
    trace.write(s, post, answer(422, { kind: 'Status', reason: 'Invalid', message: 'bad' }), write('overlay', { body: body({ metadata: { generateName: 'web-' } }) }));
    trace.write(s, post, answer(201, { kind: 'Pod', metadata: { name: 'bare', namespace: 'demo', resourceVersion: '31', ownerReferences: [{ uid: 'z' }] } }), write('overlay'));
    trace.write(s, requestInfo('POST', '/api/v1/namespaces'), answer(201, { metadata: { name: 'ns1', resourceVersion: '32' } }), write('overlay', { body: body({ metadata: { name: 'ns1' } }) }));
    expect(ops('write').map((r) => [r.key, r.code, (r as { kind?: string }).kind, (r as { owner?: string }).owner, (r as { labels?: string[] }).labels, (r as { fields?: string[] }).fields])).toEqual([
      ['demo/web-x1', 201, 'Pod', 'ReplicaSet/rs-1', ['app=web', 'tier=f'], ['spec', 'status']],
      ['demo/web-*', 422, undefined, undefined, undefined, undefined],
      ['demo/bare', 201, 'Pod', '?/?', undefined, undefined],
      ['ns1', 201, undefined, undefined, undefined, undefined],
    ]);
    const w = trace.written.get('manager pods demo/web-*')!;
    expect(w).toMatchObject({ writes: 1, failedWrites: 1, changing: 0, lastCode: 422, lastReason: 'Invalid', lastInjected: false });
    expect(trace.written.get('manager pods demo/web-x1')).toMatchObject({ changing: 1, fields: new Set(['(created)']) });
  });

  it('a delete and a deletecollection: keyed by the object and by the namespace, each a change', () => {
    const { trace, s } = setup();
    trace.write(s, requestInfo('DELETE', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '40')), write('apply'));
    trace.write(s, requestInfo('DELETE', '/api/v1/namespaces/demo/configmaps'), answer(200, { kind: 'Status', status: 'Success' }), write('apply'));
    trace.write(s, requestInfo('DELETE', '/api/v1/configmaps'), answer(200, { kind: 'Status', status: 'Success' }), write('apply'));
    expect([...trace.written.values()].map((w) => [w.key, [...w.fields]])).toEqual([['demo/c1', ['(deleted)']], ['demo', ['(deleted)']], ['*', ['(deleted)']]]);
    // The deleted object is no longer what the client holds.
    expect(s.newest('configmaps', 'demo/c1')).toBeUndefined();
  });

  it('under server-dry-run says in words what the target would do', () => {
    const { trace, s, ops } = setup();
    const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    const base = cm('c1', '5', { a: '1', b: '2' });
    trace.write(s, put, answer(200, cm('c1', '5', { a: '2', b: '3' })), write('server-dry-run', { base }));
    trace.write(s, put, answer(200, cm('c1', '5', { a: '2', b: '2' })), write('server-dry-run', { base }));
    trace.write(s, put, answer(200, base), write('server-dry-run', { base }));
    trace.write(s, put, answer(200, base), write('server-dry-run'));
    trace.write(s, requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), answer(201, cm('c2', '')), write('server-dry-run'));
    trace.write(s, requestInfo('DELETE', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '5')), write('server-dry-run'));
    trace.write(s, requestInfo('DELETE', '/api/v1/namespaces/demo/configmaps'), answer(200, { kind: 'Status' }), write('server-dry-run'));
    trace.write(s, put, answer(422, { kind: 'Status', reason: 'Invalid', message: 'data: too long' }), write('server-dry-run'));
    trace.write(s, put, answer(409, { kind: 'Status', reason: '', message: '' }), write('server-dry-run'));
    trace.write(s, put, answer(503, 'busy', { contentType: 'text/plain' }), write('server-dry-run'));
    trace.write(s, put, answer(302, {}), write('server-dry-run'));
    expect(ops('write').map((r) => (r as { answer?: string }).answer)).toEqual([
      'would change 2 fields: data.a, data.b',
      'would change 1 field: data.a',
      'would change nothing',
      'the object the server would store (the target\'s current one could not be read to compare)',
      'the object the server would store',
      'would delete it',
      'would delete it',
      'refused: 422 Invalid: data: too long',
      'refused: 409',
      'refused: 503',
      'refused: 302',
    ]);
    // Other modes carry no verdict.
    trace.write(s, put, answer(200, base), write('intercept', { base }));
    expect(ops('write').at(-1)).not.toHaveProperty('answer');
  });

  it('compares a list item without kind and apiVersion as the answer\'s kind, and a /scale write against the Scale the client read', () => {
    const { trace, s, ops } = setup();
    const item = { metadata: { name: 'c1', namespace: 'demo', resourceVersion: '5', uid: 'uid-c1' }, data: { a: '1' } };
    trace.write(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '6', { a: '1' }, {})), write('apply', { base: item }));
    const rec = ops('write')[0] as { old?: Record<string, unknown> };
    expect(rec.old).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', ...item });
    // No change but the resourceVersion: not a changing write.
    expect(trace.written.get('manager configmaps demo/c1')!.changing).toBe(0);

    const deploy = { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'd', namespace: 'demo', resourceVersion: '7', uid: 'ud' }, spec: { replicas: 2 }, status: { replicas: 2 } };
    trace.read(s, requestInfo('GET', '/apis/apps/v1/namespaces/demo/deployments/d'), answer(200, deploy));
    const scaleInfo = requestInfo('PUT', '/apis/apps/v1/namespaces/demo/deployments/d/scale');
    const base = trace.baseOf(s, scaleInfo)!;
    expect(base).toMatchObject({ kind: 'Deployment', spec: { replicas: 2 } });
    const scale = { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'd', namespace: 'demo', resourceVersion: '8', uid: 'ud' }, spec: { replicas: 5 }, status: { replicas: 2 } };
    trace.write(s, scaleInfo, answer(200, scale), write('apply', { base }));
    expect(ops('write').at(-1)).toMatchObject({ subresource: 'scale', old: { kind: 'Scale', spec: { replicas: 2 } }, new: scale });
    expect([...trace.written.get('manager deployments.apps demo/d')!.fields]).toEqual(['spec.replicas']);
    // The Scale is kept apart: the next /scale write's base is the newer Scale, the parent stays the Deployment.
    expect(trace.baseOf(s, scaleInfo)).toMatchObject({ kind: 'Scale', metadata: { resourceVersion: '8' } });
    expect(trace.baseOf(s, requestInfo('PUT', '/apis/apps/v1/namespaces/demo/deployments/d'))).toMatchObject({ kind: 'Deployment' });
    expect(trace.baseOf(s, requestInfo('POST', '/apis/apps/v1/namespaces/demo/deployments'))).toBeUndefined();
    // Objects the client was never sent: no base.
    expect(trace.baseOf(s, requestInfo('PUT', '/apis/apps/v1/namespaces/demo/deployments/never'))).toBeUndefined();
    expect(trace.baseOf(s, requestInfo('PUT', '/apis/apps/v1/namespaces/demo/deployments/never/scale'))).toBeUndefined();
    // Another kind's Scale of the same name is not this one's.
    trace.read(s, requestInfo('GET', '/apis/apps/v1/namespaces/demo/statefulsets/d/scale'), answer(200, { ...scale, metadata: { ...scale.metadata, resourceVersion: '50' } }));
    expect(trace.baseOf(s, scaleInfo)).toMatchObject({ kind: 'Scale', metadata: { resourceVersion: '8' } });
  });

  it('a trigger: an event of the key since the client\'s previous write, not the write\'s own echo', () => {
    const { trace, s, ops } = setup();
    const line = (type: string, o: object) => scanWatchEvent(Buffer.from(`${JSON.stringify({ type, object: o })}\n`));
    const watch = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=true');
    trace.watchEvent(s, watch, line('MODIFIED', cm('c1', '5', { a: '1' })));
    vi.advanceTimersByTime(100);
    const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    trace.write(s, put, answer(200, cm('c1', '6', { a: '2' })), write('apply', { base: cm('c1', '5', { a: '1' }) }));
    expect(ops('write').at(-1)).toMatchObject({ after: ['MODIFIED configmaps demo/c1@5'], trigger: 'inferred' });
    // Its own echo (rv 6), then a write: the echo is no trigger, and the event before the previous write is spent.
    trace.watchEvent(s, watch, line('MODIFIED', cm('c1', '6', { a: '2' })));
    vi.advanceTimersByTime(100);
    trace.write(s, put, answer(200, cm('c1', '6', { a: '2' })), write('apply', { base: cm('c1', '6', { a: '2' }) }));
    expect(ops('write').at(-1)).not.toHaveProperty('after');
    // An event whose object carries no resourceVersion is named without one.
    const { metadata: { resourceVersion: _rv, ...bare }, ...rest } = cm('c2', '', { a: '1' });
    trace.watchEvent(s, watch, line('ADDED', { ...rest, metadata: bare }));
    vi.advanceTimersByTime(100);
    trace.write(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c2'), answer(200, cm('c2', '7', { a: '2' })), write('apply'));
    expect(ops('write').at(-1)).toMatchObject({ after: ['ADDED configmaps demo/c2'] });
  });
});

describe('write bookkeeping', () => {
  const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
  const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, code, message });

  it('counts a 300, a 4xx and a 5xx as failed; an injected refusal of any 4xx as injected; a Status answer is no new object', () => {
    const { trace, s, ops } = setup();
    trace.write(s, put, answer(300, {}), write('apply'));
    expect(trace.written.get('manager configmaps demo/c1')).toMatchObject({ failedWrites: 1, lastCode: 300 });
    trace.write(s, put, answer(400, status(400, 'BadRequest', 'injected by kwatch: 400')), write('apply'));
    expect(trace.written.get('manager configmaps demo/c1')).toMatchObject({ failedWrites: 2, lastInjected: true, lastReason: 'BadRequest' });
    trace.write(s, put, answer(422, status(422, 'Invalid', 'bad')), write('apply', { base: cm('c1', '5') }));
    expect(ops('write').at(-1)).toStrictEqual({ stage: 'endpoint', op: 'write', key: 'demo/c1', rv: undefined, client: 'manager', verb: 'update', resource: 'configmaps', mode: 'apply', code: 422, error: 'bad', reason: 'Invalid', old: cm('c1', '5') });
    expect(trace.written.get('manager configmaps demo/c1')).toMatchObject({ lastInjected: false, lastReason: 'Invalid' });
    // A Status with an empty reason and no message: an empty error, no reason.
    trace.write(s, put, answer(409, { kind: 'Status', metadata: {}, reason: '' }), write('apply'));
    expect(ops('write').at(-1)).toMatchObject({ code: 409, error: '' });
    expect(ops('write').at(-1)).not.toHaveProperty('reason');
  });

  it('an update with no base to compare: no fields said changed; a create with no name at all: keyed by its namespace alone', () => {
    const { trace, s } = setup();
    trace.write(s, put, answer(200, cm('c1', '6', { a: '1' })), write('apply'));
    expect(trace.written.get('manager configmaps demo/c1')).toMatchObject({ changing: 0, fields: new Set() });
    trace.write(s, requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), answer(422, status(422, 'Invalid', 'name or generateName is required')), write('apply', { body: body({ data: {} }) }));
    expect([...trace.written.keys()]).toEqual(['manager configmaps demo/c1', 'manager configmaps demo/']);
  });

  it('remembers the client\'s own write only where it is stored (overlay, apply): a stale-read follows there alone, and says so once', () => {
    for (const [mode, stored] of [['apply', true], ['overlay', true], ['intercept', false], ['server-dry-run', false]] as const) {
      const { trace, s, ops } = setup();
      trace.write(s, put, answer(200, cm('c1', '12')), write(mode));
      trace.staleWrite(s, put, body(cm('c1', '10')), 'application/json');
      expect(ops('stale-read').length, mode).toBe(stored ? 1 : 0);
      trace.write(s, put, answer(409, status(409, 'Conflict', 'modified')), write(mode));
      expect(ops('write').at(-1)?.staleRead, mode).toBe(stored ? '12' : undefined);
      // The next write of the key is no stale read any more.
      trace.write(s, put, answer(200, cm('c1', '13')), write(mode));
      expect(ops('write').at(-1), mode).not.toHaveProperty('staleRead');
    }
    const failed = setup();
    failed.trace.write(failed.s, put, answer(500, status(500, 'InternalError', 'x')), write('apply'));
    failed.trace.staleWrite(failed.s, put, body(cm('c1', '10')), 'application/json');
    expect(failed.ops('stale-read')).toEqual([]);
  });

  it('does not take the write\'s own echo, come before its answer, for its trigger; an event of another key of that version is one', () => {
    const { trace, s, ops } = setup();
    const watch = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=true');
    const event = (o: object) => trace.watchEvent(s, watch, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'MODIFIED', object: o }))));
    trace.write(s, put, answer(200, cm('c1', '6')), write('apply'));
    vi.advanceTimersByTime(1000);
    const sentAt = Date.now();
    vi.advanceTimersByTime(5);
    event(cm('c1', '7', { a: 'echo' }));
    vi.advanceTimersByTime(5);
    trace.write(s, put, answer(200, cm('c1', '7', { a: 'echo' })), write('apply', { sentAt }));
    expect(ops('write').at(-1)).not.toHaveProperty('after');
    vi.advanceTimersByTime(1000);
    const sentAt2 = Date.now();
    vi.advanceTimersByTime(5);
    event(cm('c1', '8', { a: 'outside' }));
    vi.advanceTimersByTime(5);
    trace.write(s, put, answer(200, cm('c1', '9')), write('apply', { sentAt: sentAt2 }));
    expect(ops('write').at(-1)).toMatchObject({ after: ['MODIFIED configmaps demo/c1@7 (own write)', 'MODIFIED configmaps demo/c1@8'] });
  });

  it('a client rewriting a key after each echo of its own write: one loop record once past the threshold', () => {
    const { trace, s, ops } = setup();
    const watch = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=true');
    let rv = 10;
    const round = () => {
      const prev = String(rv);
      trace.write(s, put, answer(200, cm('c1', String(++rv), { n: String(rv) })), { ...write('apply', { base: cm('c1', prev, { n: prev }) }), loopThreshold: 3 });
      vi.advanceTimersByTime(20);
      trace.watchEvent(s, watch, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'MODIFIED', object: cm('c1', String(rv), { n: String(rv) }) }))));
      vi.advanceTimersByTime(20);
    };
    // Four writes and more, faster than any heartbeat: still judged as a loop.
    round(); round(); round(); round();
    expect(ops('loop')).toEqual([]);
    round();
    expect(ops('loop')).toEqual([{ stage: 'endpoint', op: 'loop', key: 'demo/c1', client: 'manager', resource: 'configmaps', rounds: 4, fields: ['data.n'], note: 'manager rewrote demo/c1 4 times in a row, each time after the echo of its own write' }]);
    expect(trace.written.get('manager configmaps demo/c1')!.loop).toEqual({ rounds: 4, fields: ['data.n'] });
    round(); round();
    expect(ops('loop')).toHaveLength(1);
  });
});

describe('findings from a run of writes', () => {
  const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/lease');

  it('a key written at a steady pace with no event behind it is periodic, said once, with its period', () => {
    const { trace, s, ops } = setup();
    for (let i = 0; i < 6; i++) {
      trace.write(s, put, answer(200, cm('lease', String(10 + i), { t: String(i) })), write('apply', { base: cm('lease', String(9 + i), { t: String(i - 1) }) }));
      vi.advanceTimersByTime(i % 2 ? 2000 : 2400);
    }
    expect(ops('periodic')).toEqual([{ stage: 'endpoint', op: 'periodic', key: 'demo/lease', client: 'manager', resource: 'configmaps', everyMs: 2267, note: 'manager writes demo/lease every ~2.3 s with no event triggering it (a lease renewal or a heartbeat): neither a loop nor a write to wait for' }]);
    expect(trace.written.get('manager configmaps demo/lease')!.periodic).toEqual({ everyMs: 2267 });
  });

  it('is not periodic when the writes come faster than a second, or at an uneven pace, or after an outside event', () => {
    const fast = setup();
    for (let i = 0; i < 6; i++) { fast.trace.write(fast.s, put, answer(200, cm('lease', String(10 + i))), write('apply')); vi.advanceTimersByTime(999); }
    expect(fast.ops('periodic')).toEqual([]);
    const uneven = setup();
    for (const gap of [1000, 1600, 1000, 1600, 1000, 1600]) { uneven.trace.write(uneven.s, put, answer(200, cm('lease', '1')), write('apply')); vi.advanceTimersByTime(gap); }
    expect(uneven.ops('periodic')).toEqual([]);
    // Exactly at the bounds (1 s, spread 1.5): periodic.
    const edge = setup();
    for (const gap of [1000, 1500, 1000, 0]) { edge.trace.write(edge.s, put, answer(200, cm('lease', '1')), write('apply')); vi.advanceTimersByTime(gap); }
    expect(edge.ops('periodic')).toHaveLength(1);
    // The pace of the last four writes counts: an early irregular gap does not hide a steady pace after it.
    const settled = setup();
    for (const gap of [5000, 1000, 1000, 1000, 1000]) { settled.trace.write(settled.s, put, answer(200, cm('lease', '1')), write('apply')); vi.advanceTimersByTime(gap); }
    expect(settled.ops('periodic')).toHaveLength(1);
    // Refused writes are no heartbeat.
    const refused = setup();
    for (let i = 0; i < 6; i++) { refused.trace.write(refused.s, put, answer(409, { kind: 'Status', metadata: {}, reason: 'Conflict' }), write('apply')); vi.advanceTimersByTime(2000); }
    expect(refused.ops('periodic')).toEqual([]);
    const triggered = setup();
    const watch = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=true');
    for (let i = 0; i < 6; i++) {
      triggered.trace.watchEvent(triggered.s, watch, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'MODIFIED', object: cm('lease', String(100 + i)) }))));
      triggered.trace.write(triggered.s, put, answer(200, cm('lease', String(200 + i))), write('apply'));
      vi.advanceTimersByTime(2000);
    }
    expect(triggered.ops('periodic')).toEqual([]);
  });

  it('two clients undoing each other\'s field: one fight record per object after three changes of hands', () => {
    const { trace, ops } = setup();
    const a = new ClientSession('a', 'a/v1');
    const b = new ClientSession('b', 'b/v1');
    const put2 = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    let rv = 1;
    const flip = (who: ClientSession, v: string) => { trace.write(who, put2, answer(200, cm('c1', String(++rv), { x: v, y: v })), write('apply', { base: cm('c1', String(rv - 1), { x: 'old', y: 'old' }) })); vi.advanceTimersByTime(10); };
    flip(a, '1'); flip(a, '2'); flip(b, '3'); flip(a, '4');
    expect(ops('fight')).toEqual([]);
    flip(b, '5');
    expect(ops('fight')).toEqual([{ stage: 'endpoint', op: 'fight', key: 'demo/c1', client: 'b', resource: 'configmaps', field: 'data.x', clients: ['a', 'b'], switches: 3, note: 'a and b keep rewriting data.x of demo/c1, each undoing the other (3 changes of hands)' }]);
    flip(a, '6'); flip(b, '7');
    expect(ops('fight')).toHaveLength(1);
    expect(trace.fights).toEqual([{ resource: 'configmaps', key: 'demo/c1', field: 'data.x', clients: ['a', 'b'], switches: 3 }]);
  });

  it('two clients creating and deleting one object in turn is no fight', () => {
    const { trace, ops } = setup();
    const a = new ClientSession('a', 'a/v1');
    const b = new ClientSession('b', 'b/v1');
    for (let i = 0; i < 4; i++) {
      trace.write(a, requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), answer(201, cm('c1', String(2 * i + 1))), write('apply'));
      trace.write(b, requestInfo('DELETE', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', String(2 * i + 2))), write('apply'));
      trace.write(b, requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), answer(201, cm('c1', String(2 * i + 3))), write('apply'));
      trace.write(a, requestInfo('DELETE', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', String(2 * i + 4))), write('apply'));
    }
    expect(ops('fight')).toEqual([]);
  });

  it('a write from an older resourceVersion than the client was sent is a stale-write; a newer, equal or opaque one is not', () => {
    const { trace, s, ops } = setup();
    trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '100')));
    const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    trace.staleWrite(s, put, body(cm('c1', '99')), 'application/json');
    trace.staleWrite(s, requestInfo('PATCH', '/api/v1/namespaces/demo/configmaps/c1'), body({ metadata: { resourceVersion: '20' } }), 'application/merge-patch+json');
    for (const rv of ['100', '101', 'abc', '']) trace.staleWrite(s, put, body(cm('c1', rv)), 'application/json');
    trace.staleWrite(s, put, body({ metadata: { resourceVersion: 5 } }), 'application/json');
    trace.staleWrite(s, requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), body(cm('c1', '1')), 'application/json');
    trace.staleWrite(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/other'), body(cm('other', '1')), 'application/json');
    expect(ops('stale-write')).toEqual([
      { stage: 'endpoint', op: 'stale-write', key: 'demo/c1', rv: '99', client: 'manager', resource: 'configmaps', newest: '100', note: 'manager writes from resourceVersion 99 though it was sent 100: a 409 Conflict follows' },
      expect.objectContaining({ op: 'stale-write', rv: '20', newest: '100' }),
    ]);
    // resourceVersions past 2^53 compare as integers.
    trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps/big'), answer(200, cm('big', '9007199254740993')));
    trace.staleWrite(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/big'), body(cm('big', '9007199254740992')), 'application/json');
    expect(ops('stale-write').at(-1)).toMatchObject({ key: 'demo/big', rv: '9007199254740992' });
  });
});

describe('watch, question and other records', () => {
  it('a watch\'s start with what it asked for, its events (a bookmark without key, an ERROR with its Status), its close', () => {
    const { trace, s, ops } = setup();
    const info = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=7&allowWatchBookmarks=true&sendInitialEvents=true&labelSelector=a%3Db&fieldSelector=metadata.name%3Dc1');
    trace.watchStart(s, info);
    trace.watchStart(s, requestInfo('GET', '/api/v1/configmaps?watch=1&allowWatchBookmarks=false'));
    trace.watchEvent(s, info, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: cm('c1', '8') }))));
    trace.watchEvent(s, info, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { name: 'x', namespace: 'demo', resourceVersion: '9' } } }))));
    trace.watchEvent(s, info, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, message: 'too old' } }))));
    trace.watchClose(s, info, 'client');
    expect(ops('watch')).toEqual([
      { stage: 'endpoint', op: 'watch', key: 'demo', rv: '7', client: 'manager', resource: 'configmaps', event: 'start', bookmarks: true, sendInitialEvents: true, labelSelector: 'a=b', fieldSelector: 'metadata.name=c1' },
      { stage: 'endpoint', op: 'watch', key: undefined, rv: undefined, client: 'manager', resource: 'configmaps', event: 'start' },
      { stage: 'endpoint', op: 'watch', key: 'demo/c1', rv: '8', type: 'ADDED', client: 'manager', resource: 'configmaps', event: 'ADDED' },
      { stage: 'endpoint', op: 'watch', key: undefined, rv: '9', type: 'BOOKMARK', client: 'manager', resource: 'configmaps', event: 'BOOKMARK' },
      { stage: 'endpoint', op: 'watch', key: undefined, rv: undefined, type: 'ERROR', client: 'manager', resource: 'configmaps', event: 'ERROR', code: 410, error: 'too old' },
      { stage: 'endpoint', op: 'watch', key: 'demo', client: 'manager', resource: 'configmaps', event: 'close', reason: 'client' },
    ]);
    // The event is what the client now holds.
    expect(s.newest('configmaps', 'demo/c1')?.rv).toBe('8');
  });

  it('builds a record only for a listener that wants it: a view that hides writes, lists or questions gets none', () => {
    const tracer = new Tracer();
    const wanted: TraceRecord[] = [];
    const hiding: TraceRecord[] = [];
    tracer.subscribe((r) => wanted.push(r), { wants: (stage, op) => stage === 'endpoint' && ['write', 'list', 'question'].includes(op), skipped: () => {} });
    const trace = new WireTrace(tracer);
    const s = new ClientSession('manager', 'manager/v0');
    const drive = () => {
      trace.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '3' }, items: [] }));
      trace.question(s, requestInfo('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'), answer(201, { status: { allowed: true } }), 'apply');
      trace.write(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '4')), write('apply'));
    };
    drive();
    expect(wanted.map((r) => r.op)).toEqual(['list', 'question', 'write']);
    const hidden = new Tracer();
    hidden.subscribe((r) => hiding.push(r), { wants: (stage, op) => stage === 'endpoint' && op === 'http', skipped: () => {} });
    const t2 = new WireTrace(hidden);
    t2.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '3' }, items: [] }));
    t2.question(s, requestInfo('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'), answer(201, { status: { allowed: true } }), 'apply');
    t2.write(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '5')), write('apply'));
    expect(hiding).toEqual([]);
    // The list's resourceVersion is answered either way.
    expect(t2.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '6' }, items: [] }))).toBe('6');
  });

  it('a question: the verdict only (allowed, authenticated), never the token', () => {
    const { trace, s, ops } = setup();
    trace.question(s, requestInfo('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'), answer(201, { kind: 'SelfSubjectAccessReview', status: { allowed: false } }), 'intercept');
    trace.question(s, requestInfo('POST', '/api/v1/namespaces/demo/serviceaccounts/sa/token'), answer(201, { kind: 'TokenRequest', status: { token: 'secret-token', authenticated: true } }), 'overlay');
    trace.question(s, requestInfo('POST', '/apis/authentication.k8s.io/v1/tokenreviews'), answer(201, { status: { allowed: 'yes' } }), 'apply');
    expect(ops('question')).toStrictEqual([
      { stage: 'endpoint', op: 'question', key: undefined, client: 'manager', verb: 'create', resource: 'selfsubjectaccessreviews.authorization.k8s.io', mode: 'intercept', code: 201, allowed: false, note: 'answered by the target, in every --writes mode' },
      { stage: 'endpoint', op: 'question', key: 'demo/sa', client: 'manager', verb: 'create', resource: 'serviceaccounts', subresource: 'token', mode: 'overlay', code: 201, authenticated: true, note: 'a ServiceAccount token minted by the target, in every --writes mode' },
      { stage: 'endpoint', op: 'question', key: undefined, client: 'manager', verb: 'create', resource: 'tokenreviews.authentication.k8s.io', mode: 'apply', code: 201, note: 'answered by the target, in every --writes mode' },
    ]);
    expect(JSON.stringify(ops('question'))).not.toContain('secret-token');
    // A namespaced review has no name: keyed by its namespace.
    trace.question(s, requestInfo('POST', '/apis/authorization.k8s.io/v1/namespaces/demo/localsubjectaccessreviews'), answer(201, { status: { allowed: true } }), 'intercept');
    expect(ops('question').at(-1)).toMatchObject({ key: 'demo', allowed: true });
  });

  it('relist, rewatch-expired, stall and fault records say who, what and why', () => {
    const { trace, s, ops } = setup();
    const info = requestInfo('GET', '/api/v1/namespaces/demo/configmaps/c1');
    trace.relist(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps'), 'why');
    trace.rewatchExpired(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=1'), '5', '10:00:00');
    trace.stall(s, 'configmaps', 61_400);
    trace.fault(s, '410@2', info);
    trace.fault(s, 'drop', requestInfo('GET', '/api/v1/configmaps?watch=1'), scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: cm('c2', '3') }))));
    trace.fault(s, 'x', requestInfo('GET', '/api/v1/configmaps'));
    expect(ops('relist')).toEqual([{ stage: 'endpoint', op: 'relist', key: 'demo', client: 'manager', resource: 'configmaps', reason: 'why' }]);
    expect(ops('rewatch-expired')).toEqual([{ stage: 'endpoint', op: 'rewatch-expired', key: 'demo', rv: '5', client: 'manager', resource: 'configmaps', expiredAt: '10:00:00', note: 'manager watches again from resourceVersion 5, though it was sent 410 Gone at 10:00:00: it gets 410 again; a reflector lists anew instead' }]);
    expect(ops('stall')).toEqual([{ stage: 'endpoint', op: 'stall', client: 'manager', resource: 'configmaps', idleMs: 61_400, note: 'manager\'s watch of configmaps received no event and no bookmark for 61s' }]);
    expect(ops('fault')).toEqual([
      { stage: 'endpoint', op: 'fault', key: 'demo/c1', rv: undefined, client: 'manager', resource: 'configmaps', fault: '410@2' },
      { stage: 'endpoint', op: 'fault', key: 'demo/c2', rv: '3', client: 'manager', resource: 'configmaps', fault: 'drop' },
      { stage: 'endpoint', op: 'fault', key: undefined, rv: undefined, client: 'manager', resource: 'configmaps', fault: 'x' },
    ]);
  });

  it('keeps what --once needs when nobody listens: the written keys and what the client holds', () => {
    const { trace, s, records } = setup(false);
    trace.write(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '6', { a: '2' })), write('apply', { base: cm('c1', '5', { a: '1' }) }));
    trace.watchEvent(s, requestInfo('GET', '/api/v1/configmaps?watch=1'), scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: cm('c9', '8') }))));
    // A list page that is not JSON, and a write body that is not: nothing read, nothing thrown.
    expect(trace.read(s, requestInfo('GET', '/api/v1/configmaps'), answer(200, 'not json', { contentType: 'text/plain' }))).toBeUndefined();
    trace.staleWrite(s, requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1'), Buffer.from('not json'), 'application/json');
    expect(records).toEqual([]);
    expect([...trace.written.get('manager configmaps demo/c1')!.fields]).toEqual(['data.a']);
    expect(s.newest('configmaps', 'demo/c9')?.rv).toBe('8');
    expect(s.newest('configmaps', 'demo/c1')?.rv).toBe('6');
    expect(decodedObject(cm('x', '1')).key).toBe('demo/x');
  });
});

describe('what the rest of the trace says, and to whom', () => {
  it('a listener that wants only http, only watch or only list records gets those alone, each built whole', () => {
    const drive = (only: string) => {
      const tracer = new Tracer();
      const got: TraceRecord[] = [];
      tracer.subscribe((r) => got.push(r), { wants: (stage, op) => stage === 'endpoint' && op === only, skipped: () => {} });
      const trace = new WireTrace(tracer);
      const s = new ClientSession('manager', 'manager/v0');
      const watch = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=1');
      trace.http(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps'), 'GET', answer(200, {}), 1);
      trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps'), answer(200, { kind: 'ConfigMapList', metadata: { resourceVersion: '3', continue: 'k' }, items: [cm('a', '1'), cm('b', '2')] }));
      trace.watchStart(s, watch);
      trace.watchEvent(s, watch, scanWatchEvent(Buffer.from(JSON.stringify({ type: 'ADDED', object: cm('a', '4') }))));
      trace.watchClose(s, watch, 'client');
      return got.map((r) => { const { time: _t, id: _id, ...rest } = r as TraceRecord & Record<string, unknown>; return rest; });
    };
    expect(drive('http')).toEqual([expect.objectContaining({ op: 'http', status: 200 })]);
    // Counted: the page is read on to its end when its count will be shown.
    expect(drive('list')).toEqual([expect.objectContaining({ op: 'list', rv: '3', items: 2, continue: true })]);
    expect(drive('watch').map((r) => (r as { event?: string }).event)).toEqual(['start', 'ADDED', 'close']);
  });

  it('a CBOR list page: its items kept at once, and its count; a CBOR Table counted by rows; a body that does not decode by size', () => {
    const { trace, s, ops } = setup();
    const cbor = () => answer(200, undefined, { contentType: 'application/cbor' });
    const of = (o: object) => { const b = encodeCbor(o); return { ...cbor(), bytes: b.length, chunks: [b], body: b }; };
    const list = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?limit=2');
    expect(trace.read(s, list, of({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '20', continue: 'tok', remainingItemCount: 3 }, items: [cm('a', '11'), cm('b', '12')] }))).toBe('20');
    expect(s.newest('configmaps', 'demo/b')?.rv).toBe('12');
    trace.read(s, list, of({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '21' }, rows: [{ cells: [] }, { cells: [] }, { cells: [] }] }));
    const junk = Buffer.from([0xff, 0x00, 0x13]);
    trace.read(s, list, { ...cbor(), bytes: 3, chunks: [junk], body: junk });
    expect(ops('list')).toStrictEqual([
      { stage: 'endpoint', op: 'list', key: 'demo', rv: '20', client: 'manager', resource: 'configmaps', items: 2, continue: true, remaining: 3 },
      { stage: 'endpoint', op: 'list', key: 'demo', rv: '21', client: 'manager', resource: 'configmaps', items: 3 },
      { stage: 'endpoint', op: 'list', key: 'demo', rv: undefined, client: 'manager', resource: 'configmaps', items: undefined, bytes: 3, traced: 'size only (not JSON)' },
    ]);
  });

  it('a whole relist replaces what the client held of the collection; a list broken off after its first page does not', () => {
    for (const listen of [true, false]) {
      const held = new HeldPages();
      const { trace } = setup(listen);
      const s = new ClientSession('manager', 'manager/v0', undefined, held);
      const page = (items: object[], cont?: string) => answer(200, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9', ...(cont ? { continue: cont } : {}) }, items });
      const first = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?limit=2');
      const next = (tok: string) => requestInfo('GET', `/api/v1/namespaces/demo/configmaps?limit=2&continue=${tok}`);
      // A list in two pages.
      const pages = [page([cm('gone', '1'), cm('kept', '1')], 't1'), page([cm('last', '1')]), page([cm('kept', '2')], 't2'), page([cm('kept', '3')], 't3'), page([cm('new', '3')])];
      trace.read(s, first, pages[0]);
      trace.read(s, next('t1'), pages[1]);
      expect(held.bytes).toBe(pages[0].bytes + pages[1].bytes);
      // Another, broken off after its first page: the first list's pages are still held.
      trace.read(s, first, pages[2]);
      expect(held.bytes).toBe(pages[0].bytes + pages[1].bytes + pages[2].bytes);
      // A third, whole in two pages: what only the earlier lists held is gone, its own first page stays.
      trace.read(s, first, pages[3]);
      trace.read(s, next('t3'), pages[4]);
      expect(held.bytes).toBe(pages[3].bytes + pages[4].bytes);
      expect(s.newest('configmaps', 'demo/gone'), String(listen)).toBeUndefined();
      expect(s.newest('configmaps', 'demo/last'), String(listen)).toBeUndefined();
      expect(s.newest('configmaps', 'demo/kept')?.rv, String(listen)).toBe('3');
      expect(s.newest('configmaps', 'demo/new')?.rv, String(listen)).toBe('3');
      expect(held.bytes).toBe(0);
    }
  });

  it('a /scale write\'s base is the newer of the Scale and its parent the client was sent', () => {
    const { trace, s } = setup();
    const deploy = (rv: string) => ({ kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'd', namespace: 'demo', resourceVersion: rv, uid: 'ud' }, spec: { replicas: 2 } });
    const scale = { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'd', namespace: 'demo', resourceVersion: '8', uid: 'ud' }, spec: { replicas: 2 } };
    const scaleInfo = requestInfo('PUT', '/apis/apps/v1/namespaces/demo/deployments/d/scale');
    trace.read(s, requestInfo('GET', '/apis/apps/v1/namespaces/demo/deployments/d'), answer(200, deploy('7')));
    trace.read(s, requestInfo('GET', '/apis/apps/v1/namespaces/demo/deployments/d/scale'), answer(200, scale));
    expect(trace.baseOf(s, scaleInfo)).toMatchObject({ kind: 'Scale', metadata: { resourceVersion: '8' } });
    trace.watchEvent(s, requestInfo('GET', '/apis/apps/v1/namespaces/demo/deployments?watch=1'), scanWatchEvent(Buffer.from(JSON.stringify({ type: 'MODIFIED', object: deploy('9') }))));
    expect(trace.baseOf(s, scaleInfo)).toMatchObject({ kind: 'Deployment', metadata: { resourceVersion: '9' } });
  });

  it('a /scale write against a Scale the client read compares that Scale as it was; a refused write with a base; a collection\'s fault has no key', () => {
    const { trace, s, ops } = setup();
    const scaleInfo = requestInfo('PUT', '/apis/apps/v1/namespaces/demo/deployments/d/scale');
    const was = { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'd', namespace: 'demo', resourceVersion: '8', uid: 'ud' }, spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=old' } };
    const now = { ...was, metadata: { ...was.metadata, resourceVersion: '9' }, spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=new' } };
    trace.write(s, scaleInfo, answer(200, now), write('apply', { base: was }));
    expect(ops('write').at(-1)).toMatchObject({ old: was, new: now });
    expect([...trace.written.get('manager deployments.apps demo/d')!.fields].sort()).toEqual(['spec.replicas', 'status.selector']);
    // Refused: nothing new to compare the base with, and nothing said changed.
    const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    // The base as a list item, without kind and apiVersion.
    trace.write(s, put, answer(409, { kind: 'Status', reason: 'Conflict' }), write('apply', { base: { metadata: { name: 'c1', namespace: 'demo', resourceVersion: '5' }, data: {} } }));
    expect(ops('write').at(-1)).toMatchObject({ key: 'demo/c1', code: 409 });
    expect(trace.written.get('manager configmaps demo/c1')).toMatchObject({ changing: 0, failedWrites: 1 });
    trace.fault(s, 'expire@1ms', requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=1'));
    expect(ops('fault').at(-1)).toMatchObject({ key: undefined, fault: 'expire@1ms' });
  });

  it('a 300 under server-dry-run is a refusal; resourceVersions with letters around digits are opaque, not compared', () => {
    const { trace, s, ops } = setup();
    const put = requestInfo('PUT', '/api/v1/namespaces/demo/configmaps/c1');
    trace.write(s, put, answer(300, { kind: 'Status' }), write('server-dry-run', { base: cm('c1', '5') }));
    expect(ops('write').map((r) => (r as { answer?: string }).answer)).toEqual(['refused: 300']);
    trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', '100')));
    for (const rv of ['v99', '99v']) trace.staleWrite(s, put, body(cm('c1', rv)), 'application/json');
    for (const rv of ['v200', '200v']) {
      trace.read(s, requestInfo('GET', '/api/v1/namespaces/demo/configmaps/c1'), answer(200, cm('c1', rv)));
      trace.staleWrite(s, put, body(cm('c1', '1')), 'application/json');
    }
    expect(ops('stale-write')).toEqual([]);
  });
});
