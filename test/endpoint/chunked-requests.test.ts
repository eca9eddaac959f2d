// A client that sends its write body chunked (no Content-Length: Node's http.request when the body is written in
// parts, curl -T -, many hand-made clients) is forwarded like any other: the endpoint reads the body whole, the target
// gets all of it with its own framing, and under intercept the dry run carries it too.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';

const arrivals: { url: string; body: string; chunked: boolean }[] = [];
let server: Server;
let upstream: Connection;
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), chunked: req.headers['transfer-encoding'] === 'chunked' });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"parts","namespace":"default","resourceVersion":"2"}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  upstream = connectionFromUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await upstream.close();
  await new Promise((r) => server.close(r));
});

/** A POST whose body goes out in two writes, chunked. */
function postInParts(url: string, token: string, parts: string[]): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: `${u.pathname}/api/v1/namespaces/default/configmaps`, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    for (const p of parts.slice(0, -1)) req.write(p);
    req.end(parts.at(-1));
  });
}

describe.each(['apply', 'intercept'] as const)('a chunked write body under --writes %s', (mode) => {
  it('reaches the target whole and is answered', async () => {
    const endpoint = await startEndpoint({ upstream, mode, tracer: new Tracer(), loopThreshold: 5, stallAfterMs: 300_000 });
    try {
      const from = arrivals.length;
      const r = await postInParts(endpoint.url, endpoint.token, ['{"metadata":{"name":"parts"},', '"data":{"k":"v"}}']);
      expect(r.status).toBe(201);
      expect(JSON.parse(r.body)).toMatchObject({ metadata: { name: 'parts' } });
      const sent = arrivals.slice(from);
      // intercept: the client's write goes out as a dry run only.
      expect(sent.map((a) => a.url)).toEqual([`/api/v1/namespaces/default/configmaps${mode === 'intercept' ? '?dryRun=All' : ''}`]);
      expect(JSON.parse(sent[0].body)).toEqual({ metadata: { name: 'parts' }, data: { k: 'v' } });
    } finally {
      await endpoint.close();
    }
  });
});
