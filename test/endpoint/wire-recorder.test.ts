// `reconcile --exec --record FILE`: the lines the wire recorder writes for what the controller was sent and wrote, in
// the order things happened, each resource declared (from discovery) before its first entry.
import { describe, expect, it } from 'vitest';
import type { RecordingEntry, RecordingNote } from '../../src/informer/recording/recording-format.js';
import { requestInfo } from '../../src/endpoint/request-info.js';
import type { CapturedResponse } from '../../src/endpoint/response-capture.js';
import { WireRecorder } from '../../src/endpoint/wire-recorder.js';
import { encodeCbor } from '../../src/sim/cbor-wire.js';

type Line = Record<string, unknown>;

const captured = (status: number, body: unknown, contentType = 'application/json'): CapturedResponse => {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { status, contentType, bytes: b.length, chunks: [b], body: b, aborted: false };
};
const cm = (name: string, rv: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'demo', resourceVersion: rv }, data: { k: rv } });

/** A recorder writing into an array; discovery answers from `kinds` (after `delays[resource]` ms, when given). */
function recorder(kinds: Record<string, { kind: string; namespaced: boolean } | 'fail'> = { configmaps: { kind: 'ConfigMap', namespaced: true }, pods: { kind: 'Pod', namespaced: true }, namespaces: { kind: 'Namespace', namespaced: false } }, delays: Record<string, number> = {}) {
  const lines: Line[] = [];
  const declared: [number, Line][] = [];
  let clock = 0;
  let conn = 0;
  const asked: string[] = [];
  const r = new WireRecorder({
    file: { elapsed: () => (clock += 10), nextConn: () => ++conn, write: (e: RecordingEntry | RecordingNote) => { lines.push(e as unknown as Line); } },
    describe: async (group, version, resource) => {
      asked.push(`${group}/${version}/${resource}`);
      if (delays[resource]) await new Promise((t) => setTimeout(t, delays[resource]));
      const k = kinds[resource];
      if (k === 'fail') throw new Error('discovery failed');
      return k;
    },
    declared: (index, res) => declared.push([index, res as unknown as Line]),
  });
  return { r, lines, declared, asked };
}

describe('WireRecorder: list pages', () => {
  it('declares the collection once, then records each page with the options it was asked with', async () => {
    const { r, lines, declared } = recorder();
    const info = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?labelSelector=app%3Dx&fieldSelector=metadata.name%3Da&limit=500&continue=tok&resourceVersion=7&resourceVersionMatch=NotOlderThan&timeoutSeconds=30&allowWatchBookmarks=true&sendInitialEvents=1');
    const page = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: 'next' }, items: [cm('a', '8')] };
    r.list(info, captured(200, page), 12);
    r.list(info, captured(200, { ...page, items: [] }), 3);
    await r.flushed();
    const resource = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: 'demo', labelSelector: 'app=x', fieldSelector: 'metadata.name=a' };
    const options = { labelSelector: 'app=x', fieldSelector: 'metadata.name=a', limit: 500, continue: 'tok', resourceVersion: '7', resourceVersionMatch: 'NotOlderThan', timeoutSeconds: 30, allowWatchBookmarks: true, sendInitialEvents: true };
    expect(lines).toEqual([
      { rec: 'resource', t: 20, res: 0, conn: 0, resource },
      { rec: 'list', t: 10, res: 0, conn: 1, options, page, bytes: JSON.stringify(page).length, ms: 12 },
      { rec: 'list', t: 30, res: 0, conn: 2, options, page: { ...page, items: [] }, bytes: JSON.stringify({ ...page, items: [] }).length, ms: 3 },
    ]);
    expect(declared).toEqual([[0, resource]]);
  });

  it('records a page whatever its encoding, and leaves out a Table, a body without items and one it cannot read', async () => {
    const { r, lines } = recorder();
    const info = requestInfo('GET', '/api/v1/configmaps');
    const page = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items: [cm('a', '8')] };
    r.list(info, captured(200, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', items: [], rows: [] }), 1);
    r.list(info, captured(200, { kind: 'ConfigMapList', metadata: {} }), 1);
    r.list(info, captured(200, { kind: 'ConfigMapList', items: 'none' }), 1);
    r.list(info, captured(200, 'not json {'), 1);
    r.list(info, captured(200, encodeCbor(page), 'application/cbor'), 1);
    await r.flushed();
    expect(lines.map((l) => l.rec)).toEqual(['resource', 'list']);
    expect(lines[0]).toMatchObject({ resource: { resource: 'configmaps', namespaced: true } });
    expect(lines[0].resource).not.toHaveProperty('namespace');
    expect(lines[0].resource).not.toHaveProperty('labelSelector');
    expect(lines[0].resource).not.toHaveProperty('fieldSelector');
    expect(lines[1]).toMatchObject({ page, options: {} });
  });

  it('leaves out a limit or timeout that is no whole number, and reads a false flag as false', async () => {
    const { r, lines } = recorder();
    r.list(requestInfo('GET', '/api/v1/configmaps?limit=abc&timeoutSeconds=1.5&allowWatchBookmarks=false&sendInitialEvents=0'), captured(200, { items: [] }), 1);
    r.list(requestInfo('GET', '/api/v1/configmaps?limit=0&timeoutSeconds=0&allowWatchBookmarks=1'), captured(200, { items: [] }), 1);
    await r.flushed();
    expect(lines.filter((l) => l.rec === 'list').map((l) => l.options)).toEqual([{ allowWatchBookmarks: false, sendInitialEvents: false }, { limit: 0, timeoutSeconds: 0, allowWatchBookmarks: true }]);
  });
});

describe('WireRecorder: single-object reads', () => {
  it('records a GET as a list by name of one item, or of none for a 404', async () => {
    const { r, lines } = recorder();
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(200, cm('a', '8')), 4);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/gone'), captured(404, { kind: 'Status', code: 404 }), 2);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/norv'), captured(200, { kind: 'ConfigMap', metadata: { name: 'norv' } }), 2);
    await r.flushed();
    expect(lines).toEqual([
      { rec: 'resource', t: 20, res: 0, conn: 0, resource: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: 'demo', fieldSelector: 'metadata.name=a' } },
      { rec: 'list', t: 10, res: 0, conn: 1, options: { fieldSelector: 'metadata.name=a' }, page: { metadata: { resourceVersion: '8' }, items: [cm('a', '8')] }, bytes: JSON.stringify(cm('a', '8')).length, ms: 4 },
      { rec: 'resource', t: 40, res: 1, conn: 0, resource: expect.objectContaining({ fieldSelector: 'metadata.name=gone' }) },
      { rec: 'list', t: 30, res: 1, conn: 2, options: { fieldSelector: 'metadata.name=gone' }, page: { metadata: {}, items: [] }, bytes: JSON.stringify({ kind: 'Status', code: 404 }).length, ms: 2 },
      { rec: 'resource', t: 60, res: 2, conn: 0, resource: expect.objectContaining({ fieldSelector: 'metadata.name=norv' }) },
      { rec: 'list', t: 50, res: 2, conn: 3, options: { fieldSelector: 'metadata.name=norv' }, page: { metadata: {}, items: [{ kind: 'ConfigMap', metadata: { name: 'norv' } }] }, bytes: JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'norv' } }).length, ms: 2 },
    ]);
  });

  it('records nothing for a collection, a subresource, another status, or a body that is not the object asked for', async () => {
    const { r, lines } = recorder();
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps'), captured(200, { items: [] }), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/pods/a/status'), captured(200, cm('a', '1')), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(403, { kind: 'Status', code: 403 }), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(500, { kind: 'Status', code: 500 }), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(200, { kind: 'Table', metadata: { name: 'a' } }), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(200, { kind: 'Status', metadata: { name: 'a' } }), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(200, cm('b', '1')), 1);
    r.get(requestInfo('GET', '/api/v1/namespaces/demo/configmaps/a'), captured(200, 'not json'), 1);
    await r.flushed();
    expect(lines.filter((l) => l.rec !== 'resource')).toEqual([]);
  });
});

describe('WireRecorder: watches', () => {
  it('records a watch\'s start, its events with an object, and how it ended', async () => {
    const { r, lines } = recorder();
    const info = requestInfo('GET', '/api/v1/namespaces/demo/configmaps?watch=1&resourceVersion=5&allowWatchBookmarks=true');
    const ends = ['client', 'eof', 'timeout', '410', 'fault'];
    const conns = ends.map(() => r.watchStart(info));
    expect(conns).toEqual([1, 2, 3, 4, 5]);
    r.watchEvent(info, conns[0], 'ADDED', cm('a', '6'));
    r.watchEvent(info, conns[0], 'BOOKMARK', undefined);
    ends.forEach((why, i) => r.watchEnd(info, conns[i], why));
    await r.flushed();
    const entries = lines.filter((l) => l.rec !== 'resource');
    expect(entries[0]).toEqual({ rec: 'watch-start', t: 10, res: 0, conn: 1, options: { resourceVersion: '5', allowWatchBookmarks: true } });
    expect(entries[5]).toEqual({ rec: 'event', t: 70, res: 0, conn: 1, event: { type: 'ADDED', object: cm('a', '6') } });
    expect(entries.slice(6)).toEqual([
      { rec: 'watch-end', t: 80, res: 0, conn: 1, reason: 'aborted' },
      { rec: 'watch-end', t: 90, res: 0, conn: 2, reason: 'eof' },
      { rec: 'watch-end', t: 100, res: 0, conn: 3, reason: 'eof' },
      { rec: 'watch-end', t: 110, res: 0, conn: 4, reason: 'error', error: '410' },
      { rec: 'watch-end', t: 120, res: 0, conn: 5, reason: 'error', error: 'fault' },
    ]);
  });
});

describe('WireRecorder: writes', () => {
  it('files a write under the collection the controller first read the kind in, named by the answer, else by what was sent', async () => {
    const { r, lines } = recorder();
    r.list(requestInfo('GET', '/api/v1/namespaces/demo/configmaps?labelSelector=app%3Dx'), captured(200, { items: [] }), 1);
    r.list(requestInfo('GET', '/api/v1/configmaps'), captured(200, { items: [] }), 1);
    r.write(requestInfo('PUT', '/api/v1/namespaces/other/configmaps/a'), 'manager[1]', 'overlay', captured(200, { ...cm('a', '3'), metadata: { ...cm('a', '3').metadata, namespace: 'other' } }));
    const refused = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409 };
    r.write(requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), 'manager[1]', 'apply', captured(409, refused), cm('new', ''));
    r.write(requestInfo('POST', '/api/v1/namespaces/demo/configmaps'), 'manager[1]', 'apply', captured(201, cm('made', '4')), cm('sent-name', ''));
    r.write(requestInfo('POST', '/api/v1/configmaps'), 'manager[1]', 'apply', captured(500, 'broken'));
    await r.flushed();
    expect(lines.filter((l) => l.rec === 'write')).toEqual([
      { rec: 'write', t: 50, res: 0, conn: 0, client: 'manager[1]', verb: 'update', key: 'other/a', code: 200, mode: 'overlay', object: { ...cm('a', '3'), metadata: { ...cm('a', '3').metadata, namespace: 'other' } } },
      { rec: 'write', t: 60, res: 0, conn: 0, client: 'manager[1]', verb: 'create', key: 'demo/new', code: 409, mode: 'apply' },
      { rec: 'write', t: 70, res: 0, conn: 0, client: 'manager[1]', verb: 'create', key: 'demo/made', code: 201, mode: 'apply', object: cm('made', '4') },
      { rec: 'write', t: 80, res: 0, conn: 0, client: 'manager[1]', verb: 'create', key: '', code: 500, mode: 'apply' },
    ]);
    expect(lines.filter((l) => l.rec === 'resource').map((l) => l.res)).toEqual([0, 1]);
  });

  it('a kind the controller only writes is declared as its whole collection, once', async () => {
    const { r, lines } = recorder();
    r.write(requestInfo('POST', '/api/v1/namespaces/demo/pods?fieldManager=m'), 'c', 'apply', captured(201, { kind: 'Pod', metadata: { name: 'p', namespace: 'demo' } }));
    r.write(requestInfo('DELETE', '/api/v1/namespaces/demo/pods/p'), 'c', 'apply', captured(200, { kind: 'Pod', metadata: { name: 'p', namespace: 'demo' } }));
    await r.flushed();
    expect(lines).toEqual([
      { rec: 'resource', t: 20, res: 0, conn: 0, resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } },
      { rec: 'write', t: 10, res: 0, conn: 0, client: 'c', verb: 'create', key: 'demo/p', code: 201, mode: 'apply', object: { kind: 'Pod', metadata: { name: 'p', namespace: 'demo' } } },
      { rec: 'write', t: 30, res: 0, conn: 0, client: 'c', verb: 'delete', key: 'demo/p', code: 200, mode: 'apply', object: { kind: 'Pod', metadata: { name: 'p', namespace: 'demo' } } },
    ]);
  });
});

describe('WireRecorder: discovery', () => {
  it('asks discovery once per collection, and writes lines in the order things happened however long it takes', async () => {
    const { r, lines, asked } = recorder(undefined, { pods: 30 });
    r.list(requestInfo('GET', '/api/v1/pods'), captured(200, { items: [] }), 1);
    r.list(requestInfo('GET', '/api/v1/configmaps'), captured(200, { items: [] }), 1);
    r.list(requestInfo('GET', '/api/v1/pods'), captured(200, { items: [] }), 1);
    await r.flushed();
    expect(asked).toEqual(['/v1/pods', '/v1/configmaps']);
    expect(lines.map((l) => `${l.rec} ${l.res}`)).toEqual(['resource 0', 'list 0', 'resource 1', 'list 1', 'list 0']);
  });

  it('records nothing of a resource discovery does not know or fails on, and gives its index to the next', async () => {
    const { r, lines } = recorder({ widgets: 'fail', configmaps: { kind: 'ConfigMap', namespaced: true } });
    r.list(requestInfo('GET', '/apis/example.com/v1/gadgets'), captured(200, { items: [] }), 1);
    r.list(requestInfo('GET', '/apis/example.com/v1/widgets'), captured(200, { items: [] }), 1);
    r.watchStart(requestInfo('GET', '/apis/example.com/v1/widgets?watch=1'));
    r.list(requestInfo('GET', '/api/v1/configmaps'), captured(200, { items: [] }), 1);
    await r.flushed();
    expect(lines.map((l) => `${l.rec} ${l.res}`)).toEqual(['resource 0', 'list 0']);
    expect(lines[0]).toMatchObject({ resource: { resource: 'configmaps' } });
  });

  it('declares a cluster-scoped kind and a group\'s kind with their names', async () => {
    const { r, lines } = recorder({ namespaces: { kind: 'Namespace', namespaced: false }, deployments: { kind: 'Deployment', namespaced: true } });
    r.list(requestInfo('GET', '/api/v1/namespaces'), captured(200, { items: [] }), 1);
    r.list(requestInfo('GET', '/apis/apps/v1/deployments'), captured(200, { items: [] }), 1);
    await r.flushed();
    expect(lines.filter((l) => l.rec === 'resource').map((l) => l.resource)).toEqual([
      { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
      { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
    ]);
  });
});
