// Writing HTTP answers: JSON bodies (always with a Content-Type), Status errors, Go's plain-text 404, and large bodies streamed with backpressure.
import type { ServerResponse } from 'node:http';
import { SimApiError } from './api.js';
import { internalError } from './status.js';

export const JSON_TYPE = 'application/json';

export function sendJson(res: ServerResponse, code: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.end(); return; }
  res.writeHead(code, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendObject(res: ServerResponse, code: number, obj: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, code, JSON.stringify(obj), headers);
}

/** Answers with the Status of a SimApiError (Retry-After from details.retryAfterSeconds), or a 500 InternalError for anything else. */
export function sendError(res: ServerResponse, err: unknown): void {
  const e = err instanceof SimApiError ? err : internalError(err instanceof Error ? err.message : String(err));
  const retry = (e.status.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
  const headers: Record<string, string> = {};
  if (retry && retry > 0) headers['Retry-After'] = String(retry);
  sendObject(res, e.status.code, e.status, headers);
}

/** Go's http.NotFound: what kube-apiserver answers for paths no handler serves. */
export function sendNotFoundText(res: ServerResponse): void {
  if (res.headersSent) { res.end(); return; }
  const body = '404 page not found\n';
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const CHUNK = 1 << 20;

/**
 * Sends head + items joined by "," + tail without building one giant string: pieces are grouped into ~1 MB writes
 * and the writer waits for 'drain' when the socket buffer is full.
 */
export async function sendJoined(res: ServerResponse, code: number, head: string, items: readonly string[], tail: string, headers: Record<string, string> = {}): Promise<void> {
  let total = head.length + tail.length + Math.max(0, items.length - 1);
  for (const s of items) total += s.length;
  if (total < CHUNK) {
    sendJson(res, code, head + items.join(',') + tail, headers);
    return;
  }
  res.writeHead(code, { 'Content-Type': JSON_TYPE, ...headers });
  let buf: string[] = [head];
  let size = head.length;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) { buf.push(','); size++; }
    buf.push(items[i]);
    size += items[i].length;
    if (size >= CHUNK) {
      const ok = res.write(buf.join(''));
      buf = [];
      size = 0;
      if (!ok) await drained(res);
      if (res.destroyed) return;
    }
  }
  buf.push(tail);
  res.end(buf.join(''));
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}
