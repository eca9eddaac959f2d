// The way every kwatch command reaches an API server: kubeconfig (or a bare URL for the embedded
// server) → one keep-alive undici dispatcher with TLS and auth applied.
import type { Dispatcher } from 'undici';
import { Tracer } from '../../informer/trace.js';
import { HttpConnection } from './http-connection.js';
import { resolveKubeconfig, type TlsOptions } from './kubeconfig.js';
import { serverAddress, type ServerAddress } from './server-url.js';
import type { WireLog } from './wire-log.js';
import type { BodySink, SocketTarget } from './socket-client.js';
import type { DiscoveryStore } from '../discovery/discovery-store.js';
import type { RequestHeaders } from './request-headers.js';

export { KubeconfigError } from './config-error.js';

export interface ConnectionOptions {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  /** Per-request timeout (kubectl's --request-timeout); 0 or undefined = none. */
  requestTimeoutMs?: number;
  /** The largest single object accepted (--max-object-size); default DEFAULT_MAX_OBJECT_BYTES. */
  maxObjectBytes?: number;
  tracer?: Tracer;
  /** The request log (-v 6..9). */
  wireLog?: WireLog;
}

/**
 * 64 MiB: far above etcd's 1.5 MiB object limit (so no real object comes near it), far below what would
 * hurt the machine. One watch line or one list item longer than this fails its request.
 */
export const DEFAULT_MAX_OBJECT_BYTES = 64 * 1024 * 1024;

export interface Connection {
  /** The cluster URL as it may be shown (a password in its userinfo masked as ***). */
  server: string;
  /** The cluster URL as the kubeconfig spells it, when it differs from `server`: kubectl's discovery cache folder is named after it. */
  cacheHost?: string;
  /** -n, else the context's namespace, else "default". */
  namespace: string;
  contextName?: string;
  tracer: Tracer;
  /**
   * Where this server's discovery cache lives when no --cache-dir is given; unset: the disk cache kubectl shares.
   * A server that lives only as long as the run (--sim) keeps it in memory: its port is new every run.
   */
  readonly discoveryStore?: DiscoveryStore;
  /** The largest single object (watch line, list item) readers of this connection accept. */
  readonly maxObjectBytes?: number;
  /**
   * One HTTP request with auth/TLS applied. Throws ConnectionError when the server cannot be
   * reached; for non-2xx answers throws StatusError (built from the Status body, or a synthetic
   * Status for plain-text bodies) unless `allowErrorStatus` is set.
   */
  request(req: HttpRequest): Promise<HttpResponse>;
  /**
   * A GET whose answer is passed on as it arrives (the endpoint's forwarding), read by kwatch's socket client
   * (socket-client.ts) into buffers it owns, with reads stopped while the receiver cannot take more. Traced as a
   * `stream` request. Resolves undefined when this connection cannot (a proxy is in the way) or the target redirected:
   * the caller then uses `request`, which follows redirects.
   */
  requestPushed?(req: PushedRequest): Promise<PushedResponse | undefined>;
  close(): Promise<void>;
}

export interface PushedRequest {
  path: string;
  headers?: RequestHeaders;
  signal?: AbortSignal;
}

export interface PushedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Starts passing the body to `sink` (its `data` returns false to stop the reads until `resume()`). */
  pipe(sink: BodySink): void;
  resume(): void;
  /** The receiver went away: the target's connection is closed. */
  destroy(): void;
}

export interface HttpRequest {
  method?: string;
  /** Absolute API path, e.g. /api/v1/pods (the server URL's own path prefix is added). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: RequestHeaders;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Overrides the connection's request timeout for this request (0 = none). */
  timeoutMs?: number;
  /**
   * The timeout when neither this request nor the connection (--request-timeout) sets one: client-go's 32 s
   * for discovery, so that a server that accepts the connection and never answers is given up on, as kubectl does.
   */
  fallbackTimeoutMs?: number;
  allowErrorStatus?: boolean;
  /** A long-lived body (watch): the timeout covers only the headers; traced at headers time. */
  stream?: boolean;
  /**
   * Fail the request when the body sends nothing for this long (ms; 0 = never). Default: the connection's
   * idle-read timeout for plain requests, none for streams.
   */
  idleTimeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { text(): Promise<string>; json(): Promise<unknown>; arrayBuffer?(): Promise<ArrayBuffer>; buffer?(): Promise<Buffer> };
  /** Bytes of the body read so far. */
  bytesRead?: () => number;
}

const KEEP_ALIVE = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 };

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.startsWith('127.') || host === '[::1]' || host === '::1';
}

/** An HTTP(S)_PROXY variable is set and applies: like Go's ProxyFromEnvironment, never to loopback servers. */
function environmentProxyApplies(server: string): boolean {
  const env = process.env;
  const envProxy = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  return Boolean(envProxy) && !isLoopback(new URL(server).hostname);
}

/** Where kwatch's socket client may dial the target itself: a direct connection (no proxy applies), else undefined. */
function directTarget(server: string, tls: TlsOptions, proxyUrl?: string): SocketTarget | undefined {
  if (proxyUrl || environmentProxyApplies(server)) return undefined;
  const u = new URL(server);
  const https = u.protocol === 'https:';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { host, port: u.port ? Number(u.port) : https ? 443 : 80, ...(https ? { tls } : {}) };
}

async function makeDispatcher(server: string, tls: TlsOptions, proxyUrl?: string): Promise<Dispatcher> {
  const undici = await import('./undici-parts.js');
  const connect = { ...tls };
  if (proxyUrl) {
    if (/^socks5h?:\/\//i.test(proxyUrl)) return new (undici.socks5ProxyAgentClass())(proxyUrl, { connect: undici.buildConnector()(connect), ...KEEP_ALIVE });
    return new (undici.proxyAgentClass())({ uri: proxyUrl, requestTls: connect, ...KEEP_ALIVE });
  }
  if (environmentProxyApplies(server)) return new (undici.envHttpProxyAgentClass())({ connect, requestTls: connect, ...KEEP_ALIVE });
  return new (undici.agentClass())({ connect, ...KEEP_ALIVE });
}

/** Connects as the kubeconfig says (KUBECONFIG with several files, --context/--cluster/--user). */
export async function loadConnection(opts: ConnectionOptions): Promise<Connection> {
  const kc = await resolveKubeconfig(opts);
  return new HttpConnection({
    server: kc.server,
    cacheHost: kc.cacheHost,
    namespace: kc.namespace,
    contextName: kc.contextName,
    tracer: opts.tracer ?? new Tracer(),
    dispatcher: await makeDispatcher(kc.cacheHost, kc.tls, kc.proxyUrl),
    direct: directTarget(kc.cacheHost, kc.tls, kc.proxyUrl),
    headers: kc.headers,
    authHeaders: kc.authHeaders,
    requestTimeoutMs: opts.requestTimeoutMs,
    maxObjectBytes: opts.maxObjectBytes,
    secrets: kc.secrets,
    wireLog: opts.wireLog,
  });
}

export interface UrlConnectionOptions {
  namespace?: string;
  tracer?: Tracer;
  token?: string;
  requestTimeoutMs?: number;
  maxObjectBytes?: number;
  /** The idle-read timeout of plain (non-stream) bodies, ms (default HttpConnection's). */
  bodyIdleTimeoutMs?: number;
  /** The request log (-v 6..9). */
  wireLog?: WireLog;
  /** Where this server's discovery cache lives (Connection.discoveryStore). */
  discoveryStore?: DiscoveryStore;
}

/** A connection to a plain URL (the in-process embedded server): no kubeconfig, optional bearer token. */
export function connectionFromUrl(url: string, opts: UrlConnectionOptions = {}): Connection {
  return new LazyDispatcherConnection(url, opts);
}

/** connectionFromUrl must be synchronous; undici is imported on the first request. */
class LazyDispatcherConnection implements Connection {
  readonly server: string;
  readonly cacheHost: string;
  private readonly address: ServerAddress;
  readonly namespace: string;
  readonly contextName = undefined;
  readonly tracer: Tracer;
  readonly maxObjectBytes?: number;
  readonly discoveryStore?: DiscoveryStore;
  private inner?: Promise<HttpConnection>;

  constructor(url: string, private readonly opts: UrlConnectionOptions) {
    this.maxObjectBytes = opts.maxObjectBytes;
    this.discoveryStore = opts.discoveryStore;
    this.address = serverAddress(url);
    this.server = this.address.shown;
    this.cacheHost = this.address.raw;
    this.namespace = opts.namespace || 'default';
    this.tracer = opts.tracer ?? new Tracer();
  }

  private connection(): Promise<HttpConnection> {
    const { basicAuth, password } = this.address;
    this.inner ??= makeDispatcher(this.address.raw, {}).then(
      (dispatcher) =>
        new HttpConnection({
          server: this.server,
          cacheHost: this.cacheHost,
          namespace: this.namespace,
          tracer: this.tracer,
          dispatcher,
          direct: directTarget(this.address.raw, {}),
          headers: this.opts.token ? { Authorization: `Bearer ${this.opts.token}` } : basicAuth ? { Authorization: basicAuth } : {},
          requestTimeoutMs: this.opts.requestTimeoutMs,
          maxObjectBytes: this.opts.maxObjectBytes,
          bodyIdleTimeoutMs: this.opts.bodyIdleTimeoutMs,
          wireLog: this.opts.wireLog,
          secrets: [this.opts.token, password].filter((s): s is string => Boolean(s)),
        }),
    );
    return this.inner;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    return (await this.connection()).request(req);
  }

  async requestPushed(req: PushedRequest): Promise<PushedResponse | undefined> {
    return (await this.connection()).requestPushed(req);
  }

  async close(): Promise<void> {
    if (this.inner) await (await this.inner).close();
  }
}
