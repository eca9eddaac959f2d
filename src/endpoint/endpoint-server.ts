// kwatch on the wire between a controller process and the API server: an HTTP(S) server on loopback that the child's
// kubeconfig points at. Reads go to the target (or, under overlay, to the fork); writes go where the write mode says;
// every request, list, watch event and write is traced per client; --inject faults act on watches and writes.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import type { InjectFault } from '../faults/inject-spec.js';
import type { Tracer } from '../informer/trace.js';
import type { Connection } from '../kube/http/connection.js';
import { ApiStatusError } from '../wire/api-status.js';
import { createServingCredentials } from '../wire/serving-credentials.js';
import { sendError } from '../wire/send-status.js';
import { decodeBody } from './body-decode.js';
import { DRY_RUN_IMPOSSIBLE, dryRunWrite } from './dry-run-write.js';
import { ClientRegistry, clientName, type ClientSession } from './client-session.js';
import { clientIdentity, type ClientIdentity } from './client-identity.js';
import { peerProcess } from './peer-process.js';
import type { Fork } from './fork.js';
import { serveForkDiscovery } from './fork-discovery.js';
import { currentObject } from './current-object.js';
import { forwardRequest, requestBody } from './forward.js';
import { refusedMediaType } from './media-types.js';
import { isQuestion, isWrite, originForm, queryTrue, requestInfo, type RequestInfo } from './request-info.js';
import { captureResponse } from './response-capture.js';
import { WatchFaults } from '../faults/watch-faults.js';
import { tapWatch } from './watch-tap.js';
import { isWorkloadAccess, WORKLOAD_ACCESS_REFUSED, workloadAccessRefusal } from './workload-access.js';
import { WireTrace, type FightFinding, type WrittenKey } from './wire-trace.js';
import { WriteFaults } from '../faults/write-faults.js';
import type { WireRecorder } from './wire-recorder.js';
import type { WriteLimits } from '../reconcile/write-limiter.js';
import { WriteGate } from './write-gate.js';
import { trackSockets } from '../wire/server-sockets.js';

export type EndpointWriteMode = 'intercept' | 'overlay' | 'server-dry-run' | 'apply';

export interface EndpointOptions {
  /** The target cluster: reads, and writes under intercept, server-dry-run and apply. */
  upstream: Connection;
  mode: EndpointWriteMode;
  /** Required with overlay: the fork that serves the controller. */
  fork?: Fork;
  tracer: Tracer;
  /** Default 127.0.0.1 and a free port. */
  host?: string;
  port?: number;
  /** Serve HTTPS with a certificate from a CA made for this run (the kubeconfig carries the CA). */
  tls?: boolean;
  faults?: readonly InjectFault[];
  /** Report a key written again and again, each round re-triggered by its own write, past this many rounds. */
  loopThreshold: number;
  /** Report a watch that received nothing (no event, no bookmark) for this long. */
  stallAfterMs: number;
  /** --record: what the clients were sent and what they wrote. */
  recorder?: WireRecorder;
  /** --qps/--burst (429 past the rate) and --max-writes (refused past it; `onMaxWrites` is told once). */
  writeLimits?: WriteLimits;
  onMaxWrites?: (max: number) => void;
  /**
   * The --exec'd command's pid (once it runs): clients under it are known by the process behind each connection
   * (client-identity.ts); without it, or where that cannot be read, by their User-Agent.
   */
  clientRoot?: () => number | undefined;
}

export interface Endpoint {
  /** The server URL a client's kubeconfig names, its secret path prefix included. */
  url: string;
  /** The bearer token the endpoint's kubeconfig carries; requests without it are refused. */
  token: string;
  caPem?: string;
  clients(): ClientSession[];
  readonly watchFaults: WatchFaults;
  readonly writeFaults: WriteFaults;
  /** Requests that failed on kwatch's side of the wire (target unreachable, an unexpected answer), not injected ones. */
  readonly failures: string[];
  /** Writes kwatch answered itself instead of passing them on (415, 413, 401, the fork's 507, …): the run cannot pass. */
  readonly refusedWrites: readonly RefusedWrite[];
  /** Every key a client wrote, and how (the --once report). */
  readonly written: ReadonlyMap<string, WrittenKey>;
  /** Fields two clients kept taking from each other. */
  readonly fights: readonly FightFinding[];
  /** Clients that watched again from a resourceVersion they had been told is expired (410). */
  readonly rewatchedExpired: readonly RewatchExpired[];
  close(): Promise<void>;
}

/** A watch from a resourceVersion at or below one the collection was expired at: kube answers 410 again. */
export interface RewatchExpired {
  client: string;
  resource: string;
  rv: string;
  expiredAt: string;
}

/** A write kwatch itself refused. */
export interface RefusedWrite {
  client: string;
  method: string;
  path: string;
  code: number;
  reason: string;
  message: string;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** How much of a non-watch answer is kept to trace it (a larger LIST page is passed on and traced by its size only). */
const MAX_TRACED_BYTES = 256 * 1024 * 1024;
/** A response's write buffer (Node 20's default; 16 kB is also what the socket client reads at once). */
const RESPONSE_HIGH_WATER_MARK = 16 * 1024;

export async function startEndpoint(o: EndpointOptions): Promise<Endpoint> {
  if (o.mode === 'overlay' && !o.fork) throw new Error('overlay needs a fork');
  const token = randomBytes(24).toString('base64url');
  const host = o.host ?? '127.0.0.1';
  const credentials = o.tls ? createServingCredentials(certificateHosts(host)) : undefined;
  const clients = new ClientRegistry();
  /** Per connection, the process behind it: looked up once, when its first request arrives. */
  const identities = new WeakMap<Socket, Promise<ClientIdentity | undefined>>();
  const identify = (socket: Socket): Promise<ClientIdentity | undefined> => {
    let found = identities.get(socket);
    if (!found) identities.set(socket, (found = identityOf(socket, o.clientRoot?.())));
    return found;
  };
  const watchFaults = new WatchFaults(o.faults ?? []);
  const writeFaults = new WriteFaults(o.faults ?? []);
  const trace = new WireTrace(o.tracer);
  const failures: string[] = [];
  const refusedWrites: RefusedWrite[] = [];
  const rewatchedExpired: RewatchExpired[] = [];
  /** Per collection, the highest resourceVersion a watch of it was expired at (410): older ones stay expired. */
  const expiredUpTo = new Map<string, bigint>();
  const gate = o.writeLimits ? new WriteGate(o.writeLimits, Date.now()) : undefined;
  let maxWritesTold = false;
  const watches = new Set<{ session: ClientSession; resource: string; lastActivity: number; stalled: boolean; res: ServerResponse }>();

  /** An answer kwatch makes itself, not the target: traced as an `http` record with `refused`, and kept when a write. */
  const refuse = (res: ServerResponse, client: string, method: string, info: RequestInfo, err: ApiStatusError, started: number): void => {
    sendError(res, err);
    const { code, reason, message } = err.status;
    trace.refused(client, info, method, code, reason, message, Date.now() - started);
    if (isWrite(info)) refusedWrites.push({ client, method, path: info.path, code, reason, message });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const method = req.method ?? 'GET';
    const refused = guard(req, token);
    if (refused) {
      req.resume();
      // The path as asked, its secret prefix (right or wrong) left out of the trace.
      return refuse(res, clientName(header(req.headers['user-agent'])), method, requestInfo(method, withoutSecretPrefix(req.url ?? '/')), refused, started);
    }
    const identity = await identify(req.socket);
    const session = clients.for(header(req.headers['user-agent']), identity);
    const pid = identity?.pid;
    session.requests++;
    const info = requestInfo(method, req.url ?? '/');
    const workloadRefusal = workloadAccessRefusal(info, method, o.mode);
    // A refused request is traced as the write it would be (exec and attach upgrade a GET too).
    const write = isWrite(info) || workloadRefusal !== undefined;
    const question = isQuestion(info);
    /** Why kwatch refused the write itself, when it did (the write record's `refused`). */
    let refusedWrite: string | undefined;
    /** The query sent to the target, when kwatch changed it. */
    let sentQuery: URLSearchParams | undefined;
    const body = write || method === 'POST' || method === 'PUT' || method === 'PATCH' ? await requestBody(req, MAX_BODY_BYTES) : undefined;
    if (body instanceof ApiStatusError) return refuse(res, session.name, method, info, body, started);
    const unspoken = refusedMediaType(header(req.headers.accept), header(req.headers['content-type']), body !== undefined && body.length > 0, method);
    if (unspoken) return refuse(res, session.name, method, info, unspoken, started);
    /** Set when kwatch answers in the target's place below (a workload-access or dry-run refusal, the fork's bound, the target unreachable). */
    let refusal: ApiStatusError | undefined;

    let base = write ? trace.baseOf(session, info) : undefined;
    const listing = info.verb === 'list';
    if (listing) session.listsInFlight++;
    captureResponse(res, info.verb === 'watch' ? 0 : MAX_TRACED_BYTES, (c) => {
      if (listing) session.listsInFlight--;
      if (o.recorder && !c.aborted && info.isResource) {
        if (info.verb === 'list' && c.status === 200) o.recorder.list(info, c, Date.now() - started);
        else if (info.verb === 'get') o.recorder.get(info, c, Date.now() - started);
        else if (write) o.recorder.write(info, session.name, o.mode, c, decodeBody(body, header(req.headers['content-type'])));
      }
      if (c.status >= 500 && !res.getHeader('x-kwatch-injected')) session.failedRequests++;
      session.bytes += c.bytes;
      trace.http(session, info, method, c, Date.now() - started, { sent: sentQuery, refusal: refusal?.status, pid });
      if (refusal && write && refusal.status.details?.retryAfterSeconds === undefined) refusedWrites.push({ client: session.name, method, path: info.path, code: refusal.status.code, reason: refusal.status.reason, message: refusal.status.message });
      const listedRv = info.verb === 'list' || info.verb === 'get' ? trace.read(session, info, c) : undefined;
      // A list hands out a current resourceVersion: watching from it is never "expired", whatever came before.
      const collection = listedRv !== undefined && /^\d+$/.test(listedRv) ? trace.collectionOf(info) : undefined;
      if (collection !== undefined && (expiredUpTo.get(collection) ?? -1n) >= BigInt(listedRv!)) expiredUpTo.set(collection, BigInt(listedRv!) - 1n);
      else if (write) trace.write(session, info, c, { mode: o.mode, body, contentType: header(req.headers['content-type']), base, loopThreshold: o.loopThreshold, refused: refusedWrite, sentAt: started });
      else if (question) trace.question(session, info, c, o.mode);
    });

    if (workloadRefusal) {
      refusedWrite = WORKLOAD_ACCESS_REFUSED;
      return sendError(res, (refusal = workloadRefusal));
    }

    if (info.verb === 'list' && !info.query.get('continue')) {
      const why = session.listStarted(trace.collectionOf(info), pid);
      if (why) trace.relist(session, info, why);
    }
    if (info.verb === 'watch') startWatch(session, pid, info, req, res);

    if (write) {
      trace.staleWrite(session, info, body, header(req.headers['content-type']));
      const fault = writeFaults.next();
      if (fault) {
        res.setHeader('x-kwatch-injected', fault.text);
        trace.fault(session, fault.text, info);
        const named = (decodeBody(body, header(req.headers['content-type']))?.metadata as { name?: string } | undefined)?.name;
        return sendError(res, new ApiStatusError(fault.status({ group: info.group, resource: info.resource, name: named ?? info.name ?? '' }) as ApiStatusError['status']));
      }
      const gated = gate?.admit(Date.now());
      if (gated?.kind === 'throttled') {
        // As API Priority and Fairness answers: client-go waits Retry-After and sends the write again.
        refusal = new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 429, reason: 'TooManyRequests', message: `kwatch endpoint: past --qps ${o.writeLimits!.qps} --burst ${o.writeLimits!.burst}: too many requests, please try again later`, details: { retryAfterSeconds: gated.retryAfterSeconds } });
        return sendError(res, refusal);
      }
      if (gated?.kind === 'over') {
        refusal = status(429, 'TooManyRequests', `kwatch endpoint: --max-writes ${gated.max} reached: no further write is passed on in this run`);
        if (!maxWritesTold) { maxWritesTold = true; o.onMaxWrites?.(gated.max); }
        return sendError(res, refusal);
      }
    }

    if (info.verb === 'watch') {
      const rv = info.query.get('resourceVersion') ?? '';
      const expired = /^\d+$/.test(rv) && rv !== '0' ? expiredUpTo.get(trace.collectionOf(info)) : undefined;
      if (expired !== undefined && BigInt(rv) <= expired) {
        // Faults persist as kube's compaction does: an RV the client was told is gone stays gone for this collection.
        const found: RewatchExpired = { client: session.name, resource: trace.resourceOf(info), rv, expiredAt: String(expired) };
        rewatchedExpired.push(found);
        trace.rewatchExpired(session, info, found.rv, found.expiredAt);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${rv} (${String(expired)}): expired earlier in this run (kwatch)`, reason: 'Expired', code: 410 } })}\n`);
        return;
      }
    }

    try {
      // Questions and the workload's own answers (a proxy GET) come from the target; the fork can give neither.
      if (o.mode === 'overlay' && info.isResource && !question && !isWorkloadAccess(info)) {
        await o.fork!.ensure(info);
        return o.fork!.serve(body !== undefined ? replayable(req, body) : req, res);
      }
      // The CRDs the controller created in the fork make groups the target's discovery lacks.
      if (o.mode === 'overlay' && !info.isResource && await serveForkDiscovery(o.fork!, o.upstream, req, res, info.path)) return;
      let target = req.url ?? '/';
      let sent = body;
      if (write && (o.mode === 'intercept' || o.mode === 'server-dry-run')) {
        const dry = dryRunWrite(info, target, body, header(req.headers['content-type']));
        if (dry instanceof ApiStatusError) {
          refusedWrite = DRY_RUN_IMPOSSIBLE;
          return sendError(res, (refusal = dry));
        }
        ({ target, body: sent } = dry);
        sentQuery = requestInfo(method, target).query;
        // What the dry run would change is against what the target holds now, not what the client last read.
        if (o.mode === 'server-dry-run' && (info.verb === 'update' || info.verb === 'patch') && info.name !== undefined) base = (await currentObject(o.upstream, info.path)) ?? base;
        if (dry.contentType) {
          // The body was re-encoded: the target is told its new type; the trace still reads the client's.
          await forwardRequest(o.upstream, Object.assign(Object.create(req) as IncomingMessage, { headers: { ...req.headers, 'content-type': dry.contentType } }), res, target, sent);
          return;
        }
      }
      await forwardRequest(o.upstream, req, res, target, sent);
    } catch (err) {
      if (!(err instanceof ApiStatusError)) failures.push(`${method} ${info.path}: ${(err as Error).message}`);
      if (!res.headersSent) sendError(res, (refusal = err instanceof ApiStatusError ? err : upstreamFailure(err)));
      else res.destroy();
    }
  };

  const startWatch = (session: ClientSession, pid: number | undefined, info: RequestInfo, req: IncomingMessage, res: ServerResponse) => {
    const collection = trace.collectionOf(info);
    const initial = queryTrue(info.query.get('sendInitialEvents'));
    if (initial) {
      const why = session.listStarted(collection, pid);
      if (why) trace.relist(session, info, why);
    }
    const w = { session, resource: trace.resourceOf(info), lastActivity: Date.now(), stalled: false, res };
    let opened = false;
    let lastRv = info.query.get('resourceVersion') ?? undefined;
    let recorded: number | undefined;
    tapWatch(req, res, watchFaults.empty ? undefined : watchFaults, {
      started: (status) => {
        if (status !== 200) return;
        opened = true;
        if (o.recorder && info.isResource) recorded = o.recorder.watchStart(info);
        watches.add(w);
        session.watchOpened(collection);
        trace.watchStart(session, info);
      },
      event: (e) => {
        if (e.type !== 'ERROR' && e.rv !== undefined) lastRv = e.rv;
        session.events++;
        w.lastActivity = Date.now();
        w.stalled = false;
        trace.watchEvent(session, info, e);
        if (recorded !== undefined) o.recorder!.watchEvent(info, recorded, e.type, e.object?.raw());
      },
      fault: (text, e) => trace.fault(session, text, info, e),
      closed: (reason) => {
        watches.delete(w);
        if (!opened) return;
        session.watchClosed(collection, reason);
        if (reason === '410' && lastRv !== undefined && /^\d+$/.test(lastRv)) {
          const at = BigInt(lastRv);
          if ((expiredUpTo.get(collection) ?? -1n) < at) expiredUpTo.set(collection, at);
        }
        trace.watchClose(session, info, reason);
        if (recorded !== undefined) o.recorder!.watchEnd(info, recorded, reason);
      },
    }, { timeoutSeconds: numberOrUndefined(info.query.get('timeoutSeconds')) });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, err);
      else res.destroy();
    });
  };
  // highWaterMark: what a response (and its socket) buffers before its writer waits, as Node 20 sets it. Node 22 and
  // later default to 64 kB, and a stalled watch holds that much for as long as it stalls (issue 43).
  const httpOptions = { keepAlive: true, requestTimeout: 0, headersTimeout: 60_000, highWaterMark: RESPONSE_HIGH_WATER_MARK };
  const server: Server = credentials
    ? createHttpsServer({ ...httpOptions, key: credentials.server.keyPem, cert: credentials.server.certPem }, onRequest)
    : createServer(httpOptions, onRequest);
  server.keepAliveTimeout = 65_000;
  // The process behind a connection is looked up as it is accepted (reading /proc takes tens of ms on a busy host),
  // so the lookup overlaps the TLS handshake and the first request instead of delaying its forwarding.
  if (o.clientRoot) server.on(credentials ? 'secureConnection' : 'connection', (s: Socket) => { identify(s).catch(() => undefined); });
  const sockets = trackSockets(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new ListenError(`${host}:${o.port ?? 0} is in use: choose another --listen address`) : err));
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${credentials ? 'https' : 'http'}://${shownHost}:${addr.port}`;

  const stallTimer = setInterval(() => {
    const now = Date.now();
    for (const w of watches) {
      if (w.stalled || now - w.lastActivity < o.stallAfterMs) continue;
      w.stalled = true;
      trace.stall(w.session, w.resource, now - w.lastActivity);
    }
  }, Math.max(50, Math.min(1000, o.stallAfterMs / 4)));
  stallTimer.unref();

  let closing: Promise<void> | undefined;
  return {
    url: `${url}/${PATH_PREFIX}${token}`,
    token,
    caPem: credentials?.caPem,
    clients: () => clients.all(),
    watchFaults,
    writeFaults,
    failures,
    refusedWrites,
    written: trace.written,
    fights: trace.fights,
    rewatchedExpired,
    close: () => {
      closing ??= (async () => {
        clearInterval(stallTimer);
        watchFaults.stop();
        o.fork?.close();
        for (const w of [...watches]) w.res.end();
        await sockets.close();
      })();
      return closing;
    },
  };
}

export class ListenError extends Error {}

/**
 * Only this run's clients: the endpoint forwards with the user's own credentials, so another local process must not
 * borrow them. A request proves it read the kubeconfig kwatch wrote (0600) by its bearer token (over HTTPS, the default,
 * every client sends it) or by the secret path prefix of its server URL (over plain HTTP client-go sends no token:
 * clientcmd's DirectClientConfig.ClientConfig reads credentials only when IsConfigTransportTLS); the prefix is then
 * taken off the path. A
 * Host that names the endpoint by a DNS name other than localhost is refused too (DNS rebinding).
 */
function guard(req: IncomingMessage, token: string): ApiStatusError | undefined {
  const hostName = hostOf(req.headers.host);
  if (hostName === undefined || (hostName !== 'localhost' && isIP(hostName) === 0)) return status(403, 'Forbidden', `Host ${JSON.stringify(req.headers.host ?? '')} is not this endpoint's address: name it by IP address or as localhost`);
  const target = req.url ?? '/';
  const origin = originForm(target);
  const prefix = `/${PATH_PREFIX}${token}`;
  const authorization = header(req.headers.authorization);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const given = Buffer.from(m?.[1] ?? '');
  const expected = Buffer.from(token);
  const tokenGiven = given.length === expected.length && timingSafeEqual(given, expected);
  if (origin === prefix || origin.startsWith(`${prefix}/`) || origin.startsWith(`${prefix}?`)) {
    // Credentials of its own ask to act as someone else: passed on with the user's in their place, they would get the
    // user's rights without a word. Over TLS such a token is refused below as not the endpoint's; here alike.
    if (authorization !== undefined && !tokenGiven) return status(401, 'Unauthorized', 'kwatch endpoint: this request carries credentials of its own (an Authorization header that is not the endpoint\'s token); the endpoint acts only with the credentials of the kubeconfig it was started with, so it does not pass the request on as anyone else: drop the header, or talk to the cluster directly');
    req.url = origin.slice(prefix.length) || '/';
    if (req.url.startsWith('?')) req.url = `/${req.url}`;
    return undefined;
  }
  if (tokenGiven) { req.url = origin; return undefined; }
  return status(401, 'Unauthorized', 'kwatch endpoint: this request does not come from the kubeconfig kwatch wrote for this run (its server URL path or its token): use that kubeconfig');
}

/** The endpoint's URL path begins with this and the run's token. */
const PATH_PREFIX = 'kwatch-';

/** A request target without a leading /kwatch-… segment: what a refused request's trace shows (never a token). */
function withoutSecretPrefix(target: string): string {
  const origin = originForm(target);
  return origin.replace(new RegExp(`^/${PATH_PREFIX}[^/?#]*`), '') || '/';
}

function hostOf(h: string | undefined): string | undefined {
  if (!h) return undefined;
  try { return new URL(`http://${h}`).hostname.replace(/^\[|\]$/g, ''); } catch { return undefined; }
}

function status(code: number, reason: string, message: string): ApiStatusError {
  return new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

function upstreamFailure(err: unknown): ApiStatusError {
  return status(503, 'ServiceUnavailable', `kwatch endpoint: the target did not answer: ${err instanceof Error ? err.message : String(err)}`);
}

/** The request again, its body already read: what the fork's sim handlers read it from. */
function replayable(req: IncomingMessage, body: Buffer): IncomingMessage {
  return Object.assign(Readable.from([body]), { method: req.method, url: req.url, headers: req.headers, headersDistinct: req.headersDistinct, socket: req.socket, httpVersion: req.httpVersion }) as unknown as IncomingMessage;
}

/** The process behind a loopback connection, when it runs under `root`. */
async function identityOf(socket: Socket, root: number | undefined): Promise<ClientIdentity | undefined> {
  if (root === undefined || socket.localPort === undefined || socket.remotePort === undefined) return undefined;
  const from = socket.remoteAddress ?? '';
  if (!(from.startsWith('127.') || from === '::1' || from.startsWith('::ffff:127.'))) return undefined;
  const chain = await peerProcess(socket.localPort, socket.remotePort, root);
  return chain && clientIdentity(chain);
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function numberOrUndefined(s: string | null): number | undefined {
  const n = s === null ? NaN : Number(s);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

function certificateHosts(listenAddress: string): string[] {
  const hosts = ['127.0.0.1', 'localhost', '::1'];
  if (listenAddress !== '0.0.0.0' && listenAddress !== '::' && !hosts.includes(listenAddress)) hosts.push(listenAddress);
  return hosts;
}
