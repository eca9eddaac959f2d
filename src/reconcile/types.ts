// The public shape of a user's controller module: what `kwatch reconcile --with FILE` loads and what
// it hands to the user's reconcile function. Users import these types from 'kwatch'.
import type { KubeObject } from '../informer/types.js';

export type { KubeObject } from '../informer/types.js';

/** Why a run happened: one trigger merged into it (kube-rs's ReconcileReason, with the event that caused it). */
export interface ReconcileReason {
  /** 'object updated' | 'object deleted' | 'related object updated' | 'related object deleted' | 'reconciler requested retry' | 'error policy requested retry' | 'error backoff' | 'resync' | 'initial' */
  reason: string;
  /**
   * The same reason in kube-rs's words (its ReconcileReason as logged): object updated, related object updated,
   * reconciler requested retry, error policy requested retry, bulk reconcile requested, unknown.
   */
  kubeRs?: string;
  /** The informer event behind it (OnAdd, OnUpdate, OnDelete) when there was one. */
  op?: string;
  /** The resource of the object that triggered (kubectl's spelling: pods, replicasets.apps). */
  resource?: string;
  /** namespace/name of the object that triggered. */
  key?: string;
  rv?: string;
  /** The event came from a write of this run's own controller (overlay's local events, or a sent write). */
  own?: boolean;
  /** The event was made locally by --writes overlay, not sent by the server. */
  local?: boolean;
  /** Epoch ms when the trigger was seen. */
  time?: number;
}

export interface ReconcileRequest {
  namespace?: string;
  name: string;
  /** Every trigger merged into this run, oldest first. */
  reasons: readonly ReconcileReason[];
}

/** What reconcile returns: nothing or {} waits for the next change (kube-rs await_change). */
export type ReconcileAction = void | undefined | { requeue?: boolean; requeueAfter?: string | number };

export interface ObjectRef {
  namespace?: string;
  name: string;
}

export interface ListQuery {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** An index of the informer: 'namespace' (built in), or one the module declares. */
  index?: { name: string; value: string };
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface PatchOptions {
  type?: PatchType;
  fieldManager?: string;
  force?: boolean;
}

/** A write's outcome as the reconciler sees it: the object the write produced (or would produce). */
export type WriteResult = KubeObject | undefined;

/** What reconcile reads and writes through (controller-runtime's client over the informer cache). */
export interface ReconcileContext {
  /** The cached object, or undefined; starts (and waits for) a shared informer for a kind not watched yet. */
  get<T extends KubeObject = KubeObject>(resource: string, ref: ObjectRef): Promise<T | undefined>;
  list<T extends KubeObject = KubeObject>(resource: string, query?: ListQuery): Promise<T[]>;
  create(obj: KubeObject): Promise<WriteResult>;
  update(obj: KubeObject): Promise<WriteResult>;
  patch(obj: KubeObject, patch: unknown, options?: PatchOptions): Promise<WriteResult>;
  delete(obj: KubeObject): Promise<void>;
  updateStatus(obj: KubeObject): Promise<WriteResult>;
  patchStatus(obj: KubeObject, patch: unknown, options?: PatchOptions): Promise<WriteResult>;
  /**
   * controller-runtime's controllerutil.AddFinalizer/RemoveFinalizer, written at once as a patch of
   * metadata.finalizers (with obj's resourceVersion: a stale obj conflicts); no write when nothing changes.
   * Returns the object as written. Under --writes overlay a delete of an object with finalizers only marks
   * it deleting (deletionTimestamp) until the last one is removed, as kube-apiserver does.
   */
  addFinalizer(obj: KubeObject, name: string): Promise<KubeObject>;
  removeFinalizer(obj: KubeObject, name: string): Promise<KubeObject>;
  /** An Event about obj (core/v1 Event), written like every other write. */
  recordEvent(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  /** A line in the trace under this run's key. */
  log(...args: unknown[]): void;
  /** The controller's name. */
  readonly controller: string;
  /** Aborted when kwatch stops. */
  readonly signal: AbortSignal;
}

export type ReconcileFn = (req: ReconcileRequest, ctx: ReconcileContext) => ReconcileAction | Promise<ReconcileAction>;
export type ErrorPolicyFn = (err: unknown, req: ReconcileRequest, ctx: ReconcileContext) => ReconcileAction | Promise<ReconcileAction>;

/** Synchronous reads of the caches the controller already has (for `watches` map functions). */
export interface CacheReader {
  get<T extends KubeObject = KubeObject>(resource: string, ref: ObjectRef): T | undefined;
  list<T extends KubeObject = KubeObject>(resource: string, query?: ListQuery): T[];
}

/** What a predicate sees of an informer event (controller-runtime's event.*Event). */
export interface PredicateEvent {
  type: 'create' | 'update' | 'delete';
  object: KubeObject;
  /** The previous object, on update. */
  oldObject?: KubeObject;
}

/**
 * An event filter: one of controller-runtime's built-ins by name (they filter updates; creates and deletes
 * pass), or a function returning true to let the event through.
 */
export type Predicate = 'GenerationChanged' | 'ResourceVersionChanged' | 'LabelChanged' | 'AnnotationChanged' | ((event: PredicateEvent) => boolean);

/** An owned resource with its own predicates (all must pass). */
export interface OwnsSpec {
  resource: string;
  predicates?: Predicate[];
}

export interface WatchSpec {
  resource: string;
  /** Event filters for this source (all must pass). */
  predicates?: Predicate[];
  /**
   * Which primary objects to reconcile when obj changes (controller-runtime's EnqueueRequestsFromMapFunc).
   * `cache` reads the resources the controller watches (its `for`, `owns` and `watches`), synchronously.
   */
  map(obj: KubeObject, cache: CacheReader): ObjectRef[] | ObjectRef | undefined | null;
}

/** What the cache holds of one resource (controller-runtime's cache.Options.ByObject). */
export interface CacheEntry {
  /** Only these namespaces (within -n when the command line names one). */
  namespaces?: string[];
  labelSelector?: string;
  fieldSelector?: string;
}

/** A controller as a Builder describes it (controller-runtime For/Owns/Watches). */
export interface ControllerDefinition {
  name?: string;
  /** The primary resource: its own changes enqueue its key. */
  for?: string;
  /** Event filters for the primary's own events (all must pass): `['GenerationChanged']`. */
  predicates?: Predicate[];
  /** Owned resources: a change enqueues the object's controller owner (EnqueueRequestForOwner, OnlyControllerOwner). */
  owns?: (string | OwnsSpec)[];
  /** Every owner of the kind `for`, not only the controller owner. */
  ownsAllOwners?: boolean;
  watches?: WatchSpec[];
  /**
   * Extra indices of the shared informers, by resource then index name (client-go's Indexers):
   * `ctx.list('pods', { index: { name: 'byNode', value: 'node-1' } })` reads them. 'namespace' is built in.
   */
  indexers?: Record<string, Record<string, (obj: KubeObject) => string[]>>;
  /**
   * What the shared cache holds, by resource: `{ 'deployments.apps': { namespaces: ['shop'], labelSelector: 'app=web' } }`.
   * One cache serves every controller of the run, as one manager's does: modules must agree on a resource.
   */
  cache?: Record<string, CacheEntry>;
  reconcile: ReconcileFn;
  errorPolicy?: ErrorPolicyFn;
}

/** The alias users name in `import type { Reconciler } from 'kwatch'`. */
export type Reconciler = ControllerDefinition;

/**
 * Identity, for editors: `export default defineController({ for: 'deployments.apps', reconcile(req, ctx) { … } })`
 * types req and ctx, completes the fields, and rejects a misspelt one (not generic on purpose: an
 * inferred type parameter would let any extra field through).
 */
export function defineController(definition: ControllerDefinition): ControllerDefinition {
  return definition;
}
