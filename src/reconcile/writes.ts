// What happens to a reconciler's writes (--writes): intercept (reported, nothing sent), overlay (applied
// to a local layer the informers read through), server-dry-run (sent with dryRun=All) or apply (sent).
// Every write becomes one `write` trace record with the verb, the target, the diff against the cached
// object and, in json/ndjson, the full request; it also tells the triggers which events it caused.
import type { Clock } from '../informer/clock.js';
import { StatusError } from '../informer/errors.js';
import { compareResourceVersions } from '../informer/resource-version.js';
import { OwnWrites } from './stale-reads.js';
import type { Tracer } from '../informer/trace.js';
import type { KubeObject, Status } from '../informer/types.js';
import { objectKey, splitKey, type ResourceCatalog, type ResourceInfo } from './catalog.js';
import type { SharedInformerFactory } from './informer-factory.js';
import type { Overlay, OverlayEdit } from './overlay.js';
import { diffObjects } from '../informer/object-diff.js';
import { applyPatch, createMergePatch } from './patch.js';
import type { TriggerReason, WriteOrigins } from './trigger.js';
import type { PatchOptions } from './types.js';
import type { WriteMode } from './write-mode.js';
import { MaxWritesReached, type WriteLimiter } from './write-limiter.js';
import { THROTTLE_RETRY_AFTER_SECONDS, type WriteFaults } from '../faults/write-faults.js';
import type { ObjectWriter, WriteRequest } from './writer.js';

export type { WriteMode } from './write-mode.js';

export type WriteVerb = 'create' | 'update' | 'patch' | 'delete' | 'update-status' | 'patch-status' | 'event';

export interface WriteCall {
  verb: WriteVerb;
  obj: KubeObject;
  patch?: unknown;
  options?: PatchOptions;
  /** recordEvent's arguments. */
  event?: { type: string; reason: string; message: string };
}

/** What one write did, for the run's report and the loop detector. */
export interface WriteOutcome {
  verb: WriteVerb;
  resource: string;
  target: string;
  /** Field paths the write changes (empty for a write that changes nothing). */
  changed: string[];
  failed: boolean;
  /**
   * The object keeps metadata.generation (its kind bumps it on spec changes: Deployments, CRDs with a status
   * subresource); a ConfigMap or a Secret does not, and GenerationChangedPredicate would drop every update of it.
   */
  generation?: boolean;
}

/** The run a write belongs to. */
export interface RunRef {
  controller: string;
  key: string;
  writes: WriteOutcome[];
  /** The run passed its --reconcile-timeout: what it still tries to write is refused. */
  expired?: boolean;
}

export interface WriteChannelOptions {
  mode: WriteMode;
  catalog: ResourceCatalog;
  factory: SharedInformerFactory;
  tracer: Tracer;
  clock: Clock;
  overlay?: Overlay;
  /** Needed for server-dry-run and apply. */
  writer?: ObjectWriter;
  /** fieldManager sent when the call names none; default kwatch-<controller>. */
  fieldManager?: string;
  signal?: AbortSignal;
  /** --qps/--burst/--max-writes on writes that are sent (server-dry-run, apply). */
  limiter?: WriteLimiter;
  /** The run must stop: --max-writes was reached. */
  onLimit?: (err: MaxWritesReached) => void;
  /** For generated names (generateName, Events); seeded when replaying a recording, so runs repeat exactly. */
  random?: () => number;
  /** --inject conflict@N, error@N, throttle@N: the Nth write (any verb, in any mode) is answered with the fault. */
  faults?: WriteFaults;
}

export class WriteChannel implements WriteOrigins {
  /** controller → "resource|key|rv" of events its writes produced. */
  private readonly own = new Map<string, Set<string>>();
  /** Each controller's last write per key, for stale-read findings and --read-your-writes. */
  readonly ownWrites = new OwnWrites();
  /** Sent writes whose watch event has not reached the cache yet (--writes apply), by "resource|key". */
  private readonly echoes = new Map<string, { info: ResourceInfo; key: string; rv?: string; deleted: boolean; until: number }>();

  private readonly random: () => number;
  /** Sent writes waiting for their answer. */
  private inFlight = 0;
  /** Events that arrived while writes were in flight, by "resource|rv", to mark own once an answer names them. */
  private readonly early = new Map<string, { controller: string; uid?: string; reasons: TriggerReason[] }>();

  constructor(private readonly o: WriteChannelOptions) {
    this.random = o.random ?? Math.random;
  }

  get mode(): WriteMode {
    return this.o.mode;
  }

  isOwn(controller: string, resource: string, key: string, rv: string | undefined): boolean {
    return rv !== undefined && (this.own.get(controller)?.has(`${resource}|${key}|${rv}`) ?? false);
  }

  claimLater(controller: string, resource: string, uid: string | undefined, rv: string | undefined, reason: TriggerReason): void {
    if (this.inFlight === 0 || rv === undefined) return;
    const id = `${resource}|${rv}`;
    const entry = this.early.get(id);
    if (entry && entry.controller === controller) entry.reasons.push(reason);
    else if (!entry) this.early.set(id, { controller, uid, reasons: [reason] });
    // Bounded: only the events of the last moments can belong to an answer still on its way.
    if (this.early.size > EARLY_EVENTS_KEPT) this.early.delete(this.early.keys().next().value!);
  }

  isLocal(resource: string, rv: string | undefined): boolean {
    return this.o.overlay?.isLocal(resource, rv) ?? false;
  }

  async write(run: RunRef, call: WriteCall): Promise<KubeObject | undefined> {
    if (run.expired) throw new Error(`deadline exceeded: ctx.${verbMethod(call.verb)} after the run's --reconcile-timeout is refused`);
    const obj = call.verb === 'event' ? call.obj : checkObject(call);
    const target = call.verb === 'event' ? eventFor(call, run.controller, this.o.clock.now(), this.random) : obj;
    const info = await this.o.catalog.resolveKind(target.apiVersion!, target.kind!);
    const namespace = info.namespaced ? (target.metadata.namespace ?? splitKey(run.key).namespace) : undefined;
    const local = { ...target, metadata: { ...target.metadata, ...(namespace ? { namespace } : {}) } } as KubeObject;
    const name = local.metadata.name ?? `${local.metadata.generateName ?? ''}${randomSuffix(this.random)}`;
    const key = objectKey(namespace, name);
    const informer = this.o.factory.existing(info)?.informer;
    const known = informer?.hasSynced() ?? false;
    const cached = informer?.getIndexer().getByKey(key);
    const shown = { verb: call.verb, resource: info.name, target: key, mode: this.o.mode };
    const request = wireRequest(call, info, namespace, name, local, this.o.fieldManager ?? `kwatch-${run.controller}`);

    let result: KubeObject | undefined;
    let changed: string[] = [];
    let answer: KubeObject | undefined;
    const sent = this.o.mode === 'server-dry-run' || this.o.mode === 'apply';
    const injected = this.o.faults?.next();
    if (injected) {
      // Answered as a server in trouble would: nothing is applied, overlaid or sent.
      const err = new StatusError(injected.status({ group: info.group, resource: info.resource, name }), injected.kind === 'throttle' ? THROTTLE_RETRY_AFTER_SECONDS : undefined);
      run.writes.push({ ...shown, changed, failed: true });
      this.trace(run, { ...shown, rv: cached?.metadata?.resourceVersion, old: cached, new: local, request, status: statusOf(err), error: err.message, injected: injected.text });
      throw err;
    }
    try {
      try {
        ({ result, changed } = finishDeletion(localResult(call, local, name, cached, info, known, this.o.clock.now()), cached));
      } catch (err) {
        // A sent write is the server's to refuse (its 404/409 with its own words); the cache may be behind.
        if (!sent) throw err;
        changed = ['(the cache disagrees: see the server\'s answer)'];
      }
      if (!sent) {
        answer = result;
        if (this.o.mode === 'overlay' && changed.length > 0) {
          const rv = this.o.overlay?.apply(info, key, result, overlayEdit(call, cached, result), cached);
          if (rv !== undefined) {
            this.remember(run.controller, info.name, key, rv);
            if (call.verb !== 'delete') this.ownWrites.wrote(run.controller, info.name, key, rv);
            if (answer) answer = { ...answer, metadata: { ...answer.metadata, resourceVersion: rv } };
          }
        }
      } else {
        try {
          await this.o.limiter?.take(this.o.signal);
        } catch (err) {
          if (err instanceof MaxWritesReached) this.o.onLimit?.(err);
          throw err;
        }
        this.inFlight++;
        try {
          answer = await this.o.writer!.write({ ...request, dryRun: this.o.mode === 'server-dry-run' }, this.o.signal);
        } finally {
          if (--this.inFlight === 0 && this.o.mode !== 'apply') this.early.clear();
        }
        if (this.o.mode === 'apply') {
          const answered = answer?.metadata?.name ? objectKey(answer.metadata.namespace, answer.metadata.name) : key;
          this.remember(run.controller, info.name, answered, answer?.metadata?.resourceVersion, answer?.metadata?.uid);
          const rv = answer?.metadata?.resourceVersion;
          if (call.verb !== 'delete' && call.verb !== 'event' && rv) this.ownWrites.wrote(run.controller, info.name, answered, rv);
          if (this.inFlight === 0) this.early.clear();
          // The echo comes under the name the server gave (a generateName create), not the one made up locally.
          if (changed.length > 0) this.expectEcho(info, answered, answer, call.verb === 'delete');
        }
      }
    } catch (err) {
      run.writes.push({ ...shown, changed, failed: true });
      this.trace(run, { ...shown, rv: cached?.metadata?.resourceVersion, old: cached, new: result, request, status: statusOf(err), error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
    const generation = (cached ?? answer ?? result)?.metadata?.generation !== undefined;
    run.writes.push({ ...shown, changed, failed: false, ...(generation ? { generation } : {}) });
    this.trace(run, { ...shown, rv: answer?.metadata?.resourceVersion, noop: changed.length === 0 ? true : undefined, changed, old: cached, new: answer ?? result, request });
    return answer === undefined ? undefined : structuredClone(answer);
  }

  /**
   * True while a sent write's own watch event has yet to reach the informer's cache: until then the run is
   * not idle (the write will trigger again). An echo that never comes (the object is outside the watched
   * scope) stops counting after ECHO_WAIT_MS.
   */
  awaitingEchoes(): boolean {
    const now = this.o.clock.now();
    for (const [id, e] of this.echoes) {
      const cached = this.o.factory.existing(e.info)?.informer.getIndexer().getByKey(e.key);
      const arrived = e.deleted ? cached === undefined || cached.metadata.resourceVersion === e.rv : cached !== undefined && e.rv !== undefined && compareResourceVersions(cached.metadata.resourceVersion ?? '0', e.rv) >= 0;
      if (arrived || now > e.until) this.echoes.delete(id);
    }
    return this.echoes.size > 0;
  }

  private expectEcho(info: ResourceInfo, key: string, answer: KubeObject | undefined, deleted: boolean): void {
    if (!this.o.factory.existing(info)) return;
    this.echoes.set(`${info.name}|${key}`, { info, key, rv: answer?.metadata?.resourceVersion, deleted, until: this.o.clock.now() + ECHO_WAIT_MS });
  }

  private remember(controller: string, resource: string, key: string, rv: string | undefined, uid?: string): void {
    if (rv === undefined) return;
    let set = this.own.get(controller);
    if (!set) this.own.set(controller, (set = new Set()));
    set.add(`${resource}|${key}|${rv}`);
    // The write's own event may have come first: mark the reasons it produced.
    const early = this.early.get(`${resource}|${rv}`);
    if (early && early.controller === controller && (early.uid === undefined || uid === undefined || early.uid === uid)) {
      for (const r of early.reasons) r.own = true;
      this.early.delete(`${resource}|${rv}`);
    }
  }

  private trace(run: RunRef, detail: Record<string, unknown>): void {
    if (!this.o.tracer.enabled) return;
    this.o.tracer.emit({ time: this.o.clock.now(), stage: 'reconcile', op: 'write', key: run.key, controller: run.controller, ...detail });
  }
}

/** Events kept while writes are in flight, for marking them own when the answer arrives. */
const EARLY_EVENTS_KEPT = 10_000;

/** How long a sent write may take to come back as a watch event before the run stops waiting for it. */
const ECHO_WAIT_MS = 10_000;

function checkObject(call: WriteCall): KubeObject {
  const obj = call.obj;
  const where = `ctx.${verbMethod(call.verb)}`;
  if (typeof obj !== 'object' || obj === null) throw new TypeError(`${where}: expected a Kubernetes object`);
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') throw new TypeError(`${where}: the object needs apiVersion and kind (they name the resource it is written to)`);
  if (typeof obj.metadata?.name !== 'string' && !(call.verb === 'create' && typeof obj.metadata?.generateName === 'string')) throw new TypeError(`${where}: the object needs metadata.name`);
  return structuredClone(obj);
}

function verbMethod(verb: WriteVerb): string {
  return verb === 'update-status' ? 'updateStatus' : verb === 'patch-status' ? 'patchStatus' : verb === 'event' ? 'recordEvent' : verb;
}

/** The object as the server would store it, and the field paths that differ from the cached one. */
/**
 * The object as the server would store it, and the field paths that differ from the cached one. `known` is
 * false when no synced informer holds the resource: then nothing can be said of what exists (no 404/409), a
 * patch's result is unknown, and the write is reported as changing something.
 */
function localResult(call: WriteCall, obj: KubeObject, name: string, cached: KubeObject | undefined, info: ResourceInfo, known: boolean, now: number): { result?: KubeObject; changed: string[] } {
  const gr = `${info.resource}${info.group ? `.${info.group}` : ''}`;
  const notFound = () => statusError(404, 'NotFound', `${gr} "${name}" not found`, info, name);
  const current = (): KubeObject | undefined => {
    if (!cached && known) throw notFound();
    return cached;
  };
  switch (call.verb) {
    case 'create':
    case 'event': {
      if (cached) throw statusError(409, 'AlreadyExists', `${gr} "${name}" already exists`, info, name);
      return { result: { ...obj, metadata: { ...obj.metadata, name } }, changed: ['(created)'] };
    }
    case 'update': {
      const base = current();
      const rv = obj.metadata.resourceVersion;
      if (base && rv && rv !== base.metadata.resourceVersion) {
        throw statusError(409, 'Conflict', `Operation cannot be fulfilled on ${gr} "${name}": the object has been modified; please apply your changes to the latest version and try again`, info, name);
      }
      return { result: obj, changed: base ? changedPaths(base, obj) : [NOT_CACHED] };
    }
    case 'update-status': {
      const base = current();
      if (!base) return { result: obj, changed: [NOT_CACHED] };
      const result = { ...base, status: obj.status };
      return { result, changed: changedPaths(base, result) };
    }
    case 'patch':
    case 'patch-status': {
      const base = current();
      if (!base) return { result: undefined, changed: [NOT_CACHED] };
      const patched = applyPatch(base, call.patch, call.options?.type ?? 'merge');
      const result = call.verb === 'patch-status' ? { ...base, status: patched.status } : patched;
      return { result, changed: changedPaths(base, result) };
    }
    case 'delete': {
      const base = current();
      // Finalizers hold the object: the API server only marks it deleting (and then again: nothing changes).
      if (base && (base.metadata.finalizers?.length ?? 0) > 0) {
        if (base.metadata.deletionTimestamp) return { result: base, changed: [] };
        const result = { ...base, metadata: { ...base.metadata, deletionTimestamp: new Date(now).toISOString().replace(/\.\d+Z$/, 'Z') } };
        return { result, changed: changedPaths(base, result) };
      }
      return { result: undefined, changed: ['(deleted)'] };
    }
  }
}

/** An object marked deleting whose last finalizer a write removes is gone, as kube-apiserver removes it. */
function finishDeletion(r: { result?: KubeObject; changed: string[] }, cached: KubeObject | undefined): { result?: KubeObject; changed: string[] } {
  const m = r.result?.metadata;
  if (!m?.deletionTimestamp || (m.finalizers?.length ?? 0) > 0 || !cached?.metadata.deletionTimestamp) return r;
  return { result: undefined, changed: [...r.changed, '(deleted: its last finalizer is gone)'] };
}

/** What a write to a resource no synced informer holds is said to change: its effect cannot be computed. */
const NOT_CACHED = '(not in the cache: the resource is not watched)';

/** Field paths as --diff names them (`spec.template.metadata.annotations["x"]`, `status.conditions[type=Ready].status`). */
function changedPaths(from: KubeObject, to: KubeObject): string[] {
  return diffObjects(from, to).map((c) => c.path);
}

function overlayEdit(call: WriteCall, cached: KubeObject | undefined, result: KubeObject | undefined): OverlayEdit {
  if (result === undefined) return { type: 'delete' };
  if (!cached) return { type: 'object', obj: result };
  // Kept as a merge patch against what was cached, so later server versions keep their other changes.
  const patch = createMergePatch(cached, result) as Record<string, unknown>;
  if (typeof patch.metadata === 'object' && patch.metadata !== null) delete (patch.metadata as Record<string, unknown>).resourceVersion;
  return { type: 'merge', patch };
}

/** The request the write is (or would be) on the wire: what -o json/ndjson shows. */
function wireRequest(call: WriteCall, info: ResourceInfo, namespace: string | undefined, name: string, obj: KubeObject, defaultManager: string): Omit<WriteRequest, 'dryRun'> {
  const fieldManager = call.options?.fieldManager ?? defaultManager;
  const base = { resource: info, namespace, name, fieldManager };
  switch (call.verb) {
    case 'create':
    case 'event':
      return { ...base, verb: 'create', body: obj };
    case 'update':
      return { ...base, verb: 'update', body: obj };
    case 'update-status':
      return { ...base, verb: 'update', body: obj, subresource: 'status' };
    case 'patch':
    case 'patch-status':
      return { ...base, verb: 'patch', body: call.patch, patchType: call.options?.type ?? 'merge', force: call.options?.force, subresource: call.verb === 'patch-status' ? 'status' : undefined };
    case 'delete':
      return { ...base, verb: 'delete', body: { apiVersion: 'v1', kind: 'DeleteOptions', ...(obj.metadata.uid ? { preconditions: { uid: obj.metadata.uid } } : {}) } };
  }
}

/** A core/v1 Event about obj, as client-go's record.EventRecorder writes one. */
function eventFor(call: WriteCall, controller: string, now: number, random: () => number): KubeObject {
  const { obj } = call;
  const { type, reason, message } = call.event ?? { type: 'Normal', reason: '', message: '' };
  const time = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${obj.metadata?.name ?? 'object'}.${now.toString(16)}${randomSuffix(random)}`, namespace: obj.metadata?.namespace ?? 'default' },
    involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata?.name, namespace: obj.metadata?.namespace, uid: obj.metadata?.uid, resourceVersion: obj.metadata?.resourceVersion },
    type,
    reason,
    message,
    source: { component: controller },
    reportingComponent: controller,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

function randomSuffix(random: () => number): string {
  // kube's generateName suffix: 5 characters from a consonant-and-digit alphabet.
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from({ length: 5 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
}

function statusError(code: number, reason: string, message: string, info: ResourceInfo, name: string): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details: { name, group: info.group, kind: info.resource }, code };
  return new StatusError(status);
}

function statusOf(err: unknown): { code: number; reason?: string; message?: string } | undefined {
  return err instanceof StatusError ? { code: err.status.code, reason: err.status.reason, message: err.status.message } : undefined;
}
