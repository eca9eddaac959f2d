// startSimServer: the embedded Kubernetes API server over node:http — store, discovery, handlers, workload and faults wired together.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { SimApi } from './api.js';
import { Discovery } from './discovery.js';
import { FaultController, type FaultOptions } from './faults.js';
import { createRequestHandler } from './http-handler.js';
import { writeKubeconfig } from './kubeconfig.js';
import { RequestLog, type RequestRecord } from './request-log.js';
import type { ServerContext } from './server-context.js';
import { SimStore } from './store.js';
import { WorkloadGenerator } from './workload.js';
import { ControllerManager, type ControllerOptions } from './controllers/controller-manager.js';

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
}

export interface SimServer {
  /** e.g. http://127.0.0.1:43123 */
  url: string;
  api: SimApi;
  faults: FaultController;
  /** The controllers, when started with `controllers`. */
  controllers?: ControllerManager;
  /** Recent requests, oldest first (the same data as GET /_kwatch/state). */
  requests(): RequestRecord[];
  close(): Promise<void>;
  writeKubeconfig(file: string): Promise<void>;
}


/** The namespaces every cluster has. */
const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** Starts the server; resolves once it accepts connections. */
export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  const store = new SimStore({ historyEvents: opts.historyEvents, historyMs: opts.historyMs });
  for (const ns of SYSTEM_NAMESPACES) store.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: ns } });
  const faults = new FaultController(opts.faults);
  const ctx: ServerContext = { store, faults, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000, tooLargeWaitMs: opts.tooLargeWaitMs ?? 3000, watches: new Set() };
  const log = new RequestLog();
  const discovery = new Discovery(store.registry);
  const controllers = opts.controllers ? new ControllerManager(store, opts.controllers === true ? {} : opts.controllers) : undefined;
  if (controllers) ctx.deletes = controllers;

  let workload: WorkloadGenerator | undefined;
  if ((opts.nodes ?? 0) > 0 || (opts.pods ?? 0) > 0) {
    workload = new WorkloadGenerator(controllers ? controllers.generatorApi(store) : store, { seed: opts.seed ?? 1, nodes: opts.nodes ?? 0, pods: opts.pods ?? 0, churn: opts.churn ?? 0, managedFields: opts.managedFields ?? true });
    workload.populate();
  }

  const server: Server = createServer({ keepAlive: true, requestTimeout: 0, headersTimeout: 60_000 }, createRequestHandler(ctx, discovery, log));
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s) => { sockets.add(s); s.setNoDelay(true); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;

  faults.attach({
    dropWatches: (mode) => { const all = [...ctx.watches]; for (const w of all) w.close(mode); return all.length; },
    compact: () => store.compact(),
  });
  const trimTimer = setInterval(() => store.trimHistory(), 1000);
  trimTimer.unref();
  controllers?.start();
  workload?.start();

  let closing: Promise<void> | undefined;
  return {
    url,
    api: store,
    faults,
    controllers,
    requests: () => log.entries(),
    writeKubeconfig: (file) => writeKubeconfig(file, url),
    close: () => {
      closing ??= (async () => {
        workload?.stop();
        controllers?.stop();
        clearInterval(trimTimer);
        faults.detach();
        for (const w of [...ctx.watches]) w.close('end');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Give in-flight responses a moment, then cut whatever is left.
        const timer = setTimeout(() => { for (const s of sockets) s.destroy(); }, 500);
        await closed;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
