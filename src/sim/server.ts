// startSimServer: the embedded Kubernetes API server over node:http — store, discovery, handlers, workload and faults wired together.
import { seedPlatformObjects } from './kinds/platform-objects.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SimApi } from './api.js';
import type { SimClock } from './clock.js';
import { Discovery } from './discovery.js';
import { FaultController, type FaultOptions } from './faults.js';
import { createSimAuth } from './auth/sim-auth.js';
import { createSimCredentials, type SimCredentials } from './auth/sim-credentials.js';
import { CONTROL_PREFIX, createRequestHandler } from './http-handler.js';
import { writeKubeconfig } from './kubeconfig.js';
import { RequestLog, type RequestRecord } from './request-log.js';
import { checkRequest, ownOrigins } from './request-guard.js';
import { sendError } from './respond.js';
import type { ActiveWatch, ServerContext } from './server-context.js';
import { SimStore } from './store.js';
import { WorkloadGenerator } from './workload.js';
import { trackSockets } from '../wire/server-sockets.js';
import { ControllerManager, type ControllerOptions } from './controllers/controller-manager.js';
import { addVersionedSubresources, kindsAddedBy } from './kinds/versioned-kinds.js';
import { DEFAULT_KUBE_VERSION, defaultFeatureGates, type FeatureGates, type KubeVersion } from './kube-version.js';

export interface SimServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  seed?: number;
  nodes?: number;
  pods?: number;
  /** Changes per second; 0 = a static cluster. */
  churn?: number;
  /** History bound by count (default 10 000 changes). */
  historyEvents?: number;
  /** History bound by age (default 5 min). */
  historyMs?: number;
  /** Period of BOOKMARK events on watches that allow them (default 60 000 ms). */
  bookmarkIntervalMs?: number;
  /** Generated objects carry realistic managedFields (default true). */
  managedFields?: boolean;
  faults?: FaultOptions;
  /** How long a request for a future resourceVersion waits before 504 (default 3000 ms, as kube). */
  tooLargeWaitMs?: number;
  /**
   * Run what a user expects behind the API server: graceful pod deletion, finalizers, garbage collection, and the
   * Deployment, ReplicaSet, scheduler and kubelet stand-ins (see src/sim/controllers). Default off, so objects a
   * caller writes stay exactly as written; `kwatch sim` turns it on. The workload generator's own objects are left
   * to the generator either way.
   */
  controllers?: boolean | ControllerOptions;
  /** Objects each controller may create over the sim's lifetime (default 10,000; `controllers.maxObjects` wins). */
  maxObjects?: number;
  /** Serve HTTPS with a certificate from a CA generated for this run (the kubeconfig carries the CA). */
  tls?: boolean;
  /**
   * Authenticate and authorize (needs `tls`): an admin with a client certificate (system:masters), and a user "dev"
   * with a bearer token who may do anything in one namespace (default "dev", created) and only discovery elsewhere.
   */
  users?: boolean | { namespace?: string };
  /**
   * The clock creationTimestamps, CronJob schedules and service account tokens follow (default the system clock). A
   * test passes a ManualClock (src/sim/clock.ts) to run schedules without waiting for them.
   */
  clock?: SimClock;
  /** How often a running container writes a line to its log (default 10 000 ms). */
  logHeartbeatMs?: number;
  /** The Kubernetes release to serve (default the newest, DEFAULT_KUBE_VERSION). */
  kubeVersion?: KubeVersion;
  /** Feature gates set over the release's defaults (as kube-apiserver's --feature-gates). */
  featureGates?: Partial<FeatureGates>;
}

export interface SimServer {
  /** e.g. http://127.0.0.1:43123 (https:// with `tls`) */
  url: string;
  /** The bearer token /_kwatch/ requests must carry (new for every run; written beside the kubeconfig). */
  controlToken: string;
  /** With `tls`: the CA, the server's certificate and, with `users`, the users' credentials. */
  credentials?: SimCredentials;
  api: SimApi;
  /** Writes that keep an object as another server stored it (a replayed recording feeding the sim). */
  mirror: Pick<SimStore, 'registry' | 'putMirrored' | 'deleteMirrored'>;
  faults: FaultController;
  /** The controllers, when started with `controllers`. */
  controllers?: ControllerManager;
  /** Recent requests, oldest first (the same data as GET /_kwatch/state). */
  requests(): RequestRecord[];
  close(): Promise<void>;
  /** Writes the kubeconfig (mode 0600, replacing rather than following a symlink) and the control token beside it. */
  writeKubeconfig(file: string): Promise<void>;
}


/** The namespaces every cluster has. */
const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** Starts the server; resolves once it accepts connections. */
export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  if (opts.users && !opts.tls) throw new Error('users need tls: the admin authenticates with a client certificate');
  const listenAddress = opts.host ?? '127.0.0.1';
  const userOpts = typeof opts.users === 'object' ? opts.users : {};
  const credentials = opts.tls ? createSimCredentials({ hosts: certificateHosts(listenAddress), users: Boolean(opts.users), devNamespace: userOpts.namespace }) : undefined;
  const controlToken = randomBytes(24).toString('base64url');
  const kubeVersion = opts.kubeVersion ?? DEFAULT_KUBE_VERSION;
  const store = new SimStore({ historyEvents: opts.historyEvents, historyMs: opts.historyMs, ...(opts.clock ? { now: () => opts.clock!.now() } : {}) });
  addVersionedSubresources(store.registry.all(), kubeVersion);
  store.registry.addBuiltins(kindsAddedBy(kubeVersion));
  // Field validation reads the same release's definitions as /openapi serves (a field 1.33 added is unknown to 1.32).
  for (const t of store.registry.all()) if (!t.crd) t.release = kubeVersion;
  for (const ns of SYSTEM_NAMESPACES) store.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: ns } });
  seedPlatformObjects(store);
  const faults = new FaultController(opts.faults);
  // The churn starts with the first watch a client opens (see below), not with the server.
  let workload: WorkloadGenerator | undefined;
  const watches = watchSet(() => workload?.start());
  const ctx: ServerContext = { store, faults, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000, tooLargeWaitMs: opts.tooLargeWaitMs ?? 3000, watches, logHeartbeatMs: opts.logHeartbeatMs, kubeVersion, featureGates: { ...defaultFeatureGates(kubeVersion), ...opts.featureGates } };
  if (credentials?.users) {
    const ns = credentials.users.dev.namespace;
    if (!store.get({ group: '', version: 'v1', resource: 'namespaces' }, undefined, ns)) store.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: ns } });
  }
  const auth = createSimAuth(store, credentials?.users, opts.clock ? () => opts.clock!.now() : undefined);
  ctx.auth = auth.services;
  ctx.access = auth.access;
  const log = new RequestLog();
  const discovery = new Discovery(store.registry, kubeVersion);
  const controllers = opts.controllers ? new ControllerManager(store, { maxObjects: opts.maxObjects, caPem: credentials?.caPem, clock: opts.clock, ...(opts.controllers === true ? {} : opts.controllers) }) : undefined;
  if (controllers) ctx.deletes = controllers;

  if ((opts.nodes ?? 0) > 0 || (opts.pods ?? 0) > 0) {
    workload = new WorkloadGenerator(controllers ? controllers.generatorApi(store) : store, { seed: opts.seed ?? 1, nodes: opts.nodes ?? 0, pods: opts.pods ?? 0, churn: opts.churn ?? 0, managedFields: opts.managedFields ?? true });
    workload.populate();
  }

  const handler = createRequestHandler(ctx, discovery, log);
  // Filled once the port is known (no request arrives before).
  const guard = { controlToken, controlPrefix: CONTROL_PREFIX, ownOrigins: new Set<string>() };
  const guarded = (req: IncomingMessage, res: ServerResponse) => {
    const refused = checkRequest(req, guard);
    if (!refused) return handler(req, res);
    req.resume();
    sendError(res, refused);
  };
  const httpOptions = { keepAlive: true, requestTimeout: 0, headersTimeout: 60_000 };
  const server: Server = credentials
    // requestCert without rejectUnauthorized: a client certificate is asked for, but token users need none.
    ? createHttpsServer({ ...httpOptions, key: credentials.server.keyPem, cert: credentials.server.certPem, ca: credentials.caPem, requestCert: Boolean(credentials.users), rejectUnauthorized: false }, guarded)
    : createServer(httpOptions, guarded);
  server.keepAliveTimeout = 65_000;
  const sockets = trackSockets(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, listenAddress, () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${credentials ? 'https' : 'http'}://${host}:${addr.port}`;
  guard.ownOrigins = ownOrigins(url);

  faults.attach({
    dropWatches: (mode) => { const all = [...ctx.watches]; for (const w of all) w.close(mode); return all.length; },
    compact: () => store.compact(),
  });
  const trimTimer = setInterval(() => store.trimHistory(), 1000);
  trimTimer.unref();
  controllers?.start();

  let closing: Promise<void> | undefined;
  return {
    url,
    controlToken,
    credentials,
    api: store,
    mirror: store,
    faults,
    controllers,
    requests: () => log.entries(),
    writeKubeconfig: (file) => writeKubeconfig(file, url, { caPem: credentials?.caPem, users: credentials?.users }, controlToken),
    close: () => {
      closing ??= (async () => {
        workload?.stop();
        controllers?.stop();
        clearInterval(trimTimer);
        faults.detach();
        for (const w of [...ctx.watches]) w.close('end');
        await sockets.close();
      })();
      return closing;
    },
  };
}

/**
 * The set of open watches, which calls `first` when the first watch is added. The watch handler adds a watch and then,
 * in the same synchronous step, takes its initial state and subscribes (src/sim/watch-handler.ts; unless the watch
 * waits for a future resourceVersion), while a churn tick only ever runs on a later turn: started here, the churn
 * writes its seeded sequence from that watch's start, however long the client took to get there (a slow machine, a
 * user who runs `kwatch sim` and connects later).
 */
function watchSet(first: () => void): Set<ActiveWatch> {
  const watches = new Set<ActiveWatch>();
  const add = watches.add.bind(watches);
  let seen = false;
  watches.add = (watch) => {
    add(watch);
    if (!seen) {
      seen = true;
      first();
    }
    return watches;
  };
  return watches;
}

/** Names the server certificate is valid for: the loopback names, and the listen address when it is a specific one. */
function certificateHosts(listenAddress: string): string[] {
  const hosts = ['127.0.0.1', 'localhost', '::1'];
  if (listenAddress !== '0.0.0.0' && listenAddress !== '::' && !hosts.includes(listenAddress)) hosts.push(listenAddress);
  return hosts;
}
