// Triggers: how informer events become reconcile requests, each with its reason (kube-rs's trigger_self,
// trigger_owners and trigger_others; controller-runtime's For, Owns and Watches).
import type { Clock } from '../informer/clock.js';
import { DeletedFinalStateUnknown, deletionHandlingKey, resourceVersionOf, type ObjectOrTombstone } from '../informer/deltas.js';
import type { HandlerRegistration, SharedIndexInformer } from '../informer/shared-informer.js';
import type { Tracer } from '../informer/trace.js';
import type { KubeObject } from '../informer/types.js';
import type { QueueReason } from '../informer/workqueue/queue.js';
import { LOW_PRIORITY } from '../informer/workqueue/priority-queue.js';
import { kubeRsReason } from './kube-rs-reason.js';
import { groupOf, objectKey, type ResourceInfo } from './catalog.js';
import { firstRejecting, type CompiledPredicate } from './predicates.js';
import type { ObjectRef, PredicateEvent, ReconcileReason } from './types.js';

/** A reason as the workqueue carries it: the queue's `op` plus kube-rs's reason text. */
export type TriggerReason = QueueReason & ReconcileReason;

export interface TriggerSink {
  trigger(key: string, reason: TriggerReason): void;
}

/** Which events a controller's own writes caused (by resource, object key and resourceVersion). */
export interface WriteOrigins {
  isOwn(controller: string, resource: string, key: string, rv: string | undefined): boolean;
  isLocal(resource: string, rv: string | undefined): boolean;
  /**
   * An event not (yet) known as the controller's own: a sent write's watch event can arrive before the
   * write's HTTP answer, so the reason is kept and marked `own` once an answer names its uid and rv.
   */
  claimLater(controller: string, resource: string, uid: string | undefined, rv: string | undefined, reason: TriggerReason): void;
}

export interface TriggerContext {
  controller: string;
  primary: ResourceInfo;
  sink: TriggerSink;
  clock: Clock;
  tracer: Tracer;
  origins: WriteOrigins;
  /**
   * The controller runs the priority queue: events of the initial list (an add of an object created more than a
   * minute ago, controller-runtime's heuristic in handler.WithLowPriorityWhenUnchanged) and resyncs (an update
   * with an unchanged resourceVersion) carry priority -100 (handler.LowPriority), as controller-runtime 0.23's
   * For/Owns/Watches handlers do; the rest the default 0.
   */
  priorities?: boolean;
}

type Event = { op: 'OnAdd' | 'OnUpdate' | 'OnDelete'; obj: ObjectOrTombstone; old?: KubeObject; sync?: boolean };

/** `for`: an object's own changes enqueue its key. */
export function triggerSelf(informer: SharedIndexInformer, source: ResourceInfo, t: TriggerContext, resyncPeriodMs?: number, predicates: readonly CompiledPredicate[] = []): HandlerRegistration {
  return register(informer, source, t, resyncPeriodMs, (e) => [deletionHandlingKey(e.obj)], (e) => (e.sync ? 'resync' : e.op === 'OnDelete' ? 'object deleted' : 'object updated'), predicates);
}

/** `owns`: a change enqueues the owner of kind `for` (the controller owner only, unless allOwners). */
export function triggerOwners(informer: SharedIndexInformer, source: ResourceInfo, t: TriggerContext, allOwners: boolean, predicates: readonly CompiledPredicate[] = []): HandlerRegistration {
  const ownersOf = (obj: KubeObject | undefined): string[] => {
    if (!obj) return [];
    return (obj.metadata?.ownerReferences ?? [])
      .filter((ref) => (allOwners || ref.controller === true) && ref.kind === t.primary.kind && groupOf(ref.apiVersion) === t.primary.group)
      .map((ref) => objectKey(t.primary.namespaced ? obj.metadata?.namespace : undefined, ref.name));
  };
  // On update both the old and the new owners hear of it, as EnqueueRequestForOwner does.
  return register(informer, source, t, undefined, (e) => [...ownersOf(objectOf(e.obj)), ...ownersOf(e.old)], related, predicates);
}

/** `watches`: a change enqueues the keys `map` returns (for both the old and the new object on update). */
export function triggerMapped(informer: SharedIndexInformer, source: ResourceInfo, t: TriggerContext, map: (obj: KubeObject) => ObjectRef[] | ObjectRef | undefined | null, predicates: readonly CompiledPredicate[] = []): HandlerRegistration {
  const keysOf = (obj: KubeObject | undefined): string[] => {
    if (!obj) return [];
    let refs: ReturnType<typeof map>;
    try {
      refs = map(structuredClone(obj));
    } catch (err) {
      if (t.tracer.enabled) t.tracer.emit({ time: t.clock.now(), stage: 'reconcile', op: 'map-error', key: deletionHandlingKey(obj), controller: t.controller, resource: source.name, error: err instanceof Error ? err.message : String(err) });
      return [];
    }
    const list = refs == null ? [] : Array.isArray(refs) ? refs : [refs];
    return list.filter((r) => r && typeof r.name === 'string').map((r) => objectKey(t.primary.namespaced ? (r.namespace ?? obj.metadata?.namespace) : undefined, r.name));
  };
  return register(informer, source, t, undefined, (e) => [...keysOf(objectOf(e.obj)), ...keysOf(e.old)], related, predicates);
}

function related(e: Event): string {
  return e.op === 'OnDelete' ? 'related object deleted' : 'related object updated';
}

function register(informer: SharedIndexInformer, source: ResourceInfo, t: TriggerContext, resyncPeriodMs: number | undefined, keysOf: (e: Event) => string[], reasonOf: (e: Event) => string, predicates: readonly CompiledPredicate[]): HandlerRegistration {
  const fire = (e: Event) => {
    if (predicates.length > 0 && !passes(e)) return;
    const keys = new Set(keysOf(e));
    if (keys.size === 0) return;
    const key = deletionHandlingKey(e.obj);
    const rv = resourceVersionOf(e.obj);
    const text = reasonOf(e);
    const reason: TriggerReason = { op: e.op, reason: text, kubeRs: kubeRsReason(text), resource: source.name, key, rv, time: t.clock.now() };
    if (t.priorities && isUnchanged(e, reason.time!)) reason.priority = LOW_PRIORITY;
    if (t.origins.isLocal(source.name, rv)) reason.local = true;
    if (t.origins.isOwn(t.controller, source.name, key, rv)) reason.own = true;
    else t.origins.claimLater(t.controller, source.name, objectOf(e.obj)?.metadata?.uid, rv, reason);
    if (e.obj instanceof DeletedFinalStateUnknown) reason.tombstone = true;
    for (const k of keys) t.sink.trigger(k, reason);
  };
  /** Whether every predicate lets the event through; a drop (or a predicate that throws) is traced. */
  const passes = (e: Event): boolean => {
    const object = objectOf(e.obj);
    if (!object) return true;
    const event: PredicateEvent = { type: e.op === 'OnAdd' ? 'create' : e.op === 'OnDelete' ? 'delete' : 'update', object: structuredClone(object), ...(e.old ? { oldObject: structuredClone(e.old) } : {}) };
    const trace = (op: string, detail: Record<string, unknown>) => {
      if (t.tracer.enabled) t.tracer.emit({ time: t.clock.now(), stage: 'reconcile', op, key: deletionHandlingKey(e.obj), rv: resourceVersionOf(e.obj), controller: t.controller, resource: source.name, event: e.op, ...detail });
    };
    try {
      const dropped = firstRejecting(predicates, event);
      if (dropped) trace('filtered', { predicate: dropped.name });
      return dropped === undefined;
    } catch (err) {
      trace('predicate-error', { error: err instanceof Error ? err.message : String(err) });
      return false;
    }
  };
  return informer.addEventHandler(
    {
      onAdd: (obj) => fire({ op: 'OnAdd', obj }),
      onUpdate: (old, obj) => fire({ op: 'OnUpdate', obj, old, sync: old.metadata?.resourceVersion === obj.metadata?.resourceVersion }),
      onDelete: (obj) => fire({ op: 'OnDelete', obj }),
    },
    { name: t.controller, controller: t.controller, resyncPeriodMs },
  );
}

/** controller-runtime's test for "nothing changed": a resync, or an add of an object older than a minute. */
function isUnchanged(e: Event, now: number): boolean {
  if (e.op === 'OnUpdate') return e.sync === true;
  if (e.op !== 'OnAdd') return false;
  const created = Date.parse(objectOf(e.obj)?.metadata?.creationTimestamp ?? '');
  return Number.isFinite(created) && created < now - 60_000;
}

function objectOf(obj: ObjectOrTombstone): KubeObject | undefined {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}
