// forwardRequest between a real client and a scripted target: what the target is asked (headers, body, which client
// path a watch takes), what the client gets back (status, headers without the hop-by-hop ones, the body whole), and
// what each side sees when the other goes away or breaks. The endpoint's whole sessions (endpoint*.test.ts) and
// forward-backpressure/-client-gone/-stalled-memory cover it from the outside; this file drives it directly.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardedHeaders, forwardRequest, requestBody } from '../../src/endpoint/forward.js';
import type { Connection, HttpRequest, HttpResponse, PushedRequest, PushedResponse } from '../../src/kube/http/connection.js';
import { ApiStatusError } from '../../src/wire/api-status.js';

const until = async (what: () => boolean, label: string) => {
  for (let i = 0; i < 20_000 && !what(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!what()) throw new Error(`never: ${label}`);
};

/** An undici-like answer whose body yields `chunks` (then throws `fail`, when given), counting what was pulled. */
function answer(status: number, headers: HttpResponse['headers'], chunks: Buffer[], fail?: Error): HttpResponse & { pulled: () => number } {
  let pulled = 0;
  async function* body() {
    for (const c of chunks) { pulled++; yield c; }
    if (fail) throw fail;
  }
  return { status, headers, body: Object.assign(body(), { text: async () => '', json: async () => ({}) }), pulled: () => pulled } as never;
}

interface Target {
  conn: Connection;
  asked: HttpRequest[];
  pushed: PushedRequest[];
}

function target(respond: (r: HttpRequest) => Promise<HttpResponse>, push?: (r: PushedRequest) => Promise<PushedResponse | undefined>): Target {
  const asked: HttpRequest[] = [];
  const pushed: PushedRequest[] = [];
  const conn = {
    server: 'https://target.test',
    request: (r: HttpRequest) => { asked.push(r); return respond(r); },
    ...(push ? { requestPushed: (r: PushedRequest) => { pushed.push(r); return push(r); } } : {}),
    close: async () => {},
  } as unknown as Connection;
  return { conn, asked, pushed };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

/** An endpoint of one route: every request forwarded to `t` with its body read first; the promise's outcome kept. */
async function serve(t: Target): Promise<{ url: string; outcomes: (string | undefined)[] }> {
  const outcomes: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await requestBody(req, 1 << 20);
      try {
        await forwardRequest(t.conn, req, res, req.url ?? '/', body as Buffer);
        outcomes.push('resolved');
      } catch (err) {
        outcomes.push(`threw ${(err as Error).message}`);
        if (!res.headersSent) { res.writeHead(502); res.end(); }
      }
    })();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, outcomes };
}

interface Got { status: number; headers: IncomingMessage['headers']; body: string; error?: string }
function call(url: string, path: string, o: { method?: string; headers?: Record<string, string>; body?: string; onResponse?: (res: IncomingMessage, req: ReturnType<typeof request>) => void } = {}): Promise<Got> {
  return new Promise((resolve) => {
    const req = request(url + path, { method: o.method ?? 'GET', headers: o.headers }, (res) => {
      o.onResponse?.(res, req);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', (e) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), error: e.message }));
    });
    req.on('error', (e) => resolve({ status: 0, headers: {}, body: '', error: e.message }));
    req.end(o.body);
  });
}

describe('forwardRequest', () => {
  it('asks the target as the client asked (method, path, headers but the endpoint\'s own, body) and streams its answer back', async () => {
    const t = target(async () => answer(201, {
      'content-type': 'application/json', 'Content-Length': '999', 'Transfer-Encoding': 'chunked', Connection: 'close',
      'CONTENT-ENCODING': 'gzip', 'Keep-Alive': 'timeout=99', 'audit-id': 'a-1', 'x-multi': ['1', '2'], 'x-none': undefined,
    }, [Buffer.from('{"kind":'), Buffer.from('"ConfigMap"}')]));
    const { url, outcomes } = await serve(t);
    const got = await call(url, '/api/v1/namespaces/d/configmaps?fieldManager=m', {
      method: 'POST', body: '{"kind":"ConfigMap"}', headers: { 'content-type': 'application/json', authorization: 'Bearer client', 'user-agent': 'ctl/1' },
    });
    expect(got).toMatchObject({ status: 201, body: '{"kind":"ConfigMap"}' });
    expect(got.headers).toMatchObject({ 'content-type': 'application/json', 'audit-id': 'a-1', 'x-multi': '1, 2' });
    // The target's framing and encoding are not the endpoint's: Node frames the answer anew (chunked), unencoded.
    expect(got.headers['content-length']).toBeUndefined();
    expect(got.headers['content-encoding']).toBeUndefined();
    // Node's server sends its own Keep-Alive; the target's is not passed on.
    expect(got.headers['keep-alive']).not.toBe('timeout=99');
    expect(got.headers.connection).not.toBe('close');
    expect(got.headers).not.toHaveProperty('x-none');
    expect(t.asked).toHaveLength(1);
    const [asked] = t.asked;
    expect(asked).toMatchObject({ method: 'POST', path: '/api/v1/namespaces/d/configmaps?fieldManager=m', stream: true, allowErrorStatus: true, timeoutMs: 0 });
    expect(asked.body?.toString()).toBe('{"kind":"ConfigMap"}');
    expect(asked.headers).toEqual({ 'content-type': 'application/json', 'user-agent': 'ctl/1' });
    expect(asked.signal).toBeInstanceOf(AbortSignal);
    expect(outcomes).toEqual(['resolved']);
  });

  it('passes an error answer on as it is', async () => {
    const t = target(async () => answer(404, { 'content-type': 'application/json' }, [Buffer.from('{"kind":"Status","code":404}')]));
    const { url } = await serve(t);
    expect(await call(url, '/api/v1/namespaces/d/configmaps/x')).toMatchObject({ status: 404, body: '{"kind":"Status","code":404}' });
  });

  it('takes a watch GET through the connection\'s pushed path; a list, a write and a watch the connection cannot push go through request', async () => {
    let sink: Parameters<PushedResponse['pipe']>[0] | undefined;
    let cannot = false;
    const t = target(async () => answer(200, { 'content-type': 'application/json' }, [Buffer.from('{"items":[]}')]), async () => {
      if (cannot) return undefined;
      return { status: 200, headers: { 'content-type': 'application/json', 'content-length': '5' }, pipe: (s) => { sink = s; s.data(Buffer.from('{"type":"ADDED"}\n')); s.end(); }, resume: () => {}, destroy: () => {} };
    });
    const { url } = await serve(t);
    const watch = await call(url, '/api/v1/configmaps?watch=true', { headers: { authorization: 'Bearer x', accept: 'application/json' } });
    expect(watch).toMatchObject({ status: 200, body: '{"type":"ADDED"}\n' });
    expect(watch.headers['content-length']).toBeUndefined();
    expect(sink).toBeDefined();
    expect(t.pushed).toEqual([{ path: '/api/v1/configmaps?watch=true', headers: { accept: 'application/json' }, signal: expect.any(AbortSignal) }]);
    expect(t.asked).toEqual([]);
    expect((await call(url, '/api/v1/configmaps')).body).toBe('{"items":[]}');
    expect((await call(url, '/api/v1/configmaps?watch=true', { method: 'POST', body: '{}' })).status).toBe(200);
    expect(t.pushed).toHaveLength(1);
    expect(t.asked.map((a) => `${a.method} ${a.path}`)).toEqual(['GET /api/v1/configmaps', 'POST /api/v1/configmaps?watch=true']);
    cannot = true;
    expect((await call(url, '/api/v1/configmaps?watch=true')).body).toBe('{"items":[]}');
    expect(t.pushed).toHaveLength(2);
    expect(t.asked.map((a) => `${a.method} ${a.path}`).at(-1)).toBe('GET /api/v1/configmaps?watch=true');
  });

  it('a watch through a connection with no pushed path, or a GET watch with a body, goes through request', async () => {
    const plain = target(async () => answer(200, { 'content-type': 'application/json' }, [Buffer.from('{"type":"ADDED"}\n')]));
    const { url } = await serve(plain);
    expect((await call(url, '/api/v1/configmaps?watch=true')).body).toBe('{"type":"ADDED"}\n');
    expect(plain.asked.map((a) => a.path)).toEqual(['/api/v1/configmaps?watch=true']);
    const both = target(async () => answer(200, {}, [Buffer.from('x')]), async () => { throw new Error('not pushed'); });
    const second = await serve(both);
    expect((await call(second.url, '/api/v1/configmaps?watch=true', { body: '{}', headers: { 'content-type': 'application/json', 'content-length': '2' } })).body).toBe('x');
    expect(both.pushed).toEqual([]);
    expect(both.asked[0].body?.toString()).toBe('{}');
  });

  it('sends a watch\'s status and headers at once, before its first event', async () => {
    let sink: Parameters<PushedResponse['pipe']>[0] | undefined;
    const t = target(async () => { throw new Error('not asked'); }, async () => ({ status: 200, headers: { 'content-type': 'application/json' }, pipe: (s) => { sink = s; }, resume: () => {}, destroy: () => {} }));
    const { url } = await serve(t);
    const got = call(url, '/api/v1/configmaps?watch=true', { onResponse: () => { sink!.data(Buffer.from('{"type":"ADDED"}\n')); sink!.end(); } });
    expect((await got).body).toBe('{"type":"ADDED"}\n');
  });

  it('a target that answers after the client left: its answer is closed unread', async () => {
    let a: ReturnType<typeof answer> | undefined;
    let serverSawClose!: () => void;
    const closed = new Promise<void>((r) => (serverSawClose = r));
    const t = target((r) => new Promise((resolve) => {
      // Ignores the abort until the endpoint's response has closed, then answers anyway.
      void closed.then(() => resolve((a = answer(200, {}, [Buffer.from('late')]))));
      void r;
    }));
    const { url, outcomes } = await serve(t);
    servers.at(-1)!.prependListener('request', (_req, res) => res.on('close', () => setImmediate(serverSawClose)));
    await new Promise<void>((resolve) => {
      const req = request(`${url}/api/v1/pods`);
      req.on('error', () => resolve());
      req.end();
      void until(() => t.asked.length === 1, 'asked').then(() => { req.destroy(); resolve(); });
    });
    await until(() => outcomes.length === 1, 'forwardRequest settled');
    expect(outcomes).toEqual(['resolved']);
    expect(a!.pulled()).toBe(0);
  });

  it('breaks the client\'s connection when the target breaks the body, rather than ending it as if complete', async () => {
    const t = target(async () => answer(200, { 'content-type': 'application/json' }, [Buffer.from('{"items":[')], new Error('target reset')));
    const { url, outcomes } = await serve(t);
    const got = await call(url, '/api/v1/configmaps');
    expect(got.error).toBeDefined();
    expect(got.body).toBe('{"items":[');
    await until(() => outcomes.length === 1, 'forwardRequest settled');
    expect(outcomes).toEqual(['resolved']);
    // A pushed watch whose target breaks right after an event: the client gets the event, then the break.
    const p = target(async () => { throw new Error('not asked'); }, async () => ({
      status: 200, headers: {}, pipe: (s) => { s.data(Buffer.from('{"type":"ADDED"}\n')); s.end(new Error('target reset')); }, resume: () => {}, destroy: () => {},
    }));
    const pushed = await serve(p);
    expect(await call(pushed.url, '/api/v1/configmaps?watch=1')).toMatchObject({ body: '{"type":"ADDED"}\n', error: expect.any(String) });
  });

  it('a client that leaves mid-body: the target\'s side is closed (undici\'s request aborted, a pushed answer destroyed)', async () => {
    // undici: a body that never ends.
    let signal: AbortSignal | undefined;
    const t = target(async (r) => {
      signal = r.signal;
      async function* body() { yield Buffer.from('{"items":['); await new Promise((res) => r.signal!.addEventListener('abort', res)); }
      return { status: 200, headers: {}, body: Object.assign(body(), { text: async () => '', json: async () => ({}) }) } as never;
    });
    const { url, outcomes } = await serve(t);
    await call(url, '/api/v1/configmaps', { onResponse: (res, req) => res.once('data', () => req.destroy()) });
    await until(() => signal?.aborted === true, 'the target request aborted');
    await until(() => outcomes.length === 1, 'forwardRequest settled');
    expect(outcomes).toEqual(['resolved']);

    let destroyed = 0;
    const p = target(async () => { throw new Error('not asked'); }, async () => ({
      status: 200, headers: {}, pipe: (s) => { s.data(Buffer.from('{"type":"ADDED"}\n')); }, resume: () => {}, destroy: () => { destroyed++; },
    }));
    const second = await serve(p);
    await call(second.url, '/api/v1/configmaps?watch=1', { onResponse: (res, req) => res.once('data', () => req.destroy()) });
    await until(() => destroyed > 0, 'the pushed answer destroyed');
    expect(destroyed).toBe(1);
  });

  it('a client gone before the target answered: nothing thrown; a target that fails on its own: the error goes up', async () => {
    let aborted = 0;
    const t = target((r) => new Promise((_res, reject) => r.signal!.addEventListener('abort', () => { aborted++; reject(new Error('aborted')); })));
    const { url, outcomes } = await serve(t);
    // Gone once the target holds the request.
    await new Promise<void>((resolve) => {
      const req = request(`${url}/api/v1/pods`);
      req.on('error', () => resolve());
      req.end();
      void until(() => t.asked.length === 1, 'asked').then(() => { req.destroy(); resolve(); });
    });
    await until(() => aborted >= 1, 'the target request aborted');
    await until(() => outcomes.length >= 1, 'forwardRequest settled');
    expect(outcomes[0]).toBe('resolved');

    const f = target(async () => { throw new Error('connect ECONNREFUSED'); });
    const failing = await serve(f);
    expect((await call(failing.url, '/api/v1/pods')).status).toBe(502);
    expect(failing.outcomes).toEqual(['threw connect ECONNREFUSED']);
  });

  it('reads the target no faster than the client takes it, then passes all of it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const total = 512; // 32 MB: more than the sockets between them hold.
    const a = answer(200, { 'content-type': 'text/plain' }, Array.from({ length: total }, () => chunk));
    const t = target(async () => a);
    const { url } = await serve(t);
    let received = 0;
    let resumeClient!: () => void;
    const done = new Promise<number>((resolve) => {
      const req = request(`${url}/big`, (res) => {
        res.pause();
        resumeClient = () => { res.on('data', (c: Buffer) => { received += c.length; }); res.resume(); };
        res.on('end', () => resolve(received));
      });
      req.end();
    });
    // Until the reads stop: the client takes nothing meanwhile.
    await until(() => a.pulled() > 0, 'first read');
    let last = -1;
    for (let i = 0; i < 200 && a.pulled() !== last; i++) { last = a.pulled(); await new Promise((r) => setTimeout(r, 50)); }
    expect(a.pulled()).toBeLessThan(total);
    resumeClient();
    expect(await done).toBe(total * chunk.length);
    expect(a.pulled()).toBe(total);
  }, 60_000);
});

describe('requestBody', () => {
  it('reads the whole body up to the bound, and answers 413 past it', async () => {
    const from = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p))) as unknown as IncomingMessage;
    expect((await requestBody(from('ab', 'cd'), 4)).toString()).toBe('abcd');
    expect((await requestBody(from(), 4)).toString()).toBe('');
    const over = await requestBody(from('ab', 'cde'), 4);
    expect(over).toBeInstanceOf(ApiStatusError);
    expect((over as ApiStatusError).status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 413, reason: 'RequestEntityTooLarge', message: 'kwatch endpoint: the request body is larger than 4 bytes' });
  });
});

describe('forwardedHeaders', () => {
  it('keeps the names a Connection header lists, in any case and spacing, and passes a repeated header on as its lines', () => {
    const h = forwardedHeaders({ headers: { connection: ' X-Hop-A ,x-hop-b,, ', 'x-hop-a': '1', 'x-hop-b': '2', 'x-kept': '3', 'x-list': ['a', 'b'], te: 'trailers', expect: '100-continue', cookie: 'c', 'proxy-authorization': 'p', upgrade: 'h2c', trailer: 't', 'proxy-connection': 'k' } } as unknown as IncomingMessage);
    expect(h).toEqual({ 'x-kept': '3', 'x-list': ['a', 'b'] });
    expect(forwardedHeaders({ headers: { 'x-a': '1' } } as unknown as IncomingMessage)).toEqual({ 'x-a': '1' });
  });
});
