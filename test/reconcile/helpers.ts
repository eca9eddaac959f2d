// In-memory resources for reconcile tests: a catalog over FakeListerWatchers, and a session runner.
import { setImmediate as tick } from 'node:timers/promises';
import { FakeListerWatcher } from '../../src/informer/fake-lister-watcher.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ResourceCatalog, ResourceInfo } from '../../src/reconcile/catalog.js';
import { ReconcileSession, type SessionOptions } from '../../src/reconcile/session.js';

export const DEPLOYMENTS: ResourceInfo = { name: 'deployments.apps', group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
export const REPLICASETS: ResourceInfo = { name: 'replicasets.apps', group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };
export const CONFIGMAPS: ResourceInfo = { name: 'configmaps', group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** A catalog of fake resources; `lw(info)` is the server side a test drives. */
export class MemoryCatalog implements ResourceCatalog {
  readonly servers = new Map<string, FakeListerWatcher>();
  readonly infos: ResourceInfo[];

  constructor(infos: ResourceInfo[] = [DEPLOYMENTS, REPLICASETS, CONFIGMAPS]) {
    this.infos = infos;
    for (const i of infos) this.servers.set(i.name, new FakeListerWatcher({ kind: i.kind, apiVersion: i.group ? `${i.group}/${i.version}` : i.version }));
  }

  lw(info: ResourceInfo): FakeListerWatcher {
    return this.servers.get(info.name)!;
  }

  async resolve(name: string): Promise<ResourceInfo> {
    const hit = this.infos.find((i) => i.name === name || i.resource === name);
    if (!hit) throw new Error(`the server doesn't have a resource type "${name}"`);
    return hit;
  }

  async resolveKind(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const hit = this.infos.find((i) => i.kind === kind && (i.group ? `${i.group}/${i.version}` : i.version) === apiVersion);
    if (!hit) throw new Error(`no resource serves ${kind} in ${apiVersion}`);
    return hit;
  }

  listerWatcher(info: ResourceInfo) {
    return this.lw(info);
  }
}

export function deployment(namespace: string, name: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace, name, uid: `uid-${namespace}-${name}` }, spec: { replicas: 1 }, ...extra };
}

export interface Harness {
  session: ReconcileSession;
  records: TraceRecord[];
  stop(): Promise<void>;
  running: Promise<void>;
}

/** Starts a session over the catalog, tracing into `records`. */
export async function startSession(o: Omit<SessionOptions, 'tracer'> & { tracer?: Tracer }): Promise<Harness> {
  const tracer = o.tracer ?? new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const session = new ReconcileSession({ ...o, tracer, random: () => 0.5 });
  await session.setup();
  const ac = new AbortController();
  const running = session.run(ac.signal);
  return {
    session,
    records,
    running,
    async stop() {
      ac.abort();
      await running;
    },
  };
}

export async function eventually(cond: () => boolean, what = 'condition', turns = 20_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}
