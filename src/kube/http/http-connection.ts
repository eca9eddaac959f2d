// The Connection implementation: one undici dispatcher (keep-alive pool), auth headers applied to
// every request, redirects followed as kubectl follows them, non-2xx answers turned into StatusError
// (an HTML page into UnexpectedAnswerError), network failures into ConnectionError, and `http` trace
// records (request, response) for every call.
import type { Dispatcher } from 'undici';
import { ConnectionError } from '../../informer/errors.js';
import type { Tracer } from '../../informer/trace.js';
import type { Connection, HttpRequest, HttpResponse, PushedRequest, PushedResponse } from './connection.js';
import type { RequestHeaders } from './request-headers.js';
import { SocketClient, type SocketAnswer, type SocketTarget } from './socket-client.js';
import { ConnIds } from './conn-ids.js';
import { isAbortError, toConnectionError } from './network-error.js';
import { redact } from './redact.js';
import { REDIRECTS, requestFollowingRedirects } from './redirects.js';
import { retryAfterSeconds } from './status-from-response.js';
import { errorForAnswer, isNotKubernetesAnswer } from './unexpected-answer.js';
import { isCborType } from './cbor-media.js';
import { isProtobufType, protobufErrorText } from './protobuf-media.js';
import type { WireCall, WireLog } from './wire-log.js';

export interface HttpConnectionOptions {
  /** The server URL as it may be shown (no password); requests go to its origin and path. */
  server: string;
  /** The server URL as written, when it differs (see Connection.cacheHost). */
  cacheHost?: string;
  namespace: string;
  contextName?: string;
  tracer: Tracer;
  dispatcher: Dispatcher;
  /** Headers sent on every request (static credentials, impersonation). */
  headers?: RequestHeaders;
  /** Credentials that may change (exec plugins, auth providers); called per request, cached by the provider. */
  authHeaders?: () => Promise<Record<string, string>>;
  /** Default per-request timeout in ms; 0 or undefined = none. */
  requestTimeoutMs?: number;
  /** Secret strings to mask in any error text. */
  secrets?: string[];
  /** The largest single object (watch line, list item) readers accept; see Connection.maxObjectBytes. */
  maxObjectBytes?: number;
  /** A plain (non-stream) body that sends nothing for this long fails (ms; default DEFAULT_BODY_IDLE_MS, 0 = never). */
  bodyIdleTimeoutMs?: number;
  /** The request log (-v 6..9): told about every request, answer and body. */
  wireLog?: WireLog;
  /** The target as kwatch's socket client dials it (requestPushed), when no proxy is in the way. */
  direct?: SocketTarget;
}

/** A list body stalled this long is given up (client-go has only the overall timeout; we never hang silently). */
export const DEFAULT_BODY_IDLE_MS = 60_000;

/** Error bodies are read up to this size; larger ones are cut (a Status is small). */
const MAX_ERROR_BODY = 1 << 20;

export function buildPathAndQuery(path: string, query?: HttpRequest['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

export class HttpConnection implements Connection {
  readonly server: string;
  readonly cacheHost?: string;
  readonly namespace: string;
  readonly contextName?: string;
  readonly tracer: Tracer;
  readonly maxObjectBytes?: number;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly hostPort: string;
  private readonly connIds = new ConnIds();
  private seq = 0;
  private closed = false;
  private sockets: SocketClient | undefined;

  constructor(private readonly opts: HttpConnectionOptions) {
    this.server = opts.server;
    this.cacheHost = opts.cacheHost;
    this.namespace = opts.namespace;
    this.contextName = opts.contextName;
    this.tracer = opts.tracer;
    this.maxObjectBytes = opts.maxObjectBytes;
    const u = new URL(opts.server);
    this.origin = u.origin;
    this.basePath = u.pathname.replace(/\/+$/, '');
    this.hostPort = u.port ? u.host : `${u.hostname}:${u.protocol === 'https:' ? 443 : 80}`;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    if (this.closed) throw new Error('connection is closed');
    const method = (req.method ?? 'GET').toUpperCase();
    const url = buildPathAndQuery(req.path, req.query);
    const call = ++this.seq;
    const tracing = this.tracer.enabled;
    const start = performance.now();
    if (tracing) this.tracer.emit({ time: Date.now(), stage: 'http', op: 'request', method, url });

    const headers = await this.headersFor(req.headers);
    const wire = this.opts.wireLog ? this.beginWire(method, url, headers, req) : undefined;

    // One controller aborts the request: the caller's signal, or our timeout.
    const ac = new AbortController();
    const onCallerAbort = () => ac.abort(req.signal?.reason);
    if (req.signal?.aborted) throw req.signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
    req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timeoutMs = req.timeoutMs ?? (this.opts.requestTimeoutMs || req.fallbackTimeoutMs || 0);
    const idleMs = req.idleTimeoutMs ?? (req.stream ? 0 : (this.opts.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_MS));
    let timedOut = false;
    const timer = timeoutMs > 0 ? setTimeout(() => { timedOut = true; ac.abort(); }, timeoutMs) : undefined;
    let settled = false;
    const cleanup = () => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
    };
    const fail = (err: unknown): unknown => {
      cleanup();
      if (timedOut) {
        const verb = method[0] + method.slice(1).toLowerCase();
        return new ConnectionError(`${verb} "${this.server}${url}": context deadline exceeded (Client.Timeout exceeded after ${timeoutMs}ms)`, 'ETIMEDOUT', { cause: err });
      }
      if (isAbortError(err)) return req.signal?.aborted ? (req.signal.reason ?? err) : err;
      if ((err as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT') {
        return new ConnectionError(`the server sent nothing for ${idleMs / 1000}s in the middle of the answer to ${method} ${url} (idle-read timeout)`, 'UND_ERR_BODY_TIMEOUT', { cause: err });
      }
      return toConnectionError(err, this.hostPort);
    };

    let res: Dispatcher.ResponseData;
    try {
      res = await this.connIds.tag(call, () =>
        requestFollowingRedirects(this.opts.dispatcher, {
          origin: this.origin,
          path: this.basePath + url,
          method: method as Dispatcher.HttpMethod,
          headers,
          body: req.body,
          signal: ac.signal,
          headersTimeout: timeoutMs > 0 ? timeoutMs : 300_000,
          bodyTimeout: idleMs,
        }),
      );
    } catch (err) {
      const mapped = fail(err);
      wire?.failed({ message: (mapped as Error).message, ms: ms(start) });
      if (tracing) this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, ms: ms(start), error: (mapped as Error).message, conn: this.connIds.take(call) });
      throw mapped;
    }
    const conn = this.connIds.take(call);
    const status = res.statusCode;
    const contentType = header(res.headers['content-type']);
    const ok = status >= 200 && status < 300;
    wire?.response({ status, headers: res.headers, ms: ms(start) });
    // A stream's timeout covers only the wait for its headers.
    if (req.stream && ok && timer) clearTimeout(timer);

    // An HTML page is never an API answer, whatever its status (a proxy's login page, a web server at the wrong address).
    if ((!ok && !req.allowErrorStatus) || (ok && isNotKubernetesAnswer(contentType))) {
      let text = '';
      try {
        const bytes = await readLimited(res.body, MAX_ERROR_BODY);
        // A Status sent in CBOR or protobuf (to a client that prefers it, --wire cbor|protobuf) is read as its JSON.
        text = isCborType(contentType) ? (await import('./cbor-body.js')).cborErrorText(bytes)
          : isProtobufType(contentType) ? await protobufErrorText(bytes) : bytes.toString('utf8');
      } catch (err) {
        throw fail(err);
      }
      cleanup();
      wire?.body(text.slice(0, this.opts.wireLog?.bodyBytes ?? 0), Buffer.byteLength(text));
      if (tracing) this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, status, ms: ms(start), bytes: Buffer.byteLength(text), conn });
      throw errorForAnswer({ server: this.server, status, contentType, text, retryAfter: retryAfterSeconds(res.headers['retry-after']), secrets: this.opts.secrets });
    }

    if (req.stream && tracing) this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, status, ms: ms(start), contentType, conn, stream: true });
    const kept = wire && !req.stream ? new BodyHead(this.opts.wireLog?.bodyBytes ?? 0) : undefined;
    const body = new ResponseBody(res.body, (bytes, err) => {
      cleanup();
      // A stream we stopped ourselves closed normally: only the server's or the network's end is an error.
      if (wire && req.stream) wire.closed({ ms: ms(start), bytes, ...(err && !req.signal?.aborted ? { error: (err as Error).message } : {}) });
      if (kept) wire?.body(kept.text(), bytes);
      if (tracing && !req.stream) {
        // A CBOR or protobuf answer (--wire) names its type, so a run shows where the server fell back to JSON.
        this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, status, ms: ms(start), bytes, ...(isCborType(contentType) || isProtobufType(contentType) ? { contentType } : {}), conn, ...(err ? { error: (err as Error).message } : {}) });
      }
    }, fail, kept);
    return { status, headers: res.headers as HttpResponse['headers'], body, bytesRead: () => body.bytes };
  }

  /** The connection's headers and credentials, with those the request names in their place. */
  private async headersFor(own: RequestHeaders | undefined): Promise<RequestHeaders> {
    let headers: RequestHeaders = { 'User-Agent': 'kwatch', ...this.opts.headers };
    if (this.opts.authHeaders) {
      try {
        headers = { ...headers, ...(await this.opts.authHeaders()) };
      } catch (err) {
        throw new Error(`getting credentials: ${redact((err as Error).message ?? String(err), this.opts.secrets)}`, { cause: err });
      }
    }
    // A header the request names replaces the connection's own whatever its case (a forwarded client's user-agent
    // over kwatch's User-Agent): two of one name would reach the server, and Go reads the first.
    if (own) headers = { ...withoutNames(headers, Object.keys(own)), ...own };
    return headers;
  }

  /**
   * Connection.requestPushed: a GET read by kwatch's socket client when the target is dialled directly. The request
   * and its answer are traced and logged as `request` traces a stream; an HTML answer fails as it does there.
   */
  async requestPushed(req: PushedRequest): Promise<PushedResponse | undefined> {
    if (!this.opts.direct) return undefined;
    if (this.closed) throw new Error('connection is closed');
    this.sockets ??= new SocketClient(this.opts.direct, () => this.connIds.fresh());
    const method = 'GET';
    const url = req.path;
    const time = Date.now();
    const start = performance.now();
    const headers = await this.headersFor(req.headers);
    let answer: SocketAnswer;
    try {
      answer = await this.sockets.request(method, this.basePath + url, headers, req.signal);
    } catch (err) {
      const mapped = isAbortError(err) || req.signal?.aborted ? (req.signal?.reason ?? err) : toConnectionError(err, this.hostPort);
      if (this.opts.wireLog) this.beginWire(method, url, headers, { stream: true })?.failed({ message: (mapped as Error).message, ms: ms(start) });
      if (this.tracer.enabled) {
        this.tracer.emit({ time, stage: 'http', op: 'request', method, url });
        this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, ms: ms(start), error: (mapped as Error).message });
      }
      throw mapped;
    }
    const { status } = answer;
    // Redirects are followed as `request` follows them (Go's http.Client): the caller asks again there.
    if (REDIRECTS.has(status) && answer.headers.location !== undefined) {
      answer.destroy();
      return undefined;
    }
    const contentType = header(answer.headers['content-type']);
    const wire = this.opts.wireLog ? this.beginWire(method, url, headers, { stream: true }) : undefined;
    wire?.response({ status, headers: answer.headers, ms: ms(start) });
    const tracing = this.tracer.enabled;
    if (tracing) this.tracer.emit({ time, stage: 'http', op: 'request', method, url });
    const ok = status >= 200 && status < 300;
    if (ok && isNotKubernetesAnswer(contentType)) {
      const bytes = await readPushed(answer, MAX_ERROR_BODY);
      const text = bytes.toString('utf8');
      wire?.body(text.slice(0, this.opts.wireLog?.bodyBytes ?? 0), bytes.length);
      if (tracing) this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, status, ms: ms(start), bytes: bytes.length, conn: answer.socketId });
      throw errorForAnswer({ server: this.server, status, contentType, text, retryAfter: retryAfterSeconds(answer.headers['retry-after']), secrets: this.opts.secrets });
    }
    if (tracing) this.tracer.emit({ time: Date.now(), stage: 'http', op: 'response', method, url, status, ms: ms(start), contentType, conn: answer.socketId, stream: true });
    return {
      status,
      headers: answer.headers,
      pipe: (sink) => answer.pipe({
        data: (chunk) => sink.data(chunk),
        end: (err) => {
          const mapped = err && !req.signal?.aborted ? toConnectionError(err, this.hostPort) : undefined;
          wire?.closed({ ms: ms(start), bytes: answer.bytes, ...(mapped ? { error: mapped.message } : {}) });
          sink.end(mapped);
        },
      }),
      resume: () => answer.resume(),
      destroy: () => answer.destroy(),
    };
  }

  /** Hands the request to the request log, with every credential the connection knows masked. */
  private beginWire(method: string, url: string, headers: RequestHeaders, req: Pick<HttpRequest, 'body' | 'stream'>): WireCall | undefined {
    const shown: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) shown[k] = redact(Array.isArray(v) ? v.join(', ') : v, this.opts.secrets);
    const body = req.body === undefined ? undefined : redact(String(req.body), this.opts.secrets);
    return this.opts.wireLog?.begin({ method, url: `${this.server}${url}`, headers: shown, stream: req.stream === true, ...(body !== undefined ? { body } : {}) });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connIds.close();
    this.sockets?.close();
    // destroy (not close): open watches must not keep the process alive.
    await this.opts.dispatcher.destroy().catch(() => undefined);
  }
}

function ms(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A pushed answer's body, its first `limit` bytes kept. */
function readPushed(answer: SocketAnswer, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    answer.pipe({
      data: (c) => { if (n < limit) chunks.push(c); n += c.length; return true; },
      end: (err) => (err ? reject(err) : resolve(Buffer.concat(chunks).subarray(0, limit))),
    });
  });
}

async function readLimited(body: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    if (n < limit) chunks.push(Buffer.from(c));
    n += c.length;
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/** The first bytes of a body, kept for the request log. */
class BodyHead {
  private chunks: Buffer[] = [];
  private n = 0;
  constructor(private readonly limit: number) {}
  add(chunk: Uint8Array): void {
    if (this.n >= this.limit) return;
    const part = Buffer.from(chunk.subarray(0, this.limit - this.n));
    this.chunks.push(part);
    this.n += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** The response body: iterable as raw chunks, or read whole; counts bytes; reports its end once. */
export class ResponseBody implements AsyncIterable<Uint8Array> {
  bytes = 0;
  private ended = false;

  constructor(
    private readonly src: AsyncIterable<Uint8Array> & { destroy?: (err?: Error) => unknown },
    private readonly onEnd: (bytes: number, err?: unknown) => void,
    private readonly mapError: (err: unknown) => unknown,
    private readonly head?: BodyHead,
  ) {}

  private end(err?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this.bytes, err);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of this.src) {
        this.bytes += chunk.length;
        this.head?.add(chunk);
        yield chunk;
      }
      this.end();
    } catch (err) {
      const mapped = this.mapError(err);
      this.end(mapped);
      throw mapped;
    } finally {
      if (!this.ended) {
        // the consumer stopped early: drop the connection rather than drain an endless stream
        this.src.destroy?.();
        this.end();
      }
    }
  }

  async buffer(): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    for await (const c of this) chunks.push(c);
    return chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return (await this.buffer()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.buffer();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
}

/** `headers` without those named in `names` (case-insensitively). */
function withoutNames(headers: RequestHeaders, names: readonly string[]): RequestHeaders {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !drop.has(k.toLowerCase())));
}
