// The way every kwatch command reaches an API server: kubeconfig (or a bare URL for the embedded
// server) → one keep-alive undici dispatcher with TLS and auth applied.
import type { Dispatcher } from 'undici';
import { Tracer } from '../informer/trace.js';
import { HttpConnection } from './http-connection.js';
import { resolveKubeconfig, type TlsOptions } from './kubeconfig.js';

export { KubeconfigError } from './config-error.js';

export interface ConnectionOptions {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  /** Per-request timeout (kubectl's --request-timeout); 0 or undefined = none. */
  requestTimeoutMs?: number;
  tracer?: Tracer;
}

export interface Connection {
  /** The cluster URL. */
  server: string;
  /** -n, else the context's namespace, else "default". */
  namespace: string;
  contextName?: string;
  tracer: Tracer;
  /**
   * One HTTP request with auth/TLS applied. Throws ConnectionError when the server cannot be
   * reached; for non-2xx answers throws StatusError (built from the Status body, or a synthetic
   * Status for plain-text bodies) unless `allowErrorStatus` is set.
   */
  request(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface HttpRequest {
  method?: string;
  /** Absolute API path, e.g. /api/v1/pods (the server URL's own path prefix is added). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Overrides the connection's request timeout for this request (0 = none). */
  timeoutMs?: number;
  allowErrorStatus?: boolean;
  /** A long-lived body (watch): the timeout covers only the headers; traced at headers time. */
  stream?: boolean;
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

async function makeDispatcher(server: string, tls: TlsOptions, proxyUrl?: string): Promise<Dispatcher> {
  const undici = await import('undici');
  const connect = { ...tls };
  if (proxyUrl) {
    if (/^socks5h?:\/\//i.test(proxyUrl)) return new undici.Socks5ProxyAgent(proxyUrl, { connect: undici.buildConnector(connect), ...KEEP_ALIVE });
    return new undici.ProxyAgent({ uri: proxyUrl, requestTls: connect, ...KEEP_ALIVE });
  }
  const env = process.env;
  const envProxy = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  // Like Go's ProxyFromEnvironment: environment proxies never apply to loopback servers.
  if (envProxy && !isLoopback(new URL(server).hostname)) return new undici.EnvHttpProxyAgent({ connect, requestTls: connect, ...KEEP_ALIVE });
  return new undici.Agent({ connect, ...KEEP_ALIVE });
}

/** Connects as the kubeconfig says (KUBECONFIG with several files, --context/--cluster/--user). */
export async function loadConnection(opts: ConnectionOptions): Promise<Connection> {
  const kc = await resolveKubeconfig(opts);
  return new HttpConnection({
    server: kc.server,
    namespace: kc.namespace,
    contextName: kc.contextName,
    tracer: opts.tracer ?? new Tracer(),
    dispatcher: await makeDispatcher(kc.server, kc.tls, kc.proxyUrl),
    headers: kc.headers,
    authHeaders: kc.authHeaders,
    requestTimeoutMs: opts.requestTimeoutMs,
    secrets: kc.secrets,
  });
}

/** A connection to a plain URL (the in-process embedded server): no kubeconfig, optional bearer token. */
export function connectionFromUrl(url: string, opts: { namespace?: string; tracer?: Tracer; token?: string; requestTimeoutMs?: number } = {}): Connection {
  return new LazyDispatcherConnection(url, opts);
}

/** connectionFromUrl must be synchronous; undici is imported on the first request. */
class LazyDispatcherConnection implements Connection {
  readonly server: string;
  readonly namespace: string;
  readonly contextName = undefined;
  readonly tracer: Tracer;
  private inner?: Promise<HttpConnection>;

  constructor(url: string, private readonly opts: { namespace?: string; tracer?: Tracer; token?: string; requestTimeoutMs?: number }) {
    this.server = url.replace(/\/+$/, '');
    this.namespace = opts.namespace || 'default';
    this.tracer = opts.tracer ?? new Tracer();
  }

  private connection(): Promise<HttpConnection> {
    this.inner ??= makeDispatcher(this.server, {}).then(
      (dispatcher) =>
        new HttpConnection({
          server: this.server,
          namespace: this.namespace,
          tracer: this.tracer,
          dispatcher,
          headers: this.opts.token ? { Authorization: `Bearer ${this.opts.token}` } : {},
          requestTimeoutMs: this.opts.requestTimeoutMs,
          secrets: this.opts.token ? [this.opts.token] : [],
        }),
    );
    return this.inner;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    return (await this.connection()).request(req);
  }

  async close(): Promise<void> {
    if (this.inner) await (await this.inner).close();
  }
}
