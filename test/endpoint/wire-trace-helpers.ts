// What cbor-trace.test.ts and protobuf-trace.test.ts share: the --exec endpoint in front of a sim that serves a medium
// other than JSON must pass a list's and a watch's bytes on untouched and trace their items and events as it traces
// JSON. Each file names its medium; this registers the one scenario both run.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/server.js';
import { until } from '../sim/sim-helpers.js';

export interface WireMedium {
  /** As the describe block names it ("CBOR", "protobuf"). */
  name: string;
  /** What the sim needs to serve the medium (a feature gate). */
  simOptions?: Partial<SimServerOptions>;
  /** The Accept a client sends for a list, and for a watch. */
  listAccept: string;
  watchAccept: string;
  /** The Content-Type of the list's answer, and the hex of the bytes it starts with. */
  listType: string;
  listPrefixHex: string;
}

const CM = { group: '', version: 'v1', resource: 'configmaps' };

/** A GET whose answer is kept as bytes; `untilBytes` ends a watch once that much came. */
function get(base: string, path: string, accept: string, untilBytes?: number): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { Accept: accept } }, (res) => {
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

export function describeWireThroughEndpoint(medium: WireMedium): void {
  let sim: SimServer;
  let upstream: Connection;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, churn: 0, pods: 0, nodes: 0, ...medium.simOptions });
    upstream = connectionFromUrl(sim.url);
    for (const name of ['a', 'b']) sim.api.create(CM, { metadata: { name, namespace: 'default' }, data: { k: name } });
  });
  afterAll(async () => {
    await upstream?.close();
    await sim?.close();
  });

  describe(`${medium.name} through the endpoint`, () => {
    it(`passes a ${medium.name} list and watch on untouched and traces their items and events`, async () => {
      const tracer = new Tracer();
      const records: TraceRecord[] = [];
      tracer.subscribe((r) => records.push(r));
      const endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000, tls: false });
      try {
        const direct = await get(sim.url, '/api/v1/namespaces/default/configmaps', medium.listAccept);
        const viaEndpoint = await get(endpoint.url, '/api/v1/namespaces/default/configmaps', medium.listAccept);
        expect([viaEndpoint.status, viaEndpoint.type]).toEqual([200, medium.listType]);
        expect(viaEndpoint.body.subarray(0, medium.listPrefixHex.length / 2).toString('hex')).toBe(medium.listPrefixHex);
        expect(viaEndpoint.body.equals(direct.body)).toBe(true);
        await until(() => records.some((r) => r.op === 'list'), 5000);
        const list = records.find((r) => r.op === 'list') as TraceRecord & { items?: number };
        expect(list.items).toBe(2);
        const rv = (list as { rv?: string }).rv;
        expect(rv).toMatch(/^\d+$/);

        const watching = get(endpoint.url, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`, medium.watchAccept, 1);
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
}
