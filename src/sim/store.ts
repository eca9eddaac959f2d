// The revisioned object store: one global resourceVersion, per-collection sorted tables, change fan-out to watchers, snapshots at past revisions.
import type { SimApi, SimObject, SimResourceRef } from './api.js';
import { SimApiError } from './api.js';
import { History, StoredObject, withResourceVersion, type Change, type ChangeType, type ObjectSummary } from './history.js';
import { ResourceRegistry, resourceId, type ResourceType } from './registry.js';
import { checkDeletePreconditions, type DeletePreconditions } from './delete-preconditions.js';
import { alreadyExists, badRequest, conflict, invalid, notFound } from './status.js';
import { applyCreateDefaults, applyWriteDefaults, clone, generateName, jsonEqual, kubeTime, newUid, normalizeObject, tracksGeneration, validateName } from './object-meta.js';
import { crdResourceTypes, prepareCrd } from './crd.js';
import { isJobType, prepareJobForCreate } from './job-strategy.js';
import { selectableFields } from './field-selector.js';
import type { DefaultsContext } from './defaults/index.js';
import { indexServices, type ServiceAddressIndex } from './defaults/service-addresses.js';

/** Receives every change of one collection, synchronously, in revision order. */
export interface StoreWatcher {
  onChange(change: Change): void;
  /** The collection went away (its CRD was deleted). */
  onGone?(): void;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** "status": only status changes are kept; undefined on a type with a status subresource over HTTP: status changes are dropped. */
  subresource?: 'status' | 'main' | 'finalize';
  /**
   * Only for the delete path (controllers/graceful-delete.ts): sets metadata.deletionTimestamp and
   * deletionGracePeriodSeconds, which no client write can set or change (kube's rest.BeforeUpdate keeps the stored ones).
   */
  deletion?: { timestamp: string; gracePeriodSeconds?: number };
  /**
   * Client writes over HTTP only (managed-fields/): sets next.metadata.managedFields from the stored object (undefined
   * on create) and the object about to be stored, and may refuse the write (apply conflicts). In-process writes pass
   * none and keep whatever managedFields they bring.
   */
  fields?: (prev: SimObject | undefined, next: SimObject) => void;
  /**
   * Client writes over HTTP only (validation/): sees the stored object (undefined on create) and the object about to
   * be stored, and throws kube's 422 to refuse it. In-process writes (controllers, the workload) pass none.
   */
  validate?: (prev: SimObject | undefined, next: SimObject) => void;
  /** The subresource a client wrote through (`resize`), when it is not what `subresource` stores: admission reads it. */
  through?: string;
}

/** Sees every committed change of every collection, after its watchers; must not write (it runs inside the write). */
export type CommitListener = (change: Change, type: ResourceType) => void;

/** Admission on create (the controllers' NamespaceLifecycle): throws to refuse `obj` in `namespace`. */
export type CreateAdmission = (type: ResourceType, obj: SimObject, namespace: string) => void;

/** Admission of the object about to be stored, after defaults and validation (ResourceQuota); `prev` on update. */
export type StoredAdmission = (type: ResourceType, next: SimObject, prev: SimObject | undefined, dryRun: boolean, through?: string) => void;

export interface DeleteOptions extends WriteOptions {
  preconditions?: DeletePreconditions;
}

/** A consistent, immutable view of one collection at a revision, sorted by storage key. */
export interface Snapshot {
  readonly rv: number;
  readonly keys: readonly string[];
  readonly objects: readonly StoredObject[];
}

/**
 * One collection's current state. Keys are kept sorted lazily: inserts and removals are buffered and merged into the
 * sorted array on the next read (one sort of the few new keys plus a linear merge), so bulk loads stay O(n log n).
 */
class Table {
  readonly objects = new Map<string, StoredObject>();
  readonly watchers = new Set<StoreWatcher>();
  private sorted: string[] = [];
  private added = new Set<string>();
  private removed = new Set<string>();
  constructor(readonly type: ResourceType) {}

  get keys(): string[] {
    if (this.added.size === 0 && this.removed.size === 0) return this.sorted;
    const base = this.removed.size ? this.sorted.filter((k) => !this.removed.has(k)) : this.sorted;
    const adds = [...this.added].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const out: string[] = new Array(base.length + adds.length);
    let i = 0, j = 0, o = 0;
    while (i < base.length && j < adds.length) out[o++] = base[i] < adds[j] ? base[i++] : adds[j++];
    while (i < base.length) out[o++] = base[i++];
    while (j < adds.length) out[o++] = adds[j++];
    this.sorted = out;
    this.added.clear();
    this.removed.clear();
    return out;
  }

  insertKey(key: string): void {
    // Removed and re-added before a read: it is still in the sorted array.
    if (!this.removed.delete(key)) this.added.add(key);
  }

  removeKey(key: string): void {
    if (!this.added.delete(key)) this.removed.add(key);
  }

  /** Adopts another table's contents (the type object changed, e.g. a CRD update). */
  adopt(from: Table): void {
    for (const [k, v] of from.objects) this.objects.set(k, v);
    this.sorted = from.keys.slice();
    for (const w of from.watchers) this.watchers.add(w);
  }
}

/** First index whose element is >= key. */
export function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

export function storageKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export interface SimStoreOptions {
  historyEvents?: number;
  historyMs?: number;
  /** First revision handed out is startRevision + 1. */
  startRevision?: number;
  now?: () => number;
}

export class SimStore implements SimApi {
  readonly registry = new ResourceRegistry();
  readonly history: History;
  private readonly tables = new Map<string, Table>();
  private rev: number;
  private readonly now: () => number;
  private readonly snapshots = new Map<string, Snapshot>();
  private revisionWaiters: { rv: number; resolve: () => void }[] = [];
  private commitListeners: CommitListener[] = [];
  /** Set while the controllers run: refuses new content in a terminating namespace. */
  admitCreate: CreateAdmission | undefined;
  /** Set while the controllers run: quota admission of every create and update. */
  admitStored: StoredAdmission | undefined;
  /**
   * Set while the controllers run: a promise while writes admission made for the writes so far (quota status, batched
   * per turn) are not stored yet. The API answers a write only after them, as kube's admission does.
   */
  admissionWrites: (() => Promise<void> | undefined) | undefined;
  /** What defaulting reads from the store (defaults/): the other services' cluster IPs and node ports. */
  private serviceAddresses: ServiceAddressIndex | undefined;
  private readonly defaultsContext: DefaultsContext = {
    takenServiceAddresses: (except) => (this.serviceAddresses ??= indexServices(this)).taken(except),
  };

  private lastSecond = { second: Number.NaN, text: '' };

  constructor(opts: SimStoreOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.history = new History({ maxEvents: opts.historyEvents, maxAgeMs: opts.historyMs, now: this.now });
    this.rev = opts.startRevision ?? 1;
    this.history.startAt(this.rev);
  }

  // ---- SimApi ----

  create(ref: SimResourceRef, obj: SimObject): SimObject { return this.createObject(this.resolve(ref), obj); }
  update(ref: SimResourceRef, obj: SimObject): SimObject { return this.updateObject(this.resolve(ref), obj); }
  delete(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject { return this.deleteObject(this.resolve(ref), namespace, name); }
  /** A fresh copy of the stored object (the caller may change it). */
  get(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject | undefined {
    return this.getStored(this.resolve(ref), namespace, name)?.obj;
  }
  /** Fresh copies of the stored objects, in key order. */
  list(ref: SimResourceRef, namespace?: string): SimObject[] {
    const t = this.table(this.resolve(ref));
    const keys = t.keys;
    const [from, to] = this.range(keys, namespace);
    const out: SimObject[] = new Array(to - from);
    for (let i = from; i < to; i++) out[i - from] = t.objects.get(keys[i])!.obj;
    return out;
  }
  currentRevision(): number { return this.rev; }

  /** kubeTime of now, rendered once per second (populate creates 100k objects within a few). */
  private creationTime(): string {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.lastSecond.second) this.lastSecond = { second, text: kubeTime(new Date(second * 1000)) };
    return this.lastSecond.text;
  }

  // ---- lookups ----

  resolve(ref: SimResourceRef): ResourceType {
    const t = this.registry.lookup(ref.group, ref.version, ref.resource);
    if (!t) throw notFound(ref.resource, ref.group, '');
    return t;
  }

  private table(type: ResourceType): Table {
    const id = resourceId(type);
    let t = this.tables.get(id);
    if (!t || t.type !== type) {
      const fresh = new Table(type);
      if (t) fresh.adopt(t);
      t = fresh;
      this.tables.set(id, t);
    }
    return t;
  }

  getStored(type: ResourceType, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.table(type).objects.get(storageKey(type.namespaced ? namespace : undefined, name));
  }

  /** Number of objects in a collection (all namespaces). */
  count(type: ResourceType): number { return this.table(type).keys.length; }

  /** The current stored objects of one namespace (or all), in key order, unparsed (controllers read summaries first). */
  storedIn(type: ResourceType, namespace?: string): StoredObject[] {
    const t = this.table(type);
    const keys = t.keys;
    const [from, to] = this.range(keys, type.namespaced ? namespace : undefined);
    const out: StoredObject[] = new Array(to - from);
    for (let i = from; i < to; i++) out[i - from] = t.objects.get(keys[i])!;
    return out;
  }

  /** [from, to) indexes of the keys of one namespace (or all). */
  range(keys: readonly string[], namespace: string | undefined): [number, number] {
    if (!namespace) return [0, keys.length];
    // "ns/" … "ns0": '0' is the character after '/'.
    return [lowerBound(keys, `${namespace}/`), lowerBound(keys, `${namespace}0`)];
  }

  // ---- writes ----

  /**
   * Creates an object. Answers the object as stored (the caller may keep it: the store keeps only its JSON and a summary
   * of it, never the object itself), or for a dry run the object that would have been stored.
   */
  createObject(type: ResourceType, input: SimObject, opts: WriteOptions = {}): SimObject {
    if (!input || typeof input !== 'object' || (input.metadata !== undefined && (typeof input.metadata !== 'object' || input.metadata === null))) {
      throw badRequest('the object provided is unrecognized');
    }
    const obj = ownCopy(type, input);
    const meta = obj.metadata;
    validateName(type, meta.name, meta.generateName);
    const namespace = type.namespaced ? meta.namespace || 'default' : undefined;
    if (type.namespaced) {
      meta.namespace = namespace;
      if (!this.getStored(this.resolve({ group: '', version: 'v1', resource: 'namespaces' }), undefined, namespace!)) throw notFound('namespaces', '', namespace!);
      this.admitCreate?.(type, obj, namespace!);
    } else {
      delete meta.namespace;
    }
    if (!meta.name) meta.name = generateName(meta.generateName!);
    const t = this.table(type);
    const key = storageKey(namespace, meta.name);
    const existing = t.objects.get(key);
    if (existing) throw beingDeleted(existing, alreadyExists(type.resource, type.group, meta.name));
    meta.uid = newUid();
    meta.creationTimestamp = this.creationTime();
    // Reserve the key's place in Go struct order; commit() fills the value.
    meta.resourceVersion = '';
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (tracksGeneration(type)) meta.generation = 1; else delete meta.generation;
    applyCreateDefaults(type, obj, this.defaultsContext);
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') prepareCrd(obj, undefined);
    if (isJobType(type)) prepareJobForCreate(obj);
    opts.fields?.(undefined, obj);
    const out = normalizeObject(type, obj);
    opts.validate?.(undefined, out);
    this.admitStored?.(type, out, undefined, opts.dryRun === true);
    if (opts.dryRun) {
      delete out.metadata.resourceVersion;
      return out;
    }
    this.commit(t, key, namespace ?? '', out, 'ADDED', undefined);
    this.afterWrite(type, out);
    return out;
  }

  updateObject(type: ResourceType, input: SimObject, opts: WriteOptions = {}): SimObject {
    const obj = input && typeof input === 'object' ? ownCopy(type, input) : input;
    const meta = obj?.metadata;
    if (!meta || !meta.name) throw invalid(type.kind, type.group, '', [{ field: 'metadata.name', type: 'Required value', detail: 'name is required' }]);
    const namespace = type.namespaced ? meta.namespace || 'default' : undefined;
    const t = this.table(type);
    const key = storageKey(namespace, meta.name);
    const old = t.objects.get(key);
    if (!old) throw notFound(type.resource, type.group, meta.name);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== String(old.rv)) {
      throw conflict(type.resource, type.group, meta.name);
    }
    if (meta.uid && meta.uid !== old.meta.uid) {
      throw conflict(type.resource, type.group, meta.name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.meta.uid}`);
    }
    // The stored object, parsed: a private copy.
    const prev = old.obj;
    // Immutable metadata comes from the stored object.
    meta.namespace = namespace;
    if (!type.namespaced) delete meta.namespace;
    meta.uid = old.meta.uid;
    meta.creationTimestamp = prev.metadata.creationTimestamp;
    const deleting = prev.metadata.deletionTimestamp !== undefined;
    if (deleting) checkNoNewFinalizers(type, meta.name, prev, obj);
    // Deletion metadata changes only through the delete path; an update keeps the stored values.
    const deletion = opts.deletion ?? (deleting ? { timestamp: prev.metadata.deletionTimestamp!, gracePeriodSeconds: prev.metadata.deletionGracePeriodSeconds as number | undefined } : undefined);
    if (deletion) {
      meta.deletionTimestamp = deletion.timestamp;
      if (deletion.gracePeriodSeconds === undefined) delete meta.deletionGracePeriodSeconds; else meta.deletionGracePeriodSeconds = deletion.gracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    meta.resourceVersion = String(old.rv);
    if (opts.subresource === 'status') {
      // Status writes keep everything but status (and, like kube, labels/annotations stay as stored).
      const next: SimObject = { ...prev, metadata: { ...prev.metadata } };
      if (opts.deletion) { next.metadata.deletionTimestamp = meta.deletionTimestamp; next.metadata.deletionGracePeriodSeconds = meta.deletionGracePeriodSeconds; }
      next.status = obj.status;
      return this.finishUpdate(t, type, key, namespace, old, prev, next, opts);
    }
    if (opts.subresource === 'main' && type.hasStatusSubresource) obj.status = prev.status;
    applyWriteDefaults(type, obj, prev, this.defaultsContext);
    if (type.group === '' && type.resource === 'namespaces' && opts.subresource !== undefined) keepNamespaceFinalizers(prev, obj, opts.subresource === 'finalize');
    return this.finishUpdate(t, type, key, namespace, old, prev, obj, opts);
  }

  private finishUpdate(t: Table, type: ResourceType, key: string, namespace: string | undefined, old: StoredObject, prev: SimObject, obj: SimObject, opts: WriteOptions): SimObject {
    // The last finalizer of an object whose deletion is due went away: the update becomes the delete (kube's
    // ShouldDeleteDuringUpdate). The DELETED event carries the stored state; the caller gets the object it sent.
    if (shouldDeleteDuringUpdate(prev, obj)) {
      if (!opts.dryRun) this.deleteStored(type, namespace, prev.metadata.name!);
      return obj;
    }
    if (tracksGeneration(type)) {
      const gen = Number(prev.metadata.generation ?? 1);
      // Marking an object for deletion bumps its generation once, as kube's markAsDeleting / BeforeDelete do.
      const marked = opts.deletion !== undefined && prev.metadata.deletionTimestamp === undefined;
      obj.metadata.generation = specChanged(prev, obj) || marked ? gen + 1 : gen;
    } else {
      delete obj.metadata.generation;
    }
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') prepareCrd(obj, prev);
    opts.fields?.(prev, obj);
    const next = normalizeObject(type, obj);
    opts.validate?.(prev, next);
    // A no-op write changes nothing: no revision, no event (etcd's GuaranteedUpdate compares bytes).
    if (jsonEqual(next, prev)) return prev;
    this.admitStored?.(type, next, prev, opts.dryRun === true, opts.through);
    if (opts.dryRun) return next;
    this.commit(t, key, namespace ?? '', next, 'MODIFIED', old, opts.subresource === 'status');
    this.afterWrite(type, next);
    return next;
  }

  deleteObject(type: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): SimObject {
    return this.deleteStored(type, namespace, name, opts).obj;
  }

  /** Deletes an object; answers its last state carrying the deletion revision (for a dry run: the stored state). */
  deleteStored(type: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): StoredObject {
    const t = this.table(type);
    const ns = type.namespaced ? namespace || 'default' : undefined;
    const key = storageKey(ns, name);
    const old = t.objects.get(key);
    if (!old) throw notFound(type.resource, type.group, name);
    checkDeletePreconditions(type, name, old, opts.preconditions);
    if (opts.dryRun) return old;
    if (type.resource === 'namespaces' && type.group === '') this.emptyNamespace(name);
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') this.dropCustomResources(name);
    const rv = this.rev + 1;
    // The JSON is shared with nothing else but carries the new revision; the summary is the old one.
    const cur = new StoredObject(key, withResourceVersion(old.json, rv), rv, old.meta);
    this.commitChange(t, key, ns ?? '', cur, 'DELETED', old);
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') this.registry.setCrdTypes(name, []);
    return cur;
  }

  /**
   * Stores an object as another server sent it (kwatch's copy-on-write fork of a cluster, src/endpoint/fork.ts): its
   * uid, creationTimestamp, generation and every other field kept, only the resourceVersion this store's own. No
   * defaulting, validation or admission: the other server did those. Answers the change type, or undefined when the
   * stored object already equals it.
   */
  putMirrored(type: ResourceType, input: SimObject): 'ADDED' | 'MODIFIED' | undefined {
    const obj = ownCopy(type, input);
    const meta = obj.metadata;
    const namespace = type.namespaced ? meta.namespace || 'default' : undefined;
    const t = this.table(type);
    const key = storageKey(namespace, meta.name ?? '');
    const old = t.objects.get(key);
    meta.resourceVersion = old ? String(old.rv) : '';
    if (old && jsonEqual(obj, old.obj)) return undefined;
    this.commit(t, key, namespace ?? '', obj, old ? 'MODIFIED' : 'ADDED', old);
    return old ? 'MODIFIED' : 'ADDED';
  }

  /** Removes a mirrored object the other server deleted (no finalizers, no cascade: the other server ran those); false when absent. */
  deleteMirrored(type: ResourceType, namespace: string | undefined, name: string): boolean {
    const t = this.table(type);
    const ns = type.namespaced ? namespace || 'default' : undefined;
    const key = storageKey(ns, name);
    const old = t.objects.get(key);
    if (!old) return false;
    const cur = new StoredObject(key, withResourceVersion(old.json, this.rev + 1), this.rev + 1, old.meta);
    this.commitChange(t, key, ns ?? '', cur, 'DELETED', old);
    return true;
  }

  /** Deletes every namespaced object in a namespace (the namespace controller's job, done at once). */
  private emptyNamespace(ns: string): void {
    for (const type of this.registry.all()) {
      if (!type.namespaced) continue;
      const t = this.table(type);
      const [from, to] = this.range(t.keys, ns);
      for (const key of t.keys.slice(from, to)) this.deleteStored(type, ns, key.slice(ns.length + 1));
    }
  }

  private dropCustomResources(crdName: string): void {
    for (const type of this.registry.all()) {
      if (type.crd !== crdName) continue;
      const t = this.table(type);
      for (const key of [...t.keys]) {
        const o = t.objects.get(key)!;
        this.deleteStored(type, o.meta.namespace, o.meta.name);
      }
      for (const w of t.watchers) w.onGone?.();
      t.watchers.clear();
    }
  }

  private afterWrite(type: ResourceType, obj: SimObject): void {
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') {
      this.registry.setCrdTypes(obj.metadata.name!, crdResourceTypes(obj));
    }
  }

  /** Stores `obj` at the next revision: serialised once; the object itself is not kept. */
  private commit(t: Table, key: string, namespace: string, obj: SimObject, type: ChangeType, prev: StoredObject | undefined, statusOnly = false): StoredObject {
    const rv = this.rev + 1;
    obj.metadata.resourceVersion = String(rv);
    const cur = new StoredObject(key, flat(JSON.stringify(obj)), rv, summarize(t.type, obj));
    this.commitChange(t, key, namespace, cur, type, prev, statusOnly);
    return cur;
  }

  private commitChange(t: Table, key: string, namespace: string, cur: StoredObject, type: ChangeType, prev: StoredObject | undefined, statusOnly = false): void {
    this.rev = cur.rv;
    if (type === 'DELETED') { t.objects.delete(key); t.removeKey(key); }
    else { if (!prev) t.insertKey(key); t.objects.set(key, cur); }
    const change: Change = { rv: cur.rv, type, resId: resourceId(t.type), key, namespace, cur, prev, time: this.now(), statusOnly };
    this.history.append(change);
    for (const w of t.watchers) w.onChange(change);
    for (const l of this.commitListeners) l(change, t.type);
    if (this.revisionWaiters.length) this.wakeWaiters();
  }

  /** Calls `listener` with every later change (see CommitListener); returns the unsubscribe function. */
  onCommit(listener: CommitListener): () => void {
    this.commitListeners = [...this.commitListeners, listener];
    return () => { this.commitListeners = this.commitListeners.filter((l) => l !== listener); };
  }

  // ---- reads at revisions ----

  /**
   * The collection as it was at revision `rv` (>= compactedRevision, <= current): the current table with the
   * history after `rv` undone. Built once per (collection, revision) and cached, so every page of a paged list reads
   * the same snapshot.
   */
  snapshot(type: ResourceType, rv: number): Snapshot {
    const id = `${resourceId(type)}@${rv}`;
    const cached = this.snapshots.get(id);
    if (cached) return cached;
    const t = this.table(type);
    let keys: string[];
    let objects: StoredObject[];
    const later = rv >= this.rev ? [] : this.history.since(rv).filter((c) => c.resId === resourceId(type));
    if (later.length === 0) {
      keys = t.keys.slice();
      objects = keys.map((k) => t.objects.get(k)!);
    } else {
      // Undo newest-first; the oldest change after rv has the final say about each key.
      const overlay = new Map<string, StoredObject | null>();
      for (let i = later.length - 1; i >= 0; i--) {
        const c = later[i];
        overlay.set(c.key, c.type === 'ADDED' ? null : c.prev ?? null);
      }
      const set = new Set<string>();
      keys = [];
      for (const k of t.keys) if (!overlay.has(k)) { keys.push(k); set.add(k); }
      for (const [k, v] of overlay) if (v) keys.push(k);
      keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      objects = keys.map((k) => (overlay.has(k) ? overlay.get(k)! : t.objects.get(k)!));
    }
    const snap: Snapshot = { rv, keys, objects };
    this.snapshots.set(id, snap);
    // A handful of recent snapshots serve concurrent paged lists; older ones are rebuilt if needed.
    if (this.snapshots.size > 8) this.snapshots.delete(this.snapshots.keys().next().value!);
    return snap;
  }

  /** Watch one collection; returns the unsubscribe function. Registration is synchronous with the caller's initial read. */
  watch(type: ResourceType, w: StoreWatcher): () => void {
    const t = this.table(type);
    t.watchers.add(w);
    return () => { this.table(type).watchers.delete(w); };
  }

  watcherCount(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.watchers.size;
    return n;
  }

  /** Resolves true once the store reaches `rv`, false after `ms`. */
  waitForRevision(rv: number, ms: number): Promise<boolean> {
    if (this.rev >= rv) return Promise.resolve(true);
    return new Promise((resolve) => {
      const entry = { rv, resolve: () => { clearTimeout(timer); resolve(true); } };
      const timer = setTimeout(() => {
        this.revisionWaiters = this.revisionWaiters.filter((x) => x !== entry);
        resolve(false);
      }, ms);
      this.revisionWaiters.push(entry);
    });
  }

  private wakeWaiters(): void {
    const ready = this.revisionWaiters.filter((w) => w.rv <= this.rev);
    if (!ready.length) return;
    this.revisionWaiters = this.revisionWaiters.filter((w) => w.rv > this.rev);
    for (const w of ready) w.resolve();
  }

  /** Compacts all history now: every older revision becomes unavailable. */
  compact(): void {
    this.history.compact(this.rev);
    this.snapshots.clear();
  }

  /** Applies the age bound of the history (called by a timer). */
  trimHistory(): void {
    this.history.trim();
    for (const [id, s] of this.snapshots) if (s.rv < this.history.compactedRevision) this.snapshots.delete(id);
  }

  /** Per-collection object counts, for the state endpoint. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, t] of this.tables) if (t.keys.length) out[id] = t.keys.length;
    return out;
  }
}

/** The summary of an object about to be stored; it shares nothing mutable with the object. */
function summarize(type: ResourceType, obj: SimObject): ObjectSummary {
  const m = obj.metadata;
  const labels = m.labels && typeof m.labels === 'object' ? { ...m.labels } : undefined;
  return { name: m.name!, namespace: m.namespace, uid: m.uid!, labels, fields: sameShape(selectableFields(obj, type.kind, type.group)) };
}

/**
 * A copy built key by key from an empty literal: objects of one kind then share one hidden class (the spread-built
 * originals get one each, several hundred bytes per stored object).
 */
function sameShape(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in fields) out[k] = fields[k];
  return out;
}

const FLATTEN = /^\{/;

/**
 * JSON.stringify answers a rope of a dozen or so pieces; a regular expression test makes V8 flatten it into one string
 * now (once, while young) rather than keep the pieces for the object's lifetime and flatten on the first read.
 */
function flat(json: string): string {
  FLATTEN.test(json);
  return json;
}

/**
 * The copy of a written object the store may change: top level and metadata are copied (they are all the store
 * mutates), nested values are shared — stored objects are never mutated, and callers must not mutate what they wrote.
 * CRDs, whose spec gets defaulted, are copied deeply.
 */
function ownCopy(type: ResourceType, input: SimObject): SimObject {
  if (type.resource === 'customresourcedefinitions') return clone(input);
  const obj: SimObject = { ...input, metadata: { ...(input.metadata ?? {}) } };
  if (obj.metadata.labels) obj.metadata.labels = { ...obj.metadata.labels };
  return obj;
}

/** A change outside metadata and status bumps metadata.generation. */
function specChanged(a: SimObject, b: SimObject): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'metadata' || k === 'status' || k === 'kind' || k === 'apiVersion') continue;
    if (!jsonEqual(a[k], b[k])) return true;
  }
  return false;
}

/**
 * kube's ShouldDeleteDuringUpdate: no finalizers left, deletion requested, no grace period pending; for a namespace
 * (ShouldDeleteNamespaceDuringUpdate) spec.finalizers must be empty too.
 */
function shouldDeleteDuringUpdate(prev: SimObject, next: SimObject): boolean {
  if (prev.metadata.deletionTimestamp === undefined) return false;
  if (prev.kind === 'Namespace' && prev.apiVersion === 'v1') {
    const spec = next.spec as { finalizers?: unknown } | undefined;
    if (Array.isArray(spec?.finalizers) && spec.finalizers.length > 0) return false;
  }
  const finalizers = next.metadata.finalizers;
  if (Array.isArray(finalizers) && finalizers.length > 0) return false;
  const grace = prev.metadata.deletionGracePeriodSeconds;
  return grace === undefined || grace === 0;
}

/**
 * The namespace strategies: a client's update or status write keeps spec.finalizers as stored (only the finalize
 * subresource changes them), and a finalize write keeps the stored status.
 */
function keepNamespaceFinalizers(prev: SimObject, next: SimObject, finalize: boolean): void {
  if (finalize) { next.status = prev.status; return; }
  const finalizers = (prev.spec as { finalizers?: unknown } | undefined)?.finalizers;
  const spec = { ...((next.spec as Record<string, unknown> | undefined) ?? {}) };
  if (finalizers === undefined) delete spec.finalizers; else spec.finalizers = finalizers;
  next.spec = spec;
}

/** ValidateObjectMetaUpdate: an object being deleted may lose finalizers but never gain one. */
function checkNoNewFinalizers(type: ResourceType, name: string, prev: SimObject, next: SimObject): void {
  const old = new Set(Array.isArray(prev.metadata.finalizers) ? prev.metadata.finalizers as string[] : []);
  const added = (Array.isArray(next.metadata.finalizers) ? next.metadata.finalizers as string[] : []).filter((f) => !old.has(f));
  if (added.length === 0) return;
  throw invalid(type.kind, type.group, name, [{ field: 'metadata.finalizers', type: 'Forbidden', detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}` }]);
}

/** kube prefixes AlreadyExists with "object is being deleted: " when the name is held by an object on its way out. */
function beingDeleted(existing: StoredObject, err: SimApiError): SimApiError {
  if (!existing.json.includes('"deletionTimestamp"') || existing.obj.metadata.deletionTimestamp === undefined) return err;
  return new SimApiError({ ...err.status, message: `object is being deleted: ${err.status.message}` });
}

export { SimApiError };
