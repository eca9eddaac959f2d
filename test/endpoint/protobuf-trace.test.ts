// The --exec endpoint in front of a server that serves protobuf (the sim does, for kinds src/wire has schemas for): a
// client asking for protobuf gets the server's bytes untouched, and the trace reads them (the list's items, the
// watch's length-prefixed events) as it reads JSON.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { until } from '../sim/sim-helpers.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
let sim: SimServer;
let upstream: Connection;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0, pods: 0, nodes: 0 });
  upstream = connectionFromUrl(sim.url);
  for (const name of ['a', 'b']) sim.api.create(CM, { metadata: { name, namespace: 'default' }, data: { k: name } });
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
});

/** A GET whose answer is kept as bytes; `untilBytes` ends a watch once that much came. */
function get(base: string, path: string, untilBytes?: number): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { Accept: untilBytes === undefined ? 'application/vnd.kubernetes.protobuf, application/json' : 'application/vnd.kubernetes.protobuf;stream=watch, application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) });
      res.on('data', (c: Buffer) => { chunks.push(c); size += c.length; if (untilBytes !== undefined && size >= untilBytes) { req.destroy(); done(); } });
      res.on('end', done);
    });
    req.on('error', (e) => (untilBytes !== undefined ? undefined : reject(e)));
    req.end();
  });
}

describe('protobuf through the endpoint', () => {
  it('passes a protobuf list and watch on untouched and traces their items and events', async () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000, tls: false });
    try {
      const direct = await get(sim.url, '/api/v1/namespaces/default/configmaps');
      const viaEndpoint = await get(endpoint.url, '/api/v1/namespaces/default/configmaps');
      expect([viaEndpoint.status, viaEndpoint.type]).toEqual([200, 'application/vnd.kubernetes.protobuf']);
      expect(viaEndpoint.body.subarray(0, 4).toString('hex')).toBe('6b387300');
      expect(viaEndpoint.body.equals(direct.body)).toBe(true);
      await until(() => records.some((r) => r.op === 'list'), 5000);
      const list = records.find((r) => r.op === 'list') as TraceRecord & { items?: number };
      expect(list.items).toBe(2);
      const rv = (list as { rv?: string }).rv;
      expect(rv).toMatch(/^\d+$/);

      const watching = get(endpoint.url, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`, 1);
      await until(() => records.some((r) => r.op === 'watch-start' || (r.stage === 'endpoint' && r.op === 'watch')), 5000);
      sim.api.create(CM, { metadata: { name: 'c', namespace: 'default' }, data: { k: 'c' } });
      await until(() => records.some((r) => r.key === 'default/c'), 5000);
      const event = records.find((r) => r.key === 'default/c') as TraceRecord & { type?: string };
      expect(event.type).toBe('ADDED');
      await watching;
    } finally {
      await endpoint.close();
    }
  });
});
