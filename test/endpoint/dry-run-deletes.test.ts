// DELETE and DELETECOLLECTION with a DeleteOptions body under intercept and server-dry-run, against a stand-in target
// that applies kube-apiserver's rule (apiserver/pkg/endpoints/handlers/delete.go: a body, when there is one, is the
// DeleteOptions and the query is not read) and logs what arrived. No delete may be executed.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type EndpointWriteMode } from '../../src/endpoint/endpoint-server.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { protobufToJson } from '../../src/wire/protobuf/to-json.js';

interface Arrival { method: string; url: string; contentType?: string; body: Buffer; dryRun: boolean }

/** A target that answers every request, deciding a DELETE's dry run as kube-apiserver does, and keeps a log. */
function standInTarget(): Promise<{ url: string; arrivals: Arrival[]; server: Server }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const contentType = req.headers['content-type'];
      let dryRun: boolean;
      if (body.length > 0) {
        let options: { dryRun?: unknown } | null;
        try {
          options = (/protobuf/.test(contentType ?? '') ? protobufToJson(body) : /yaml/.test(contentType ?? '') ? parseYaml(body.toString('utf8')) : JSON.parse(body.toString('utf8'))) as { dryRun?: unknown } | null;
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":400}');
          return;
        }
        dryRun = Array.isArray(options?.dryRun) && options.dryRun.includes('All');
      } else {
        dryRun = query.getAll('dryRun').includes('All');
      }
      arrivals.push({ method: req.method ?? '', url: req.url ?? '', contentType, body, dryRun });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'x', kind: 'configmaps' } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, server })));
}

// Protobuf wire helpers: kube's envelope around a DeleteOptions (propagationPolicy = 4, dryRun = 5).
const varint = (n: number): number[] => { const o: number[] = []; while (n >= 0x80) { o.push((n & 0x7f) | 0x80); n >>>= 7; } o.push(n); return o; };
const str = (field: number, s: string): number[] => { const b = [...Buffer.from(s)]; return [...varint((field << 3) | 2), ...varint(b.length), ...b]; };
const envelope = (...fields: number[][]): Buffer => {
  const typeMeta = [...str(1, 'v1'), ...str(2, 'DeleteOptions')];
  const raw = fields.flat();
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...varint((1 << 3) | 2), ...varint(typeMeta.length), ...typeMeta, ...varint((2 << 3) | 2), ...varint(raw.length), ...raw]);
};

let target: Awaited<ReturnType<typeof standInTarget>>;
let upstream: Connection;
beforeAll(async () => {
  target = await standInTarget();
  upstream = connectionFromUrl(target.url);
});
afterAll(async () => {
  await upstream?.close();
  await new Promise((r) => target?.server.close(r));
});

async function start(mode: EndpointWriteMode) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const endpoint = await startEndpoint({ upstream, mode, tracer, loopThreshold: 5, stallAfterMs: 300_000 });
  const del = (path: string, body: string | Buffer | undefined, contentType = 'application/json') =>
    fetch(`${endpoint.url}${path}`, { method: 'DELETE', ...(body !== undefined ? { body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'Content-Type': contentType } } : {}) });
  return { endpoint, records, del };
}

const CM = '/api/v1/namespaces/default/configmaps';

describe.each(['intercept', 'server-dry-run'] as const)('deletes with a body under --writes %s', (mode) => {
  it('reach the target as dry runs, in the body (which kube reads) and in the query', async () => {
    const { endpoint, records, del } = await start(mode);
    const from = target.arrivals.length;
    try {
      const sent: [string, string | Buffer | undefined, string?][] = [
        // client-go's typed Delete and controller-runtime (JSON), kubectl delete, the Python client's body=.
        [`${CM}/a`, JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' })],
        [`${CM}/b`, JSON.stringify({ propagationPolicy: 'Background' })],
        [`${CM}?labelSelector=app%3Dweb`, JSON.stringify({ propagationPolicy: 'Background' })],
        // A client that asks for a real delete in so many words, and one spelling the key as a case-insensitive decoder reads it.
        [`${CM}/c`, JSON.stringify({ dryRun: [], propagationPolicy: 'Foreground' })],
        [`${CM}/d`, JSON.stringify({ DryRun: [], gracePeriodSeconds: 0 })],
        [`${CM}/e`, 'propagationPolicy: Background\ngracePeriodSeconds: 0\n', 'application/yaml'],
        [`${CM}/f`, envelope(str(4, 'Background')), 'application/vnd.kubernetes.protobuf'],
        [`${CM}?labelSelector=app%3Dweb`, envelope(str(4, 'Foreground'), str(5, 'NotAll')), 'application/vnd.kubernetes.protobuf'],
        [`${CM}/g`, undefined],
      ];
      for (const [path, body, type] of sent) expect((await del(path, body, type)).status).toBe(200);
      const arrived = target.arrivals.slice(from);
      expect(arrived).toHaveLength(sent.length);
      for (const a of arrived) {
        expect(a.dryRun, `${a.url} ${a.body.toString('utf8')}`).toBe(true);
        expect(new URL(a.url, 'http://x').searchParams.getAll('dryRun')).toEqual(['All']);
      }
      // The other DeleteOptions fields arrive as sent.
      expect(JSON.parse(arrived[0].body.toString('utf8'))).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', dryRun: ['All'] });
      expect(JSON.parse(arrived[5].body.toString('utf8'))).toEqual({ propagationPolicy: 'Background', gracePeriodSeconds: 0, dryRun: ['All'] });
      expect(arrived[5].contentType).toBe('application/json');
      expect(protobufToJson(arrived[6].body)).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', dryRun: ['All'] });
      expect(protobufToJson(arrived[7].body)).toMatchObject({ propagationPolicy: 'Foreground', dryRun: ['All'] });
      const writes = records.filter((r) => r.op === 'write');
      expect(writes).toHaveLength(sent.length);
      for (const w of writes) expect(w).toMatchObject({ mode, code: 200 });
    } finally {
      await endpoint.close();
    }
  });

  it('refuses, with a traced Status and nothing forwarded, a body it cannot make a dry run', async () => {
    const { endpoint, records, del } = await start(mode);
    const from = target.arrivals.length;
    try {
      const cbor = await del(`${CM}/h`, Buffer.from([0xa1, 0x61, 0x78, 0x01]), 'application/cbor');
      expect(cbor.status).toBe(415);
      expect(((await cbor.json()) as { message: string }).message).toMatch(/cannot be rewritten to carry dryRun, and kube-apiserver ignores the query's dryRun when a body is sent; not forwarded/);
      for (const body of ['null', '[]', '{"propagationPolicy":', '   ']) {
        const r = await del(`${CM}/i`, body);
        expect(r.status, body).toBe(400);
        expect(((await r.json()) as { message: string }).message).toMatch(/DeleteOptions body could not be read .*; not forwarded/);
      }
      expect(target.arrivals.slice(from)).toEqual([]);
      expect(records.filter((r) => r.op === 'write').map((r) => r.code)).toEqual([415, 400, 400, 400, 400]);
      expect(records.find((r) => r.op === 'write')).toMatchObject({ mode, verb: 'delete', error: expect.stringMatching(/application\/cbor/) });
    } finally {
      await endpoint.close();
    }
  });
});

describe('deletes with a body under --writes apply', () => {
  it('go to the target as sent', async () => {
    const { endpoint, del } = await start('apply');
    const from = target.arrivals.length;
    try {
      expect((await del(`${CM}/a`, JSON.stringify({ propagationPolicy: 'Background' }))).status).toBe(200);
      expect(target.arrivals.slice(from)).toMatchObject([{ dryRun: false, url: `${CM}/a` }]);
    } finally {
      await endpoint.close();
    }
  });
});

/** A request as a client library sends it: no Content-Type unless given (fetch would add text/plain to a string body). */
function rawRequest(url: string, method: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('what a dry run sends the target, in detail (--writes intercept)', () => {
  it('adds dryRun=All once to a query that has it already, keeping the client\'s other parameters', async () => {
    const { endpoint } = await start('intercept');
    const from = target.arrivals.length;
    try {
      const create = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'q' } };
      for (const query of ['?dryRun=All&fieldManager=kubectl-client-side-apply', '?fieldManager=x', '']) {
        const r = await fetch(`${endpoint.url}${CM}${query}`, { method: 'POST', body: JSON.stringify(create), headers: { 'Content-Type': 'application/json' } });
        expect(r.status, query).toBe(200);
      }
      expect(target.arrivals.slice(from).map((a) => a.url)).toEqual([
        `${CM}?dryRun=All&fieldManager=kubectl-client-side-apply`,
        `${CM}?fieldManager=x&dryRun=All`,
        `${CM}?dryRun=All`,
      ]);
      // Only a delete's body is DeleteOptions: a create's object goes on as it was sent.
      for (const a of target.arrivals.slice(from)) expect(JSON.parse(a.body.toString('utf8'))).toEqual(create);
    } finally {
      await endpoint.close();
    }
  });

  it('reads a DeleteOptions body without Content-Type, or with one in capitals and parameters, as JSON', async () => {
    const { endpoint } = await start('intercept');
    const from = target.arrivals.length;
    try {
      const first = await rawRequest(`${endpoint.url}${CM}/raw`, 'DELETE', '{"propagationPolicy":"Orphan"}');
      expect(first.status, first.body).toBe(200);
      expect((await rawRequest(`${endpoint.url}${CM}/raw`, 'DELETE', '{"gracePeriodSeconds":3}', { 'Content-Type': 'Application/JSON ; charset=utf-8' })).status).toBe(200);
      // Every spelling of dryRun that a case-insensitive decoder reads is dropped, not only "dryRun".
      expect((await rawRequest(`${endpoint.url}${CM}/raw`, 'DELETE', '{"DryRun":[],"dryrun":["x"],"DRYRUN":[],"orphanDependents":false}', { 'Content-Type': 'application/json' })).status).toBe(200);
      const arrived = target.arrivals.slice(from);
      expect(arrived.map((a) => JSON.parse(a.body.toString('utf8')) as unknown)).toEqual([
        { propagationPolicy: 'Orphan', dryRun: ['All'] },
        { gracePeriodSeconds: 3, dryRun: ['All'] },
        { orphanDependents: false, dryRun: ['All'] },
      ]);
      expect(arrived.every((a) => a.dryRun)).toBe(true);
    } finally {
      await endpoint.close();
    }
  });

  it('reads a YAML body as kube-apiserver does, YAML 1.1 (yes is true), and sends it on as JSON', async () => {
    const { endpoint } = await start('intercept');
    const from = target.arrivals.length;
    try {
      expect((await rawRequest(`${endpoint.url}${CM}/yaml`, 'DELETE', 'orphanDependents: yes\n', { 'Content-Type': 'application/yaml; charset=utf-8' })).status).toBe(200);
      const [a] = target.arrivals.slice(from);
      expect(a.contentType).toBe('application/json');
      expect(JSON.parse(a.body.toString('utf8'))).toEqual({ orphanDependents: true, dryRun: ['All'] });
    } finally {
      await endpoint.close();
    }
  });

  it('re-encodes a protobuf DeleteOptions of any length (lengths of one, two and three bytes)', async () => {
    const { endpoint, del } = await start('intercept');
    const from = target.arrivals.length;
    try {
      // 121 characters: with dryRun's 5 bytes the DeleteOptions is 128 bytes, the first length of two bytes.
      for (const n of [1, 121, 300, 20_000]) {
        expect((await del(`${CM}/long`, envelope(str(4, 'x'.repeat(n)), str(5, 'NotAll')), 'application/vnd.kubernetes.protobuf')).status, String(n)).toBe(200);
      }
      // Fields that are not length-delimited (gracePeriodSeconds, orphanDependents: varints) are copied as they are.
      const varintField = (field: number, n: number) => [...varint(field << 3), ...varint(n)];
      expect((await del(`${CM}/ints`, envelope(varintField(1, 300), varintField(3, 1), str(4, 'Orphan')), 'application/vnd.kubernetes.protobuf')).status).toBe(200);
      const arrived = target.arrivals.slice(from);
      expect(arrived.slice(0, 4).map((a) => protobufToJson(a.body))).toEqual([1, 121, 300, 20_000].map((n) => ({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'x'.repeat(n), dryRun: ['All'] })));
      expect(protobufToJson(arrived[4].body)).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 300, orphanDependents: true, propagationPolicy: 'Orphan', dryRun: ['All'] });
    } finally {
      await endpoint.close();
    }
  });

  it('refuses a protobuf body it cannot rewrite: not kube\'s envelope, or its payload compressed (contentEncoding)', async () => {
    const { endpoint, records, del } = await start('intercept');
    const from = target.arrivals.length;
    try {
      const typeMeta = [...str(1, 'v1'), ...str(2, 'DeleteOptions')];
      const raw = str(4, 'Background');
      const compressed = Buffer.from([0x6b, 0x38, 0x73, 0x00, ...varint((1 << 3) | 2), ...varint(typeMeta.length), ...typeMeta, ...varint((2 << 3) | 2), ...varint(raw.length), ...raw, ...str(3, 'gzip')]);
      const plainEncoding = Buffer.from([0x6b, 0x38, 0x73, 0x00, ...varint((1 << 3) | 2), ...varint(typeMeta.length), ...typeMeta, ...varint((3 << 3) | 2), 0, ...varint((2 << 3) | 2), ...varint(raw.length), ...raw]);
      const bodies: [string, Buffer, number, RegExp?][] = [
        ['compressed', compressed, 400, /\(runtime\.Unknown\.contentEncoding is set\)/],
        ['other magic', Buffer.concat([Buffer.from('k8s\x01'), envelope(raw).subarray(4)]), 400, /\(it is not a protobuf envelope\)/],
        ['short', Buffer.from('k8s'), 400, /\(it is not a protobuf envelope\)/],
        ['empty contentEncoding', plainEncoding, 200],
      ];
      for (const [what, body, status, message] of bodies) {
        const r = await del(`${CM}/pb`, body, 'application/vnd.kubernetes.protobuf');
        expect(r.status, what).toBe(status);
        if (message) expect(((await r.json()) as { message: string }).message, what).toMatch(message);
      }
      const arrived = target.arrivals.slice(from);
      expect(arrived).toHaveLength(1);
      expect(protobufToJson(arrived[0].body)).toMatchObject({ propagationPolicy: 'Background', dryRun: ['All'] });
      expect(records.filter((r) => r.op === 'write').map((r) => r.code)).toEqual([400, 400, 400, 200]);
    } finally {
      await endpoint.close();
    }
  });

  it('names the request\'s verb and Content-Type in its refusal', async () => {
    const { endpoint, del } = await start('intercept');
    try {
      const r = await del(CM, 'a: [', 'application/yaml');
      expect(r.status).toBe(400);
      expect(((await r.json()) as { message: string; reason: string })).toMatchObject({ reason: 'BadRequest', message: expect.stringMatching(/^kwatch endpoint \(--writes dry run\): the deletecollection request's DeleteOptions body could not be read \(.+\), so dryRun could not be set in it; not forwarded$/s) as unknown });
      // A type the endpoint takes (media-types.ts) but cannot rewrite.
      const t = await del(`${CM}/x`, Buffer.from([0xa0]), 'application/merge-patch+json');
      expect(t.status).toBe(415);
      expect(((await t.json()) as { message: string; reason: string })).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 415, reason: 'UnsupportedMediaType',
        message: expect.stringMatching(/^kwatch endpoint \(--writes dry run\): a delete request's DeleteOptions body in "application\/merge-patch\+json" cannot be rewritten/) as unknown,
      });
      // JSON that is no object: refused, not sent on as a DeleteOptions of nothing but dryRun.
      for (const body of ['null', '5', '"x"', '[]']) {
        const r = await del(`${CM}/x`, body);
        expect(r.status, body).toBe(400);
        expect(((await r.json()) as { message: string }).message, body).toContain('could not be read (it is not an object)');
      }
    } finally {
      await endpoint.close();
    }
  });
});
