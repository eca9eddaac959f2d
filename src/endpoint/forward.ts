// Passing a client's request to the target and its answer back, byte for byte as it arrives (a watch stays open as long
// as both ends do). The target connection applies the user's credentials and TLS; the client's own token stays here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Connection, PushedResponse } from '../kube/http/connection.js';
import type { RequestHeaders } from '../kube/http/request-headers.js';
import { ApiStatusError } from '../wire/api-status.js';
import { breakAfterWritten } from './break-response.js';
import { requestInfo } from './request-info.js';

/**
 * Request headers that stay here: the credentials kwatch replaces with the user's own (the endpoint's token), the
 * connection's own (hop-by-hop, framing), and Accept-Encoding (kwatch reads the answer to trace it). Every other one —
 * the User-Agent first: kube names a write's field manager after it when no fieldManager is given — reaches the target.
 */
const KEPT_REQUEST_HEADERS = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade',
  'content-length', 'expect', 'accept-encoding',
]);
/** Answer headers passed back; hop-by-hop ones and the body's framing are the endpoint's own. */
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

export async function forwardRequest(upstream: Connection, req: IncomingMessage, res: ServerResponse, target: string, body: Buffer | undefined): Promise<void> {
  const headers = forwardedHeaders(req);
  const ac = new AbortController();
  const onGone = () => { if (!res.writableFinished) ac.abort(); };
  res.on('close', onGone);
  let source: PushedResponse | undefined;
  try {
    // Watches go through the connection's socket client when it has one: the answer is pushed into the response as it
    // arrives, and the target is not read while the client does not drain, so a stalled watch holds about one read.
    // Lists and gets, which end, stay on undici: through the socket client a paged LIST of 20,000 pods cost the
    // endpoint 18% more CPU (1,481 against 1,250 ms, docs/benchmarks.md), and a finished answer holds nothing.
    if ((req.method ?? 'GET') === 'GET' && !body?.length && upstream.requestPushed && requestInfo('GET', target).verb === 'watch') {
      source = await upstream.requestPushed({ path: target, headers, signal: ac.signal });
    }
    if (!source) {
      const answer = await upstream.request({ method: req.method ?? 'GET', path: target, headers, body, stream: true, allowErrorStatus: true, signal: ac.signal, timeoutMs: 0 });
      source = streamedAnswer(answer, ac);
    }
  } catch (err) {
    // The client went away before the target answered (a controller stopped mid-request): nothing failed, nobody waits.
    if (ac.signal.aborted) return;
    throw err;
  } finally {
    res.off('close', onGone);
  }
  return passAnswer(source, res);
}

/**
 * The target's answer into the response: its status and headers at once (a watch's, as kube-apiserver sends them, not
 * with its first event), then its body no faster than the client takes it. The client going away closes the target's
 * side (a watch would otherwise stay open upstream); the target breaking the stream breaks the client's connection too.
 */
function passAnswer(answer: PushedResponse, res: ServerResponse): Promise<void> {
  // The client left while the target answered: its 'close' has passed, so the target's side goes now.
  if (res.destroyed) { answer.destroy(); return Promise.resolve(); }
  res.writeHead(answer.status, answerHeaders(answer.headers));
  res.flushHeaders();
  return new Promise<void>((resolve) => {
    let ended = false;
    const resume = () => answer.resume();
    const gone = () => { if (!ended) answer.destroy(); };
    res.on('drain', resume);
    res.on('close', gone);
    answer.pipe({
      data: (chunk) => !res.destroyed && res.write(chunk),
      end: (err) => {
        ended = true;
        res.off('drain', resume);
        res.off('close', gone);
        if (!err) {
          if (!res.destroyed) res.end();
          resolve();
          return;
        }
        // What the target sent just before it broke still reaches the client.
        breakAfterWritten(res, err, resolve);
      },
    });
  });
}

/** An answer undici reads, as passAnswer takes it: its body is read on only when `data` takes more, or on `resume`. */
function streamedAnswer(answer: Awaited<ReturnType<Connection['request']>>, ac: AbortController): PushedResponse {
  let wake: (() => void) | undefined;
  let stopped = false;
  const resume = () => { const w = wake; wake = undefined; w?.(); };
  return {
    status: answer.status,
    headers: answer.headers,
    pipe: (sink) => {
      void (async () => {
        try {
          for await (const chunk of answer.body as AsyncIterable<Buffer>) {
            if (stopped) break;
            if (!sink.data(chunk)) await new Promise<void>((r) => { wake = r; });
          }
          sink.end();
        } catch (err) {
          sink.end(err as Error);
        }
      })();
    },
    resume,
    destroy: () => { stopped = true; ac.abort(); resume(); },
  };
}

/** Answer headers passed back: all but the hop-by-hop ones and the body's framing. */
function answerHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !DROPPED_RESPONSE_HEADERS.has(k.toLowerCase())) out[k] = v;
  return out;
}

/**
 * The client's request headers the target gets (the names a Connection header lists stay here too, as hop-by-hop). A
 * header the client sent on several lines goes on as several lines: Node joins them with ", ", and kube-apiserver
 * reads each Impersonate-Group or Impersonate-Extra-* line as one value, never splitting on commas
 * (apiserver/pkg/endpoints/filters/impersonation.go), so "g1, g2" would be one group.
 */
export function forwardedHeaders(req: IncomingMessage): RequestHeaders {
  const hopByHop = new Set(String(req.headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean));
  const distinct = (req as Partial<Pick<IncomingMessage, 'headersDistinct'>>).headersDistinct;
  const headers: RequestHeaders = {};
  for (const [name, v] of Object.entries(req.headers)) {
    if (v === undefined || KEPT_REQUEST_HEADERS.has(name) || hopByHop.has(name)) continue;
    const lines = distinct?.[name];
    // Only where Node joined the lines: for the names it keeps the first of (Content-Type, User-Agent…) the first
    // goes, as Go's Header.Get reads it, and a value the endpoint set itself (a re-encoded body's type) stays.
    headers[name] = Array.isArray(v) ? v : lines !== undefined && lines.length > 1 && v === lines.join(', ') ? [...lines] : v;
  }
  return headers;
}

/** The whole request body, or the Status to answer when it is larger than `max`. */
export async function requestBody(req: IncomingMessage, max: number): Promise<Buffer | ApiStatusError> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > max) return new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 413, reason: 'RequestEntityTooLarge', message: `kwatch endpoint: the request body is larger than ${max} bytes` });
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}
