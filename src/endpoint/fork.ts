// `--writes overlay` and `kwatch sim --mirror`: a local copy-on-write fork of the target cluster. The sim's own store
// and REST handlers serve the controller; an informer per kind on the target (started at the controller's first
// request for that kind) keeps the store current. The controller's writes land only here and reach it through its
// watches as they would from a real server. An upstream change to an object the controller changed locally is
// reported as a conflict and never applied over the local one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Reflector } from '../informer/reflector.js';
import type { Tracer } from '../informer/trace.js';
import type { KubeObject } from '../informer/types.js';
import type { Connection } from '../kube/http/connection.js';
import { HttpListerWatcher } from '../kube/lister-watchers/http-lister-watcher.js';
import { ApiStatusError, failureStatus } from '../wire/api-status.js';
import { resourceId, type ResourceType } from '../sim/registry.js';
import { createStoreHandler, type StoreHandler } from '../sim/store-handler.js';
import { SimStore } from '../sim/store.js';
import { MirrorSink } from './mirror-sink.js';
import { upstreamResourceTypes } from './upstream-kinds.js';
import { objectKey, resourceName } from './request-info.js';

export interface ForkOptions {
  upstream: Connection;
  tracer: Tracer;
  /** Objects the fork may hold in all (--max-objects); past it the kind that crossed it stops mirroring. */
  maxObjects: number;
  /** How long a first request waits for its kind's initial list (default 60 s). */
  syncTimeoutMs?: number;
  /** Mirror only these resources (sim --mirror-resources, kubectl's spelling: pods, deployments.apps). */
  only?: ReadonlySet<string>;
  /** Period of BOOKMARK events on the fork's watches (default 60 s, as kube). */
  bookmarkIntervalMs?: number;
  /** One line for the user (a limit reached, a kind that cannot be mirrored). */
  notice(line: string): void;
}

/** An object the controller changed in the fork: what the fork holds now differs from the target. */
export interface Divergence {
  resource: string;
  key: string;
  /** What the controller did last: created, updated or deleted it. */
  change: 'created' | 'updated' | 'deleted';
  /** Upstream changes to it that the fork did not apply (the controller's version won). */
  conflicts: number;
}

interface Mirror {
  type: ResourceType;
  synced: Promise<void>;
  objects: number;
  failed?: ApiStatusError;
  stop: AbortController;
}

export class Fork {
  readonly store = new SimStore({ historyEvents: 100_000 });
  private readonly handler: StoreHandler;
  private readonly mirrors = new Map<string, Mirror>();
  private readonly diverged = new Map<string, Divergence>();
  /** Set while the fork applies an upstream change, so that the commit listener knows it is not the controller's. */
  private mirroring = false;
  private total = 0;
  private closed = false;

  constructor(private readonly o: ForkOptions) {
    this.handler = createStoreHandler(this.store, { bookmarkIntervalMs: o.bookmarkIntervalMs });
    this.store.onCommit((change, type) => {
      if (this.mirroring) return;
      const id = `${resourceName(type)} ${change.key}`;
      const prior = this.diverged.get(id);
      const kind = change.type === 'ADDED' ? 'created' : change.type === 'DELETED' ? 'deleted' : 'updated';
      // Created and deleted here only: the target never held it, so nothing differs (unless the target has since made
      // one of that name, which the fork kept out as a conflict).
      if (kind === 'deleted' && prior?.change === 'created' && prior.conflicts === 0) { this.diverged.delete(id); return; }
      this.diverged.set(id, { resource: resourceName(type), key: change.key, change: prior?.change === 'created' && kind === 'updated' ? 'created' : kind, conflicts: prior?.conflicts ?? 0 });
    });
  }

  /** Objects the controller changed, in the order first changed. */
  divergences(): Divergence[] {
    return [...this.diverged.values()];
  }

  /** Objects mirrored from the target so far. */
  get objects(): number {
    return this.total;
  }

  /**
   * Makes the kind a request names servable: its type known (the sim's, or the target's discovery as a schemaless
   * kind), namespaces and the kind itself mirrored and listed. Throws a ApiStatusError to answer the request with.
   */
  async ensure(request: { group: string; version: string; resource: string; namespace?: string; name?: string }): Promise<void> {
    const { group, version, resource, name } = request;
    // A namespace object's own path (…/namespaces/NAME) is in that namespace, as kube's RequestInfo has it: credentials
    // for one namespace may read it, not list them all.
    const namespace = group === '' && resource === 'namespaces' && name !== undefined ? name : request.namespace;
    await this.mirror('', 'v1', 'namespaces', namespace);
    await this.mirror(group, version, resource, namespace);
  }

  /** The kinds that CRDs the controller created in the fork define (the target's discovery lacks them; they are never mirrored). */
  localKinds(): ResourceType[] {
    return this.store.registry.all().filter((t) => this.fromLocalCrd(t));
  }

  /** The group/versions of those kinds, versions in the order kube prefers them. */
  localGroups(): { name: string; versions: string[] }[] {
    const local = new Set(this.localKinds().map((t) => `${t.group}/${t.version}`));
    return this.store.registry.groups()
      .map((g) => ({ name: g.name, versions: g.versions.filter((v) => local.has(`${g.name}/${v}`)) }))
      .filter((g) => g.versions.length > 0);
  }

  /** The fork's registry (its kinds, the ones CRDs created in it added included). */
  get registry(): SimStore['registry'] {
    return this.store.registry;
  }

  /** A kind defined by a CRD that the controller created in the fork (it did not exist on the target). */
  private fromLocalCrd(t: ResourceType): boolean {
    return t.crd !== undefined && !t.crd.startsWith(MIRRORED_CRD_PREFIX) && this.diverged.get(`${CRD_RESOURCE} ${t.crd}`)?.change === 'created';
  }

  serve(req: IncomingMessage, res: ServerResponse): void {
    this.handler.handle(req, res);
  }

  close(): void {
    this.closed = true;
    for (const m of this.mirrors.values()) m.stop.abort();
    this.handler.close();
  }

  private async mirror(group: string, version: string, resource: string, namespace: string | undefined): Promise<void> {
    let type = this.store.registry.lookup(group, version, resource);
    if (!type) {
      const types = await upstreamResourceTypes(this.o.upstream, group, version);
      const missing = types.filter((t) => !this.store.registry.lookup(t.group, t.version, t.resource));
      if (missing.length) this.store.registry.addCrdTypes(`${MIRRORED_CRD_PREFIX}${group}/${version}`, missing);
      type = this.store.registry.lookup(group, version, resource);
      // Not a kind of the target either: the sim's handlers answer 404 as kube-apiserver would.
      if (!type) return;
    }
    const id = resourceId(type);
    if (this.fromLocalCrd(type)) {
      // Its CRD was created here: the target has no such kind to mirror; the fork serves what is written to it.
      if (!this.mirrors.has(id)) this.mirrors.set(id, { type, objects: 0, stop: new AbortController(), synced: Promise.resolve() });
      return;
    }
    // One mirror per kind across all namespaces; where the credentials may list only the request's namespace, one
    // per namespace (and that namespace object alone, when namespaces cannot be listed).
    let m = this.mirrors.get(id) ?? (namespace !== undefined ? this.mirrors.get(`${id} ${namespace}`) : undefined);
    if (!m) {
      const scope = await this.scopeFor(type, namespace);
      const key = scope === 'cluster' ? id : `${id} ${namespace}`;
      m = this.mirrors.get(key);
      if (!m) {
        m = scope === 'one-namespace-object' ? this.copyNamespace(type, namespace!) : this.start(type, scope === 'cluster' ? undefined : namespace);
        this.mirrors.set(key, m);
      }
    }
    await m.synced;
    if (m.failed) throw m.failed;
  }

  /** Whether the target lets these credentials list the kind across namespaces (a one-item LIST asks). */
  private async scopeFor(type: ResourceType, namespace: string | undefined): Promise<'cluster' | 'namespace' | 'one-namespace-object'> {
    if (namespace === undefined) return 'cluster';
    const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
    const res = await this.o.upstream.request({ path: `${base}/${type.resource}?limit=1`, headers: { Accept: 'application/json' }, allowErrorStatus: true });
    await res.body.text();
    if (res.status !== 403) return 'cluster';
    if (type.namespaced) return 'namespace';
    return type.group === '' && type.resource === 'namespaces' ? 'one-namespace-object' : 'cluster';
  }

  /** The request's namespace, read once, when the credentials may not list namespaces: enough for writes into it. */
  private copyNamespace(type: ResourceType, name: string): Mirror {
    const m: Mirror = { type, objects: 0, stop: new AbortController(), synced: Promise.resolve() };
    m.synced = (async () => {
      const res = await this.o.upstream.request({ path: `/api/v1/namespaces/${encodeURIComponent(name)}`, headers: { Accept: 'application/json' }, allowErrorStatus: true });
      const body = (await res.body.json().catch(() => undefined)) as KubeObject | undefined;
      if (res.status === 200 && body) this.apply(m, 'put', body);
      else if (res.status !== 404) m.failed = serviceUnavailable(`kwatch fork: the target answered ${res.status} for namespace ${name}`);
    })();
    return m;
  }

  private start(type: ResourceType, namespace?: string): Mirror {
    const name = resourceName(type) + (namespace !== undefined ? ` in ${namespace}` : '');
    const stop = new AbortController();
    const m: Mirror = { type, objects: 0, stop, synced: Promise.resolve() };
    if (this.o.only && !this.o.only.has(resourceName(type)) && resourceName(type) !== 'namespaces') {
      // Not mirrored: the fork serves what the controller writes there, nothing from the target.
      this.o.notice(`kwatch: ${resourceName(type)} is not mirrored (--mirror-resources): the fork serves only what is written to it locally`);
      return m;
    }
    const lw = new HttpListerWatcher(this.o.upstream, { group: type.group, version: type.version, resource: type.resource, namespaced: type.namespaced, namespace });
    const timeoutMs = this.o.syncTimeoutMs ?? 60_000;
    m.synced = new Promise<void>((resolve) => {
      const timer = setTimeout(() => fail(`the target did not list ${name} within ${Math.round(timeoutMs / 1000)}s`), timeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        m.failed ??= serviceUnavailable(`kwatch fork: ${why}`);
        resolve();
      };
      // A reflector writes straight into the fork's store: no informer cache holds a second, parsed copy.
      const sink = new MirrorSink({ put: (obj) => this.apply(m, 'put', obj), remove: (obj) => this.apply(m, 'delete', obj), synced: () => { clearTimeout(timer); resolve(); } });
      const reflector = new Reflector({ listerWatcher: lw, store: sink, name: `mirror ${name}`, tracer: this.o.tracer });
      reflector.run(stop.signal).then(() => fail(`mirroring ${name} stopped`), (e: unknown) => fail(`mirroring ${name} failed: ${e instanceof Error ? e.message : String(e)}`));
    });
    return m;
  }

  private apply(m: Mirror, op: 'put' | 'delete', obj: KubeObject): void {
    if (this.closed || m.failed) return;
    const meta = obj.metadata ?? {};
    const name = String(meta.name ?? '');
    const ns = m.type.namespaced ? String(meta.namespace ?? '') : undefined;
    const key = objectKey(ns, name);
    const resource = resourceName(m.type);
    const local = this.diverged.get(`${resource} ${key}`);
    if (local) {
      local.conflicts++;
      if (this.o.tracer.enabled) this.o.tracer.emit({ time: Date.now(), stage: 'endpoint', op: 'conflict', key, rv: String(meta.resourceVersion ?? ''), resource, upstream: op === 'put' ? 'updated' : 'deleted', local: local.change, kept: 'local' });
      return;
    }
    this.mirroring = true;
    try {
      if (op === 'put') {
        const change = this.store.putMirrored(m.type, obj as never);
        if (change === 'ADDED') this.count(m, 1);
      } else if (this.store.deleteMirrored(m.type, ns, name)) {
        this.count(m, -1);
      }
    } finally {
      this.mirroring = false;
    }
  }

  private count(m: Mirror, n: number): void {
    m.objects += n;
    this.total += n;
    if (n > 0 && this.total > this.o.maxObjects && !m.failed) {
      m.failed = new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 507, reason: 'InsufficientStorage', message: `kwatch fork: the fork holds ${this.total} objects, past --max-objects ${this.o.maxObjects}; mirroring ${resourceName(m.type)} stopped (raise --max-objects, or limit the kinds)` });
      this.o.notice(`kwatch: ${m.failed.message}`);
      m.stop.abort();
    }
  }
}

/** What the fork names the kinds it learnt from the target's discovery (not from a CRD object it holds). */
const MIRRORED_CRD_PREFIX = 'kwatch-mirror:';
/** How the fork's divergences name CRDs. */
const CRD_RESOURCE = 'customresourcedefinitions.apiextensions.k8s.io';

/** The fork cannot serve the kind now: a 503 the client retries after 5 s. */
function serviceUnavailable(message: string): ApiStatusError {
  return failureStatus(503, 'ServiceUnavailable', message, { retryAfterSeconds: 5 });
}
