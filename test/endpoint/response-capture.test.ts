// What the endpoint's trace and --record see of an answer (status, type, size, body up to a bound, cut short or not)
// must be what the client got, however the answer was written: by the forwarder (writeHead with headers, then chunks),
// by the fork's handlers (setHeader, statusCode, end with a string), in any encoding, or left unfinished.
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { captureResponse, type CapturedResponse } from '../../src/endpoint/response-capture.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/**
 * Serves one request with `answer` under captureResponse(maxBytes); resolves with what the capture reported (and how
 * often) and what the client received. `cut` makes the client hang up after that many body bytes.
 */
async function capture(maxBytes: number, answer: (res: ServerResponse) => void, cut?: number): Promise<{ c: CapturedResponse; reports: number; got: Buffer; status: number }> {
  let reports = 0;
  let captured: CapturedResponse | undefined;
  let closed!: () => void;
  const bothSeen = new Promise<void>((r) => (closed = r));
  server = createServer((_req, res) => {
    captureResponse(res, maxBytes, (c) => { reports++; captured = c; });
    // Registered after the capture's own listeners: once this runs, both 'finish' and 'close' have reached it.
    res.on('close', () => closed());
    answer(res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const got = await new Promise<{ body: Buffer; status: number }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      const chunks: Buffer[] = [];
      let n = 0;
      res.on('data', (b: Buffer) => {
        chunks.push(b);
        n += b.length;
        if (cut !== undefined && n >= cut) { req.destroy(); resolve({ body: Buffer.concat(chunks), status: res.statusCode ?? 0 }); }
      });
      res.on('end', () => resolve({ body: Buffer.concat(chunks), status: res.statusCode ?? 0 }));
    });
    // A response broken by the server before its head: the client sees the socket hang up.
    req.on('error', (e) => (cut === undefined && !/socket hang up/.test(e.message) ? reject(e) : resolve({ body: Buffer.alloc(0), status: 0 })));
    req.end();
  });
  // Both 'finish' and 'close' have reached the capture once this resolves: the report is in by then, and is one.
  await bothSeen;
  const c = captured;
  if (c === undefined) throw new Error('no report after the response closed');
  return { c, reports, got: got.body, status: got.status };
}

describe('captureResponse', () => {
  it('takes status and Content-Type from writeHead\'s headers in any case, and the body as the chunks written', async () => {
    const { c, reports, got } = await capture(1024, (res) => {
      res.writeHead(201, { 'CONTENT-Type': 'application/json;charset=utf-8', 'X-Other': 'y' });
      res.write('{"a":');
      res.write(Buffer.from('1'));
      res.end('}');
    });
    expect(got.toString()).toBe('{"a":1}');
    expect(reports).toBe(1);
    expect(c).toMatchObject({ status: 201, contentType: 'application/json;charset=utf-8', bytes: 7, aborted: false });
    expect(c.chunks!.map((b) => b.toString())).toEqual(['{"a":', '1', '}']);
    expect(c.body!.toString()).toBe('{"a":1}');
  });

  it('takes writeHead\'s headers after a status message, and Content-Type set before a bare writeHead', async () => {
    const withMessage = await capture(1024, (res) => {
      res.writeHead(409, 'Conflict', { 'content-type': 'application/yaml' });
      res.end('kind: Status\n');
    });
    expect(withMessage.c).toMatchObject({ status: 409, contentType: 'application/yaml' });
    const bare = await capture(1024, (res) => {
      res.setHeader('Content-Type', 'application/vnd.kubernetes.protobuf');
      res.writeHead(200);
      res.end(Buffer.from([0x6b, 0x38, 0x73, 0x00]));
    });
    expect(bare.c).toMatchObject({ status: 200, contentType: 'application/vnd.kubernetes.protobuf', bytes: 4 });
    // writeHead's headers win over one set before.
    const both = await capture(1024, (res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.writeHead(200, { 'Content-Type': 'application/cbor' });
      res.end();
    });
    expect(both.c.contentType).toBe('application/cbor');
  });

  it('without writeHead: the status and Content-Type the handler set (a 404 from the fork, an implicit 200)', async () => {
    const notFound = await capture(1024, (res) => {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'application/json');
      res.end('{"kind":"Status"}');
    });
    expect(notFound.status).toBe(404);
    expect(notFound.c).toMatchObject({ status: 404, contentType: 'application/json', bytes: 17 });
    expect(notFound.c.body!.toString()).toBe('{"kind":"Status"}');
    const plain = await capture(1024, (res) => res.end('ok'));
    expect(plain.c).toMatchObject({ status: 200, contentType: '', bytes: 2, aborted: false });
  });

  it('counts strings in their encoding and typed arrays by their own bytes, and keeps them as written', async () => {
    const backing = new Uint8Array([0x78, 0x61, 0x62, 0x63, 0x78]);
    const { c, got } = await capture(1024, (res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('6869', 'hex'); // "hi": 2 bytes, not 4
      res.write('é'); // 2 bytes in UTF-8
      res.write(backing.subarray(1, 4)); // "abc", a view into a larger buffer
      res.end('21', 'hex', () => undefined);
    });
    expect(got.toString()).toBe('hiéabc!');
    expect(c.bytes).toBe(8);
    expect(c.chunks!.map((b) => b.toString())).toEqual(['hi', 'é', 'abc', '!']);
    expect(c.body!.toString()).toBe('hiéabc!');
  });

  it('ignores what carries no bytes: a callback alone, an end without a chunk or with null', async () => {
    const written = Buffer.from('{}');
    const { c, got } = await capture(1024, (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(written, () => undefined);
      res.end(() => undefined);
    });
    expect(got.toString()).toBe('{}');
    expect(c.bytes).toBe(2);
    // Kept as written, not copied (a LIST body runs to hundreds of MB); a body of one chunk is that chunk.
    expect(c.chunks).toEqual([written]);
    expect(c.chunks![0]).toBe(written);
    expect(c.body).toBe(written);
    const endNull = await capture(1024, (res) => { res.write('x'); res.end(null); });
    expect(endNull.got.toString()).toBe('x');
    expect(endNull.c).toMatchObject({ bytes: 1, aborted: false });
  });

  it('keeps a body of exactly the bound; one byte more keeps nothing but still counts every byte', async () => {
    const at = await capture(6, (res) => { res.write('abc'); res.end('def'); });
    expect(at.c.chunks!.map((b) => b.toString())).toEqual(['abc', 'def']);
    expect(at.c.body!.toString()).toBe('abcdef');
    const over = await capture(5, (res) => { res.write('abc'); res.write('def'); res.end('ghi'); });
    expect(over.got.toString()).toBe('abcdefghi');
    expect(over.c.bytes).toBe(9);
    expect(over.c.chunks).toBeUndefined();
    expect(over.c.body).toBeUndefined();
    // A watch is captured with a bound of 0: sizes only.
    const watch = await capture(0, (res) => { res.write('{"type":"ADDED"}\n'); res.end(); });
    expect(watch.c).toMatchObject({ bytes: 17, chunks: undefined, body: undefined });
  });

  it('a response broken before its head went out: the status and Content-Type the handler had set', async () => {
    const { c, reports, status } = await capture(1024, (res) => {
      res.statusCode = 504;
      res.setHeader('Content-Type', 'application/json');
      res.destroy();
    });
    expect(status).toBe(0);
    expect(reports).toBe(1);
    expect(c).toMatchObject({ status: 504, contentType: 'application/json', bytes: 0, aborted: true });
  });

  it('says aborted, once, when the client leaves before the end', async () => {
    const { c, reports } = await capture(1 << 20, (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('x'.repeat(100));
      // Never ended: the client hangs up.
    }, 100);
    expect(reports).toBe(1);
    expect(c).toMatchObject({ status: 200, aborted: true, bytes: 100 });
  });
});
