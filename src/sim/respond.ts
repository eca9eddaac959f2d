// Writing HTTP answers: JSON bodies (always with a Content-Type), Status errors, Go's plain-text 404, and large bodies streamed with backpressure.
import type { ServerResponse } from 'node:http';

export const JSON_TYPE = 'application/json';

export function sendJson(res: ServerResponse, code: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.end(); return; }
  res.writeHead(code, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendObject(res: ServerResponse, code: number, obj: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, code, JSON.stringify(obj), headers);
}

export { sendError } from '../wire/send-status.js';

/** Go's http.NotFound: what kube-apiserver answers for paths no handler serves. */
export function sendNotFoundText(res: ServerResponse): void {
  if (res.headersSent) { res.end(); return; }
  const body = '404 page not found\n';
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** What Go's server answers a request line it cannot parse (e.g. a `%ZZ` escape in the path), before any handler runs. */
export function sendBadRequestText(res: ServerResponse): void {
  const body = '400 Bad Request';
  res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const CHUNK = 1 << 20;
/** A builder holding this much is flushed (well before it would have to grow). */
export const CHUNK_FLUSH = CHUNK - 65536;

const EMPTY = Buffer.alloc(0);

/** Encodes many strings into ~1 MB buffers: one UTF-8 copy per byte, no intermediate joined string. */
export class ChunkBuilder {
  private buf = EMPTY;
  private used = 0;
  /** Bytes written since the last take(). */
  get size(): number { return this.used; }

  add(s: string): void {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes: only a near-full buffer needs the exact length first.
    if (this.used + s.length * 3 > this.buf.length) {
      const n = Buffer.byteLength(s, 'utf8');
      if (this.used + n > this.buf.length) this.grow(n);
    }
    this.used += this.buf.write(s, this.used, 'utf8');
  }

  /** The bytes written so far; the builder starts a fresh buffer. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.used);
    this.buf = EMPTY;
    this.used = 0;
    return out;
  }

  private grow(n: number): void {
    const next = Buffer.allocUnsafe(Math.max(CHUNK, this.used + n));
    if (this.used) this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }
}

/**
 * Sends head + items joined by "," + tail without building one giant string: items (stored objects' JSON) are encoded
 * into ~1 MB buffers and the writer waits for 'drain' when the socket buffer is full.
 */
export async function sendJoined(res: ServerResponse, code: number, head: string, items: readonly string[], tail: string, headers: Record<string, string> = {}, itemOpen = ''): Promise<void> {
  let total = head.length + tail.length + Math.max(0, items.length - 1) + items.length * itemOpen.length;
  for (const s of items) total += s.length;
  if (total < CHUNK) {
    sendJson(res, code, head + (items.length ? itemOpen + items.join(`,${itemOpen}`) : '') + tail, headers);
    return;
  }
  res.writeHead(code, { 'Content-Type': JSON_TYPE, ...headers });
  const out = new ChunkBuilder();
  out.add(head);
  // Each item written as its separator and `itemOpen` (one piece), then the item: no per-item concatenation (a
  // copy of every object).
  const between = `,${itemOpen}`;
  for (let i = 0; i < items.length; i++) {
    const open = i > 0 ? between : itemOpen;
    if (open) out.add(open);
    out.add(items[i]);
    if (out.size >= CHUNK_FLUSH) {
      const ok = res.write(out.take());
      if (!ok) await drained(res);
      if (res.destroyed) return;
    }
  }
  out.add(tail);
  res.end(out.take());
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}
