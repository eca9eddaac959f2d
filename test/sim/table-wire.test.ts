// Table answers on the wire: LIST, GET and WATCH with kubectl's Accept header, includeObject, paging, watch-list refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, NAMESPACES, pod, PODS } from './sim-helpers.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
let sim: SimServer;

beforeAll(async () => {
  sim = await startSimServer({ bookmarkIntervalMs: 200 });
  sim.api.create(NAMESPACES, { metadata: { name: 'tw' } });
  for (const n of ['a', 'b', 'c']) sim.api.create(PODS, pod(n, { namespace: 'tw', node: 'n1' }));
});
afterAll(() => sim.close());

/** Reads watch event lines sent with the given Accept header until `stop` holds or the stream ends; `act` runs once the watch is open. */
function watchLines(path: string, accept: string, stop: (lines: any[]) => boolean, act?: () => void): Promise<{ status: number; lines: any[] }> {
  return new Promise((resolve, reject) => {
    const req = request(sim.url + path, { headers: { Accept: accept } }, (res) => {
      const lines: any[] = [];
      let buf = '';
      const finish = () => { req.destroy(); resolve({ status: res.statusCode ?? 0, lines }); };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) { lines.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); }
        if (stop(lines)) finish();
      });
      res.on('end', finish);
      // The headers are out: the watch is registered, so changes made now reach it.
      act?.();
    });
    req.on('error', reject);
    setTimeout(() => { req.destroy(); reject(new Error('watch timed out')); }, 5000).unref();
    req.end();
  });
}

describe('Table answers', () => {
  it('a LIST with the Table Accept is a meta.k8s.io/v1 Table sent as application/json, wide columns at priority 1', async () => {
    const r = await http(sim.url, '/api/v1/namespaces/tw/pods', { headers: { Accept: TABLE } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: String(sim.api.currentRevision()) } });
    expect(r.json.columnDefinitions.map((c: any) => `${c.name}:${c.type}:${c.priority}`)).toEqual([
      'Name:string:0', 'Ready:string:0', 'Status:string:0', 'Restarts:string:0', 'Age:string:0',
      'IP:string:1', 'Node:string:1', 'Nominated Node:string:1', 'Readiness Gates:string:1',
    ]);
    expect(r.json.columnDefinitions[0]).toMatchObject({ format: 'name' });
    expect(r.json.rows.map((x: any) => x.cells.slice(0, 4))).toEqual([['a', '0/1', 'Pending', '0'], ['b', '0/1', 'Pending', '0'], ['c', '0/1', 'Pending', '0']]);
    expect(r.json.rows[0].cells.slice(5)).toEqual(['<none>', 'n1', '<none>', '<none>']);
    // Go's encoder escapes < and >, and so does the sim for the Table it builds.
    expect(r.text).toContain('"\\u003cnone\\u003e"');
    const meta = r.json.rows[0].object;
    expect(meta).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: 'tw' } });
    expect(meta.spec).toBeUndefined();
  });

  it('includeObject=Object carries the whole object, None carries null; v1beta1 is served too', async () => {
    const full = await http(sim.url, '/api/v1/namespaces/tw/pods?includeObject=Object', { headers: { Accept: TABLE } });
    expect(full.json.rows[0].object).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a' }, spec: { nodeName: 'n1' } });
    const none = await http(sim.url, '/api/v1/namespaces/tw/pods?includeObject=None', { headers: { Accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' } });
    expect(none.json.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(none.json.rows[0].object).toBeNull();
    const bad = await http(sim.url, '/api/v1/namespaces/tw/pods?includeObject=Everything', { headers: { Accept: TABLE } });
    expect(bad.status).toBe(400);
  });

  it('a paged Table carries continue and remainingItemCount, and the pages share one resourceVersion', async () => {
    const p1 = await http(sim.url, '/api/v1/namespaces/tw/pods?limit=2', { headers: { Accept: TABLE } });
    expect(p1.json.rows.map((x: any) => x.cells[0])).toEqual(['a', 'b']);
    expect(p1.json.metadata.remainingItemCount).toBe(1);
    const p2 = await http(sim.url, `/api/v1/namespaces/tw/pods?limit=2&continue=${p1.json.metadata.continue}`, { headers: { Accept: TABLE } });
    expect(p2.json.rows.map((x: any) => x.cells[0])).toEqual(['c']);
    expect(p2.json.metadata).toEqual({ resourceVersion: p1.json.metadata.resourceVersion });
  });

  it('plain application/json answers are unchanged', async () => {
    const r = await http(sim.url, '/api/v1/namespaces/tw/pods', { headers: { Accept: 'application/json' } });
    expect(r.json.kind).toBe('PodList');
    const one = await http(sim.url, '/api/v1/namespaces/tw/pods/a', { headers: { Accept: 'application/json, */*' } });
    expect(one.json.kind).toBe('Pod');
  });

  it('a GET of one object is a one-row Table with the object resourceVersion; a missing one is 404', async () => {
    const r = await http(sim.url, '/api/v1/namespaces/tw/pods/b', { headers: { Accept: TABLE } });
    expect(r.json.kind).toBe('Table');
    expect(r.json.metadata).toEqual({ resourceVersion: sim.api.get(PODS, 'tw', 'b')!.metadata.resourceVersion });
    expect(r.json.rows).toHaveLength(1);
    expect(r.json.rows[0].cells[0]).toBe('b');
    const missing = await http(sim.url, '/api/v1/namespaces/tw/pods/zz', { headers: { Accept: TABLE } });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('pods "zz" not found');
  });
});

describe('Table watches', () => {
  it('each event is a one-row Table; only the first carries the column definitions', async () => {
    const { status, lines } = await watchLines('/api/v1/namespaces/tw/pods?watch=1&resourceVersion=0', TABLE, (l) => l.length >= 4, () => {
      sim.api.create(PODS, pod('d', { namespace: 'tw' }));
    });
    expect(status).toBe(200);
    expect(lines.map((e) => `${e.type} ${e.object.kind} ${e.object.rows[0].cells[0]}`)).toEqual(['ADDED Table a', 'ADDED Table b', 'ADDED Table c', 'ADDED Table d']);
    expect(lines[0].object.columnDefinitions).toHaveLength(9);
    expect(lines.slice(1).every((e) => e.object.columnDefinitions === null)).toBe(true);
    expect(lines[3].object.metadata.resourceVersion).toBe(sim.api.get(PODS, 'tw', 'd')!.metadata.resourceVersion);
    expect(lines[3].object.rows[0].object.kind).toBe('PartialObjectMetadata');
  });

  it('DELETED and BOOKMARK events are Tables too; an ERROR Status passes untransformed', async () => {
    const rv = sim.api.currentRevision();
    const { lines } = await watchLines(`/api/v1/namespaces/tw/pods?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`, TABLE, (l) => l.some((e) => e.type === 'BOOKMARK'), () => {
      sim.api.delete(PODS, 'tw', 'd');
    });
    const del = lines.find((e) => e.type === 'DELETED');
    expect(del.object.rows[0].cells[0]).toBe('d');
    expect(del.object.columnDefinitions).toHaveLength(9);
    const bm = lines.find((e) => e.type === 'BOOKMARK');
    expect(bm.object).toMatchObject({ kind: 'Table', metadata: { resourceVersion: String(sim.api.currentRevision()) } });
    sim.faults.compact();
    const old = await watchLines(`/api/v1/namespaces/tw/pods?watch=1&resourceVersion=${rv}`, TABLE, (l) => l.length > 0);
    expect(old.lines[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });

  it('a watch-list is never a Table: JSON when the Accept allows it, else 406 NotAcceptable', async () => {
    const path = '/api/v1/namespaces/tw/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan';
    const { lines } = await watchLines(path, TABLE, (l) => l.some((e) => e.type === 'BOOKMARK'));
    expect(lines[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Pod' } });
    expect(lines.at(-1).object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
    const refused = await http(sim.url, path, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(refused.status).toBe(406);
    expect(refused.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });
});
