// The client's bounds against a misbehaving server, at the ListerWatcher level: one watch line, one list
// item and a stalled body each fail their request instead of growing or hanging without end.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, ObjectTooLargeError } from '../../src/informer/errors.js';
import { connectionFromUrl, type Connection, type HttpRequest } from '../../src/kube/http/connection.js';
import { HttpListerWatcher } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { startStub, type StubServer } from './stub-server.js';

const MiB = 1024 * 1024;
let stub: StubServer;
let conn: Connection;
/** Bytes each endless answer got out before the client hung up. */
const sent: Record<string, number> = {};

/** Writes `head`, then `filler` forever (with backpressure) until the client goes away or 512 MiB went out. */
function endless(res: ServerResponse, name: string, head: string, filler: string): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write(head);
  const chunk = Buffer.from(filler.repeat(Math.ceil(65536 / filler.length)));
  sent[name] = 0;
  const pump = () => {
    while (!res.destroyed) {
      if (sent[name] > 512 * MiB) return void res.end();
      sent[name] += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

beforeAll(async () => {
  stub = await startStub({
    '/api/v1/namespaces/line/pods': (_q, res) => endless(res, 'line', '{"type":"ADDED","object":{"metadata":{"name":"', 'a'),
    '/api/v1/namespaces/item/pods': (_q, res) => endless(res, 'item', '{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"annotations":{"x":"', 'b'),
    // Many small valid items: a big list is not an error (the bound is per item, not per body).
    '/api/v1/namespaces/big/pods': (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const item = JSON.stringify({ metadata: { name: 'p', namespace: 'big', annotations: { pad: 'x'.repeat(1000) } } });
      res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[${Array(3000).fill(item).join(',')}]}`);
    },
    '/api/v1/namespaces/stallwatch/pods': (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '2' } } })}\n`);
    },
    '/api/v1/namespaces/stall/pods': (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":"PodList","items":[');
      // …and nothing more, ever (closed by the test's stub.close()).
    },
  });
  conn = connectionFromUrl(stub.url, { maxObjectBytes: MiB, bodyIdleTimeoutMs: 300 });
});
afterAll(async () => {
  await conn.close();
  await stub.close();
});

const lw = (namespace: string) => new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true, namespace });

describe('bounds (--max-object-size 1Mi, idle-read 0.3s)', () => {
  it('a watch line that never ends fails the watch after the bound, with a clear error', async () => {
    const w = await lw('line').watch({});
    const run = (async () => {
      for await (const _ of w) void _;
    })();
    await expect(run).rejects.toThrow(ObjectTooLargeError);
    await expect(run).rejects.toThrow('a watch event is larger than 1Mi (the --max-object-size bound)');
    // What the client read (and so could have held) stays near the bound, not the 512 MiB on offer.
    expect(sent.line).toBeLessThan(32 * MiB);
  });

  it('the raw watch (events --raw) has the same bound', async () => {
    const w = await lw('line').rawWatch({});
    const run = (async () => {
      for await (const _ of w) void _;
    })();
    await expect(run).rejects.toThrow(ObjectTooLargeError);
  });

  it('a list item that never ends fails the list after the bound', async () => {
    await expect(lw('item').list({})).rejects.toThrow('an item of the list of /api/v1/namespaces/item/pods is larger than 1Mi (the --max-object-size bound)');
    expect(sent.item).toBeLessThan(32 * MiB);
  });

  it('a list larger than the bound made of items within it is read whole', async () => {
    const page = await lw('big').list({});
    expect(page.items).toHaveLength(3000);
    expect(page.bytes).toBeGreaterThan(3 * MiB);
  });

  it('a list body that stalls fails after the idle-read timeout instead of hanging', async () => {
    const started = Date.now();
    const err = await lw('stall').list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toMatch(/^the server sent nothing for 0\.3s in the middle of the answer to GET \/api\/v1\/namespaces\/stall\/pods \(idle-read timeout\)$/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a watch gets an idle-read timeout of its timeoutSeconds plus a minute, and a stalled stream fails with it', async () => {
    const seen: HttpRequest[] = [];
    const spy: Connection = Object.assign(Object.create(conn) as Connection, { request: (req: HttpRequest) => (seen.push(req), conn.request(req)) });
    const w = await new HttpListerWatcher(spy, { group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'stallwatch' }).watch({ timeoutSeconds: 300 });
    w.close();
    expect(seen.at(-1)).toMatchObject({ stream: true, idleTimeoutMs: 360_000 });
    // The same mechanism with a short idle: one event, then silence, then the idle-read error.
    const res = await conn.request({ path: '/api/v1/namespaces/stallwatch/pods', query: { watch: true }, stream: true, idleTimeoutMs: 300 });
    const read = (async () => {
      for await (const _ of res.body) void _;
    })();
    await expect(read).rejects.toThrow(/^the server sent nothing for 0\.3s in the middle of the answer to GET \/api\/v1\/namespaces\/stallwatch\/pods\?watch=true \(idle-read timeout\)$/);
  });
});
