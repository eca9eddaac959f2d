// A small HTTP/1.1 client for answers passed on as they arrive (the endpoint's forwarded watches; lists and gets, which end, stay on undici): each
// socket reads into one buffer the client owns and shares between its sockets (net's `onread`), the body's bytes of a
// read are copied out once at their size, and reading stops while the receiver cannot take more (`pause()` stops the
// socket's reads, so the target's TCP window closes instead of kwatch's memory growing). undici reads each socket into
// fresh buffers and queues up to 64 kB of body per stream ahead of its reader, which for thousands of stalled watches
// was most of the endpoint's memory (docs/benchmarks.md, issue 43). Keep-alive: idle sockets are reused, as undici's.
import { connect as netConnect, isIP, type NetConnectOpts, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { ResponseParser, type ParsedHead } from './response-parser.js';
import type { TlsOptions } from './kubeconfig.js';
import type { RequestHeaders } from './request-headers.js';

/** Where the target listens, and its TLS as the kubeconfig says (none for http://). */
export interface SocketTarget {
  host: string;
  port: number;
  tls?: TlsOptions;
}

/** The receiver of a body: `data` owns each buffer it gets; it returns false to stop the reads until `resume()`. */
export interface BodySink {
  data(chunk: Buffer): boolean;
  end(err?: Error): void;
}

export interface SocketAnswer extends ParsedHead {
  /** Starts passing the body on (once). */
  pipe(sink: BodySink): void;
  /** The sink can take more. */
  resume(): void;
  /** Stops the answer: its connection is closed, not reused. */
  destroy(): void;
  /** Which connection of this client carried the answer (numbered from 1, as the trace shows them). */
  socketId: number;
  bytes: number;
}

/** The read buffer every socket of the process shares: a read is handed on (copied) before the next one begins. */
let sharedRead: Buffer | undefined;
const READ_BYTES = 16 * 1024;

/** How long an idle keep-alive connection is kept (undici's keepAliveTimeout as connection.ts sets it). */
const IDLE_MS = 30_000;
/** The wait for an answer's headers (undici's headersTimeout when no request timeout is set). */
const HEADERS_TIMEOUT_MS = 300_000;

interface Conn {
  socket: Socket;
  id: number;
  /** Called with each read; replaced as the connection moves from one answer to the next. */
  onRead: (chunk: Buffer) => void;
  onClose: (err?: Error) => void;
  idleTimer?: NodeJS.Timeout;
  /** Carried an answer before: a failure before its next answer's first byte may be a close that crossed the request. */
  reused: boolean;
}

export class HeadersTimeoutError extends Error {
  readonly code = 'UND_ERR_HEADERS_TIMEOUT';
}

export class SocketClient {
  private readonly idle: Conn[] = [];
  private readonly open = new Set<Conn>();
  private closed = false;

  constructor(private readonly target: SocketTarget, private readonly nextId: () => number) {}

  /** Sends a request without a body (GET) and resolves with the answer's head. */
  async request(method: string, path: string, headers: RequestHeaders, signal?: AbortSignal): Promise<SocketAnswer> {
    const head = requestHead(method, path, this.hostHeader(), headers);
    for (let attempt = 0; ; attempt++) {
      // Gone already (an abort listener added now would never be called).
      if (signal?.aborted) throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
      const conn = this.idle.pop() ?? (await this.connect(signal));
      if (conn.idleTimer) { clearTimeout(conn.idleTimer); conn.idleTimer = undefined; }
      conn.socket.ref();
      try {
        return await this.exchange(conn, method, head, signal);
      } catch (err) {
        // The target closed an idle connection as the request went out: a GET is sent again once, as undici does.
        if (!(err as { retryable?: boolean }).retryable || attempt > 0 || signal?.aborted) throw err;
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.open]) c.socket.destroy();
    this.idle.length = 0;
  }

  private hostHeader(): string {
    const { host, port, tls } = this.target;
    const shown = isIP(host) === 6 ? `[${host}]` : host;
    return port === (tls ? 443 : 80) ? shown : `${shown}:${port}`;
  }

  private connect(signal?: AbortSignal): Promise<Conn> {
    if (this.closed) return Promise.reject(new Error('connection is closed'));
    const { host, port, tls } = this.target;
    const conn = { id: this.nextId(), reused: false, onRead: () => undefined, onClose: () => undefined } as unknown as Conn;
    const onread = {
      buffer: (sharedRead ??= Buffer.allocUnsafeSlow(READ_BYTES)),
      callback: (n: number, buf: Uint8Array): boolean => {
        // A receiver that throws ends the answer with its error, as a failed read would (never the process).
        try { conn.onRead(Buffer.from(buf.buffer, buf.byteOffset, n)); } catch (err) { conn.socket.destroy(err as Error); }
        return true;
      },
    };
    // TLS as undici's connector sets it: the kubeconfig's CA, client certificate and verification; SNI by host name.
    const socket = tls
      ? tlsConnect({ host, port, ...tls, servername: tls.servername ?? (isIP(host) ? undefined : host), onread } as ConnectionOptions)
      : netConnect({ host, port, onread } as NetConnectOpts);
    socket.setNoDelay(true);
    conn.socket = socket;
    this.open.add(conn);
    socket.on('error', (err) => conn.onClose(err));
    socket.on('close', () => { this.forget(conn); conn.onClose(); });
    socket.on('end', () => socket.destroy());
    return new Promise<Conn>((resolve, reject) => {
      const ready = tls ? 'secureConnect' : 'connect';
      const onAbort = () => socket.destroy();
      signal?.addEventListener('abort', onAbort, { once: true });
      conn.onClose = (err) => { signal?.removeEventListener('abort', onAbort); reject(signal?.aborted ? signal.reason : err ?? new ClosedError()); };
      socket.once(ready, () => { signal?.removeEventListener('abort', onAbort); resolve(conn); });
    });
  }

  private forget(conn: Conn): void {
    this.open.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    if (conn.idleTimer) clearTimeout(conn.idleTimer);
  }

  private release(conn: Conn): void {
    if (this.closed || conn.socket.destroyed) return;
    conn.reused = true;
    conn.onRead = () => conn.socket.destroy(); // an idle connection that is sent anything is not in step: dropped
    conn.onClose = () => undefined;
    conn.idleTimer = setTimeout(() => conn.socket.destroy(), IDLE_MS);
    conn.idleTimer.unref();
    // An idle connection does not keep the process alive (as undici's do not).
    conn.socket.unref();
    this.idle.push(conn);
  }

  private exchange(conn: Conn, method: string, head: string, signal?: AbortSignal): Promise<SocketAnswer> {
    const { socket } = conn;
    const parser = new ResponseParser(method);
    const reused = conn.reused;
    return new Promise<SocketAnswer>((resolve, reject) => {
      let sink: BodySink | undefined;
      /** Body read before the sink came (the head's read often carries the first bytes). */
      let early: Buffer[] | undefined = [];
      let answer: SocketAnswer | undefined;
      let finished = false;
      let gotBytes = false;
      const timer = setTimeout(() => fail(new HeadersTimeoutError('timeout awaiting response headers')), HEADERS_TIMEOUT_MS);
      const onAbort = () => fail(signal?.reason ?? new DOMException('This operation was aborted', 'AbortError'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const settleHead = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const finish = (err?: Error) => {
        if (finished) return;
        finished = true;
        settleHead();
        if (err) socket.destroy();
        if (!answer) { reject(err ?? new ClosedError()); return; }
        if (!sink) { pendingEnd = err ?? null; return; }
        sink.end(err);
      };
      let pendingEnd: Error | null | undefined;
      const fail = (err: Error) => finish(err);
      conn.onClose = (err) => {
        if (finished) return;
        if (!answer) {
          const e = (err ?? new ClosedError()) as Error & { retryable?: boolean };
          // Nothing of the answer came on a reused connection: the target closed it as we sent (safe to send again).
          if (reused && !gotBytes && !signal?.aborted) e.retryable = true;
          finish(e);
          return;
        }
        try {
          parser.ended();
          finish();
        } catch (e) {
          finish(e as Error);
        }
      };
      conn.onRead = (chunk) => {
        if (finished) return;
        gotBytes = true;
        let body: Buffer | undefined;
        try {
          body = parser.read(chunk);
        } catch (err) {
          fail(err as Error);
          return;
        }
        if (body && answer) answer.bytes += body.length;
        if (!answer && parser.head) {
          answer = this.answerOf(conn, parser.head, () => !finished, (s) => {
            sink = s;
            const held = early ?? [];
            early = undefined;
            let more = true;
            for (const b of held) more = s.data(b) && more;
            if (pendingEnd !== undefined) { s.end(pendingEnd ?? undefined); return; }
            if (more) socket.resume();
          });
          if (body) answer.bytes += body.length;
          settleHead();
          // Until the sink comes, nothing more is read.
          if (!parser.done) socket.pause();
          resolve(answer);
        }
        if (body) {
          if (sink) { if (!sink.data(body)) socket.pause(); }
          else early?.push(body);
        }
        if (parser.done) {
          finished = true;
          if (parser.head!.keepAlive) this.release(conn);
          else socket.destroy();
          if (sink) sink.end();
          else pendingEnd = null;
        }
      };
      socket.resume();
      socket.write(head);
    });
  }

  /** `live`: the answer is still being read (after its end, the connection may carry another one). */
  private answerOf(conn: Conn, head: ParsedHead, live: () => boolean, pipe: (sink: BodySink) => void): SocketAnswer {
    let piped = false;
    return {
      ...head,
      socketId: conn.id,
      bytes: 0,
      pipe: (sink) => { if (piped) return; piped = true; pipe(sink); },
      resume: () => { if (live()) conn.socket.resume(); },
      destroy: () => { if (live()) conn.socket.destroy(); },
    };
  }
}

export class ClosedError extends Error {
  readonly code = 'UND_ERR_SOCKET';
  constructor() {
    super('other side closed');
  }
}

/** The request line and headers; a header with a line break in it is refused (it would split the request). */
function requestHead(method: string, path: string, host: string, headers: RequestHeaders): string {
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n`;
  for (const [name, values] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'connection') continue;
    // A list is one line per value (two Impersonate-Group lines are two groups to kube-apiserver).
    for (const value of Array.isArray(values) ? values : [values]) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`header ${JSON.stringify(name)} has a line break in it`);
      head += `${name}: ${value}\r\n`;
    }
  }
  return `${head}\r\n`;
}
