// kube-apiserver's DELETE for one object, as the generic registry store does it: graceful deletion (pods), finalizers,
// the garbage-collection finalizers DeleteOptions ask for, and the response (object or Status) and events that follow.
import type { SimObject } from '../api.js';
import { kubeTime } from '../object-meta.js';
import { checkDeletePreconditions } from '../delete-preconditions.js';
import type { ResourceType } from '../registry.js';
import { invalid, notFound } from '../status.js';
import type { SimStore } from '../store.js';
import { finalizersOf } from './owner-references.js';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

const POLICIES = ['Foreground', 'Background', 'Orphan'];

/** metav1.DeleteOptions, as decoded from a body or query (gracePeriodSeconds already a number). */
export interface DeleteRequest {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface DeleteOutcome {
  /** The response body: the object, or a Status for kinds kube answers that way. */
  body: string;
  /** 200, or 202 when orphanDependents=false left the object in place (kube's historical rule). */
  code: number;
  /** Whether the object left storage. */
  deleted: boolean;
}

/** Kinds whose registry sets ReturnDeletedObject: a delete answers the object, not a Status. */
function returnsDeletedObject(type: ResourceType): boolean {
  return type.group === '' && (type.resource === 'pods' || type.resource === 'services' || type.resource === 'namespaces');
}

/** Only pods have a graceful delete strategy among the sim's kinds (pod strategy CheckGracefulDelete). */
function deletesGracefully(type: ResourceType): boolean {
  return type.group === '' && type.resource === 'pods';
}

/** ValidateDeleteOptions: 422 with kind DeleteOptions in group meta.k8s.io. */
export function validateDeleteRequest(req: DeleteRequest): void {
  const policy = req.propagationPolicy;
  if (policy !== undefined && req.orphanDependents !== undefined) {
    throw invalid('DeleteOptions', 'meta.k8s.io', '', [{ field: 'propagationPolicy', type: 'Invalid value', value: policy, detail: 'orphanDependents and deletionPropagation cannot be both set' }]);
  }
  if (policy !== undefined && !POLICIES.includes(policy)) {
    throw invalid('DeleteOptions', 'meta.k8s.io', '', [{ field: 'propagationPolicy', type: 'Unsupported value', value: policy, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' }]);
  }
}

/**
 * Deletes namespace/name the way kube-apiserver does (staging apiserver registry/generic/registry/store.go Delete,
 * registry/rest/delete.go BeforeDelete, pkg/registry/core/pod/strategy.go CheckGracefulDelete):
 * - a pod gets deletionTimestamp = now + grace and deletionGracePeriodSeconds (MODIFIED); grace comes from the
 *   options, else spec.terminationGracePeriodSeconds; unscheduled or finished pods get 0, which still writes that
 *   MODIFIED and then deletes (DELETED). A later delete may only shorten the grace period;
 * - an object with finalizers (including the ones Foreground/Orphan add) is marked (deletionTimestamp = now, grace 0,
 *   MODIFIED) and stays until an update removes the last finalizer;
 * - anything else is removed at once (DELETED).
 */
export function deleteObject(store: SimStore, type: ResourceType, namespace: string | undefined, name: string, req: DeleteRequest, now = Date.now()): DeleteOutcome {
  validateDeleteRequest(req);
  const stored = store.getStored(type, namespace, name);
  if (!stored) throw notFound(type.resource, type.group, name);
  checkDeletePreconditions(type, name, stored, req.preconditions);
  const obj = stored.obj;
  const dryRun = req.dryRun === true;
  const accepted = req.orphanDependents === false ? 202 : 200;
  let grace = req.gracePeriodSeconds;
  if (grace !== undefined && grace < 0) grace = 1;

  // rest.BeforeDelete: graceful deletion, or a shorter grace period for a deletion already under way.
  let graceful = false;
  let deletion: { timestamp: string; gracePeriodSeconds: number } | undefined;
  if (deletesGracefully(type)) {
    const since = obj.metadata.deletionTimestamp;
    const current = obj.metadata.deletionGracePeriodSeconds as number | undefined;
    if (since !== undefined) {
      if (current !== undefined && current > 0) {
        if (grace === undefined || grace >= current) return finalized(type, obj, stored.json, false, accepted); // pending: nothing to do
        graceful = true;
        deletion = { timestamp: kubeTime(new Date(Date.parse(since) - current * 1000 + grace * 1000)), gracePeriodSeconds: grace };
      }
    } else {
      const spec = (obj.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
      const phase = (obj.status as { phase?: string } | undefined)?.phase;
      let period = grace ?? spec.terminationGracePeriodSeconds ?? 0;
      if (!spec.nodeName) period = 0; // never scheduled: nothing to stop
      if (phase === 'Failed' || phase === 'Succeeded') period = 0; // already stopped
      if (period < 0) period = 1;
      graceful = true;
      deletion = { timestamp: kubeTime(new Date(now + period * 1000)), gracePeriodSeconds: period };
    }
  }

  // The garbage collector's finalizers, as DeleteOptions (or finalizers already set) ask.
  const finalizers = finalizersOf(obj);
  const wanted = gcFinalizers(finalizers, req);
  const finalizersChange = !sameSet(finalizers, wanted);
  if (graceful || finalizers.length > 0 || finalizersChange) {
    const pending = wanted.length > 0;
    if (!graceful) {
      if (!pending) return removeNow(store, type, namespace, name, dryRun);
      // markAsDeleting: now (or the earlier time already recorded), no grace period.
      const since = obj.metadata.deletionTimestamp;
      const timestamp = since !== undefined && Date.parse(since) <= now ? since : kubeTime(new Date(now));
      const out = store.updateObject(type, withFinalizers(obj, wanted), { dryRun, deletion: { timestamp, gracePeriodSeconds: 0 } });
      return { body: JSON.stringify(out), code: accepted, deleted: false };
    }
    const out = store.updateObject(type, withFinalizers(obj, wanted), { dryRun, deletion });
    if (pending || deletion!.gracePeriodSeconds > 0) return { body: JSON.stringify(out), code: accepted, deleted: false };
    if (dryRun) return finalized(type, out, JSON.stringify(out), true, 200);
  }
  return removeNow(store, type, namespace, name, dryRun);
}

function removeNow(store: SimStore, type: ResourceType, namespace: string | undefined, name: string, dryRun: boolean): DeleteOutcome {
  const gone = store.deleteStored(type, namespace, name, { dryRun });
  return finalized(type, gone.obj, gone.json, !dryRun, 200);
}

/** Store.finalizeDelete: the object for ReturnDeletedObject kinds, else a Success Status naming it. */
function finalized(type: ResourceType, obj: SimObject, json: string, deleted: boolean, code: number): DeleteOutcome {
  if (returnsDeletedObject(type)) return { body: json, code, deleted };
  const details: Record<string, string> = { name: obj.metadata.name! };
  if (type.group) details.group = type.group;
  details.kind = type.resource; // kube puts the resource here, not the kind
  details.uid = obj.metadata.uid!;
  return { body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }), code, deleted };
}

/** deletionFinalizersForGarbageCollection: options first, then the finalizers already set; default Background. */
export function gcFinalizers(current: string[], req: DeleteRequest): string[] {
  let orphan: boolean;
  let foreground: boolean;
  if (req.orphanDependents !== undefined) {
    orphan = req.orphanDependents;
    foreground = false;
  } else if (req.propagationPolicy !== undefined) {
    orphan = req.propagationPolicy === 'Orphan';
    foreground = req.propagationPolicy === 'Foreground';
  } else {
    const first = current.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
    orphan = first === ORPHAN_FINALIZER;
    foreground = first === FOREGROUND_FINALIZER;
  }
  const out = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) out.push(ORPHAN_FINALIZER);
  if (foreground) out.push(FOREGROUND_FINALIZER);
  return out;
}

function withFinalizers(obj: SimObject, finalizers: string[]): SimObject {
  const metadata = { ...obj.metadata };
  if (finalizers.length) metadata.finalizers = finalizers; else delete metadata.finalizers;
  return { ...obj, metadata };
}

function sameSet(a: string[], b: string[]): boolean {
  const sa = new Set(a), sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
