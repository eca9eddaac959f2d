// The response re-encoder that serves the sim's JSON handlers as CBOR and protobuf, judged with a toy medium on a real
// HTTP server and read off the raw socket, so the chunked framing itself is checked (fetch would hide what follows
// the terminating chunk).
import { afterEach, describe, expect, it } from 'vitest';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { reencodeResponse, type ResponseEncoding } from '../../src/sim/response-reencoder.js';

/** `<TYPE:name>` per event, an ERROR event ends the stream; a whole answer is `{name}`, refused when it says `json`. */
const TOY: ResponseEncoding = {
  bodyType: 'application/x-toy',
  watchType: 'application/x-toy;stream=watch',
  encodeBody: (value) => ((value as { name: string }).name === 'json' ? undefined : Buffer.from(`{${(value as { name: string }).name}}`)),
  encodeWatchEvent: (e) => ({ bytes: Buffer.from(`<${e.type}:${String(e.object.name)}>`), last: e.type === 'ERROR' }),
};

let server: http.Server | undefined;
afterEach(async () => { await new Promise((r) => (server ? server.close(r) : r(undefined))); server = undefined; });

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** The whole HTTP/1.1 exchange as the client's socket sees it (the request asks the server to close after it). */
async function rawGet(port: number): Promise<{ head: string; body: Buffer }> {
  const sock = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  sock.on('data', (d: Buffer) => chunks.push(d));
  sock.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  await new Promise((r) => sock.on('close', r));
  const all = Buffer.concat(chunks);
  const sep = all.indexOf('\r\n\r\n');
  return { head: all.subarray(0, sep).toString('latin1'), body: all.subarray(sep + 4) };
}

/** A chunked body's data, refusing anything after its terminating chunk. */
function dechunk(body: Buffer): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    at = eol + 2;
    if (size === 0) {
      expect(body.subarray(at).toString('latin1'), 'bytes after the terminating chunk').toBe('\r\n');
      return out;
    }
    out += body.subarray(at, at + size).toString('latin1');
    at += size + 2;
  }
}

const line = (type: string, name: string) => `${JSON.stringify({ type, object: { name } })}\n`;

describe('response re-encoder', () => {
  it('a whole JSON answer goes out once, encoded, under the medium\'s type and without the JSON\'s length', async () => {
    const port = await serve((_req, res) => {
      reencodeResponse(res, false, TOY);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '15', 'X-Kept': 'yes' });
      res.write('{"name":');
      res.end('"abc"}');
    });
    const { head, body } = await rawGet(port);
    expect(head).toMatch(/content-type: application\/x-toy\r\n/i);
    expect(head).toMatch(/x-kept: yes/i);
    expect(head).not.toMatch(/content-length: 15/i);
    expect(dechunk(body)).toBe('{abc}');
  });

  it('an answer the medium cannot hold goes out as the JSON it was', async () => {
    const port = await serve((_req, res) => {
      reencodeResponse(res, false, TOY);
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"name":"json"}');
    });
    const { head, body } = await rawGet(port);
    expect(head).toMatch(/^HTTP\/1.1 404/);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(dechunk(body)).toBe('{"name":"json"}');
  });

  it('a watch is re-encoded line by line, a line split across writes waiting for its end', async () => {
    const port = await serve((_req, res) => {
      reencodeResponse(res, true, TOY);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      const both = line('ADDED', 'a') + line('MODIFIED', 'b');
      res.write(both.slice(0, 30));
      res.write(both.slice(30));
      res.end();
    });
    const { head, body } = await rawGet(port);
    expect(head).toMatch(/content-type: application\/x-toy;stream=watch/i);
    expect(dechunk(body)).toBe('<ADDED:a><MODIFIED:b>');
  });

  // The sim's watch handler corks the response around each batch of events. An event that ends the stream, met inside
  // such a batch, once ended the response from inside the write: on Node 24 the terminating chunk then went out before
  // the batch's frames (a client read an empty body).
  it('an event that ends the watch inside a corked batch: its frame, and every frame before it, precede the end of the body', async () => {
    const port = await serve((_req, res) => {
      reencodeResponse(res, true, TOY);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      res.cork();
      res.write(line('ADDED', 'a'));
      const more = res.write(line('ERROR', 'why') + line('ADDED', 'lost'));
      res.write(line('ADDED', 'ignored'));
      res.uncork();
      expect(more).toBe(false);
    });
    const { body } = await rawGet(port);
    expect(dechunk(body)).toBe('<ADDED:a><ERROR:why>');
  });
});

describe('response re-encoder, a cork held past the batch', () => {
  it('an event that ends the watch while the handler keeps the response corked: the frames still precede the end', async () => {
    const port = await serve((_req, res) => {
      reencodeResponse(res, true, TOY);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      res.cork();
      res.write(line('ADDED', 'a') + line('ERROR', 'why'));
      // never uncorked by the handler
    });
    const { body } = await rawGet(port);
    expect(dechunk(body)).toBe('<ADDED:a><ERROR:why>');
  });
});
