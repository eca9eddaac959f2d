// kwatch's socket client (the endpoint's forwarded reads): HTTP/1.1 framing however the target cuts its bytes, keep-alive
// reuse, reads stopped while the receiver cannot take more, and redirects left to the undici path that follows them.
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SocketClient, type BodySink, type SocketAnswer } from '../../src/kube/http/socket-client.js';
import { connectionFromUrl } from '../../src/kube/http/connection.js';

let server: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** A target that answers each request on a connection with the next of `answers`, written as `cut` slices it. */
async function target(answers: (string | Buffer)[][], onRequest?: (head: string, socket: Socket) => void): Promise<number> {
  server = createNetServer((socket) => {
    sockets.add(socket);
    let next = 0;
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
      while (got.includes('\r\n\r\n')) {
        const head = got.slice(0, got.indexOf('\r\n\r\n'));
        got = got.slice(head.length + 4);
        onRequest?.(head, socket);
        const parts = answers[next++ % answers.length];
        // Each part its own write, a turn apart, so that the client reads them separately.
        void (async () => { for (const p of parts) { socket.write(p); await new Promise((r) => setTimeout(r, 5)); } })();
      }
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function read(answer: SocketAnswer): Promise<string> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => answer.pipe({ data: (c) => { chunks.push(c); return true; }, end: (err) => (err ? reject(err) : resolve(Buffer.concat(chunks).toString('utf8'))) }));
}

const bytes = (s: string) => [...s].map((c) => c);
let ids = 0;
const client = (port: number) => new SocketClient({ host: '127.0.0.1', port }, () => ++ids);

describe('SocketClient', () => {
  it('reads a chunked body cut at every byte, after an interim 100 Continue', async () => {
    const wire = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\n{"a":\r\nA\r\n"012345678\r\n2\r\n"}\r\n0\r\nX-Trailer: 1\r\n\r\n';
    const port = await target([bytes(wire)]);
    const c = client(port);
    const answer = await c.request('GET', '/x', {});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(await read(answer)).toBe('{"a":"012345678"}');
    c.close();
  });

  it('reuses a keep-alive connection, and reads a Content-Length body and one up to the close', async () => {
    const heads: string[] = [];
    const port = await target([
      ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel', 'lo'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc'],
      ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the ', 'end'],
    ], (head, socket) => { heads.push(head); if (heads.length === 3) setTimeout(() => socket.end(), 50); });
    const c = client(port);
    const first = await c.request('GET', '/1', { 'User-Agent': 'me' });
    expect(await read(first)).toBe('hello');
    const second = await c.request('GET', '/2', {});
    expect(await read(second)).toBe('abc');
    expect(second.socketId).toBe(first.socketId);
    const third = await c.request('GET', '/3', {});
    expect(await read(third)).toBe('to the end');
    expect(heads[0]).toMatch(/^GET \/1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nconnection: keep-alive\r\nUser-Agent: me$/);
    c.close();
  });

  it('does not read on while the receiver cannot take more, and reads the rest once resumed', async () => {
    const piece = 'x'.repeat(1000);
    const port = await target([['HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n', piece, piece, piece]]);
    const c = client(port);
    const answer = await c.request('GET', '/', {});
    let got = 0;
    let refused = false;
    let ended = false;
    const sink: BodySink = { data: (chunk) => { got += chunk.length; refused = true; return false; }, end: () => { ended = true; } };
    answer.pipe(sink);
    // The whole body is on its way; stopped after the first piece, nothing more arrives however long one waits.
    for (let i = 0; i < 200 && got === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const atPause = got;
    expect(refused).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toBe(atPause);
    expect(atPause).toBeLessThan(3000);
    sink.data = (chunk) => { got += chunk.length; return true; };
    answer.resume();
    for (let i = 0; i < 500 && !ended; i++) await new Promise((r) => setTimeout(r, 10));
    expect(ended).toBe(true);
    expect(got).toBe(3000);
    c.close();
  });

  it('fails an answer cut short by the target', async () => {
    const port = await target([['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab']], (_h, socket) => setTimeout(() => socket.destroy(), 50));
    const c = client(port);
    const answer = await c.request('GET', '/', {});
    await expect(read(answer)).rejects.toThrow(/closed the connection before its answer was complete/);
    c.close();
  });
});

describe('Connection.requestPushed', () => {
  it('leaves a redirect to request(), which follows it', async () => {
    const port = await target([['HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n']]);
    const conn = connectionFromUrl(`http://127.0.0.1:${port}`);
    expect(await conn.requestPushed!({ path: '/api' })).toBeUndefined();
    await conn.close();
  });
});

describe('SocketClient idle connections', () => {
  it('an idle keep-alive connection does not keep the process alive', async () => {
    const port = await target([['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok']]);
    const c = client(port);
    const answer = await c.request('GET', '/', {});
    expect(await read(answer)).toBe('ok');
    // Sockets that keep the process alive (an unref'd one is not counted): the target's side only.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap')).toHaveLength(sockets.size);
    c.close();
  });
});
