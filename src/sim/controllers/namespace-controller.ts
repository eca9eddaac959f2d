// Namespace lifecycle: kube-apiserver's namespace DELETE (deletionTimestamp + phase Terminating, the object stays while
// spec.finalizers holds "kubernetes"), the NamespaceLifecycle admission rules (no new content in a terminating
// namespace, default/kube-system/kube-public may not be deleted), and the namespace controller that empties a
// terminating namespace, reports progress in status.conditions and finalizes it (removes "kubernetes"), which deletes it.
import type { SimObject } from '../api.js';
import { SimApiError } from '../api.js';
import type { Change } from '../history.js';
import { kubeTime } from '../object-meta.js';
import { checkDeletePreconditions } from '../delete-preconditions.js';
import type { ResourceType } from '../registry.js';
import { notFound, qualifiedResource } from '../status.js';
import type { SimStore } from '../store.js';
import type { ControllerContext } from './controller-context.js';
import { deleteObject, gcFinalizers, type DeleteOutcome, type DeleteRequest } from './graceful-delete.js';
import { finalizersOf } from './owner-references.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** The spec finalizer the namespace controller owns (api.FinalizerKubernetes). */
export const KUBERNETES_FINALIZER = 'kubernetes';
/** NamespaceLifecycle's immortal namespaces. */
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);
/** finalizerEstimateSeconds: how long the controller assumes finalizers on remaining content take. */
const FINALIZER_ESTIMATE_SECONDS = 15;
/** Content deletions in a terminating namespace are batched this long before the namespace is looked at again. */
const RESYNC_BATCH_MS = 50;

/** status_condition_utils.go: the condition types the deleter maintains, in order, with their "ok" reason and message. */
const CONDITIONS: [type: string, okReason: string, okMessage: string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

function forbidden(resource: string, group: string, name: string, why: string): SimApiError {
  const details: Record<string, unknown> = { name };
  if (group) details.group = group;
  details.kind = resource;
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${qualifiedResource(resource, group)} "${name}" is forbidden: ${why}`, reason: 'Forbidden', details, code: 403 });
}

export function isNamespaceType(type: ResourceType): boolean {
  return type.group === '' && type.resource === 'namespaces';
}

/**
 * NamespaceLifecycle admission on create: a namespaced object may not be created in a terminating namespace. The name
 * is the object's, else its generateName (admission runs before the name is generated), as admission.NewForbidden names it.
 */
export function admitCreate(store: SimStore, type: ResourceType, obj: SimObject, namespace: string): void {
  if (!type.namespaced) return;
  const ns = store.getStored(store.resolve({ group: '', version: 'v1', resource: 'namespaces' }), undefined, namespace);
  if (!ns || !ns.json.includes('"Terminating"') || (ns.obj.status as Json | undefined)?.phase !== 'Terminating') return;
  const name = obj.metadata.name || obj.metadata.generateName || 'Unknown';
  throw forbidden(type.resource, type.group, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
}

/**
 * The namespace REST storage's Delete (pkg/registry/core/namespace/storage/storage.go) behind NamespaceLifecycle's
 * "may not be deleted" rule: the first DELETE sets deletionTimestamp (no grace period) and phase Terminating (and the
 * garbage-collection finalizers the options ask for) — a MODIFIED event, the namespace answered with 200; while
 * spec.finalizers is not empty a later DELETE answers the namespace unchanged; after that it is deleted as any object.
 */
export function deleteNamespace(store: SimStore, type: ResourceType, name: string, req: DeleteRequest, now = Date.now()): DeleteOutcome {
  if (IMMORTAL.has(name)) throw forbidden(type.resource, type.group, name, 'this namespace may not be deleted');
  const stored = store.getStored(type, undefined, name);
  if (!stored) throw notFound(type.resource, type.group, name);
  checkDeletePreconditions(type, name, stored, req.preconditions);
  const ns = stored.obj;
  const accepted = req.orphanDependents === false ? 202 : 200;
  if (ns.metadata.deletionTimestamp === undefined) {
    const finalizers = gcFinalizers(finalizersOf(ns), req);
    const metadata = { ...ns.metadata };
    if (finalizers.length) metadata.finalizers = finalizers; else delete metadata.finalizers;
    const next = { ...ns, metadata, status: { ...(ns.status as Json | undefined), phase: 'Terminating' } };
    const out = store.updateObject(type, next, { dryRun: req.dryRun, deletion: { timestamp: kubeTime(new Date(now)) } });
    return { body: JSON.stringify(out), code: accepted, deleted: false };
  }
  if (specFinalizers(ns).length > 0) return { body: stored.json, code: accepted, deleted: false };
  return deleteObject(store, type, undefined, name, req, now);
}

function specFinalizers(ns: SimObject): string[] {
  const f = (ns.spec as Json | undefined)?.finalizers;
  return Array.isArray(f) ? f as string[] : [];
}

interface Remaining {
  /** resource.group → objects left. */
  byResource: Map<string, number>;
  /** finalizer → objects left holding it. */
  byFinalizer: Map<string, number>;
  /** Seconds the controller expects to wait (pods' grace, or the finalizer estimate). */
  estimate: number;
  errors: string[];
}

/**
 * The namespace controller (pkg/controller/namespace/deletion/namespaced_resources_deleter.go): for a namespace with a
 * deletionTimestamp it deletes every namespaced object in it (DeleteCollection with background propagation: pods go
 * gracefully), writes the deletion conditions, and once nothing is left removes "kubernetes" from spec.finalizers
 * (the finalize subresource), which deletes the namespace unless other finalizers remain. It looks again when content
 * in the namespace changes, and after (estimate/2 + 1) seconds × graceScale as kube's requeue does.
 */
export class NamespaceController {
  readonly queue: WorkQueue;
  /** Namespaces with a deletionTimestamp: changes to their content requeue them. */
  private readonly terminating = new Set<string>();

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observeNamespace(change: Change): void {
    const name = change.cur.meta.name;
    if (change.type === 'DELETED') { this.terminating.delete(name); return; }
    if (!change.cur.json.includes('"deletionTimestamp"')) { this.terminating.delete(name); return; }
    if (!this.terminating.has(name)) { this.terminating.add(name); this.queue.add(name); }
  }

  /** Any change of a namespaced object: one leaving a terminating namespace may let it finish. */
  observeContent(change: Change): void {
    if (change.namespace && this.terminating.has(change.namespace) && change.type !== 'ADDED') this.queue.add(change.namespace, RESYNC_BATCH_MS);
  }

  private sync(name: string): void {
    const { store } = this.ctx;
    const type = this.namespaces();
    let stored = store.getStored(type, undefined, name);
    if (!stored) return;
    let ns = stored.obj;
    if (ns.metadata.deletionTimestamp === undefined) return;
    // updateNamespaceStatusFunc: a deleting namespace is Terminating.
    if ((ns.status as Json | undefined)?.phase !== 'Terminating') {
      ns = store.updateObject(type, { ...ns, status: { ...(ns.status as Json | undefined), phase: 'Terminating' } }, { subresource: 'status', ...writtenBy(type, CONTROLLER_MANAGER, 'status') });
    }
    if (specFinalizers(ns).includes(KUBERNETES_FINALIZER)) {
      const left = this.deleteAllContent(name);
      ns = this.updateConditions(type, ns, left);
      const total = [...left.byResource.values()].reduce((a, b) => a + b, 0);
      if (total > 0 || left.errors.length > 0) {
        const seconds = Math.max(left.estimate, 0) / 2 + 1;
        this.queue.add(name, seconds * 1000 * this.ctx.timings.graceScale);
        return;
      }
      // finalizeNamespace: drop our token; with nothing else holding it the namespace goes in this very write.
      stored = store.getStored(type, undefined, name);
      if (!stored) return;
      ns = stored.obj;
      const rest = specFinalizers(ns).filter((f) => f !== KUBERNETES_FINALIZER);
      ns = store.updateObject(type, { ...ns, spec: { ...(ns.spec as Json), finalizers: rest.length ? rest : undefined } });
      if (!store.getStored(type, undefined, name)) return;
    }
    // Finalized but still here (other metadata finalizers): delete it as kube's deleteNamespace does.
    if (specFinalizers(ns).length === 0 && finalizersOf(ns).length === 0) {
      deleteNamespace(store, type, name, { preconditions: { uid: ns.metadata.uid } });
    }
  }

  /** deleteAllContent: deletes what is in the namespace, then counts what is left and the finalizers holding it. */
  private deleteAllContent(namespace: string): Remaining {
    const { store } = this.ctx;
    const left: Remaining = { byResource: new Map(), byFinalizer: new Map(), estimate: 0, errors: [] };
    for (const type of store.registry.all()) {
      if (!type.namespaced) continue;
      const label = `${type.resource}.${type.group}`;
      try {
        for (const o of store.storedIn(type, namespace)) {
          // DeleteCollection: each item as a single DELETE would be; one already on its way out has nothing to change.
          if (o.json.includes('"deletionTimestamp"') && o.obj.metadata.deletionTimestamp !== undefined) continue;
          try {
            deleteObject(store, type, namespace, o.meta.name, { propagationPolicy: 'Background', preconditions: { uid: o.meta.uid } });
          } catch (err) {
            if (!(err instanceof SimApiError && err.status.code === 404)) throw err;
          }
        }
      } catch (err) {
        left.errors.push(`${label}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const remaining = store.storedIn(type, namespace);
      if (remaining.length === 0) continue;
      left.byResource.set(label, remaining.length);
      let estimate = 0;
      for (const o of remaining) {
        const obj = o.obj;
        for (const f of finalizersOf(obj)) left.byFinalizer.set(f, (left.byFinalizer.get(f) ?? 0) + 1);
        if (finalizersOf(obj).length) estimate = Math.max(estimate, FINALIZER_ESTIMATE_SECONDS);
        // estimateGracefulTermination: the pods' remaining grace.
        const grace = Number(obj.metadata.deletionGracePeriodSeconds ?? 0);
        if (grace > 0 && obj.metadata.deletionTimestamp) estimate = Math.max(estimate, Math.ceil((Date.parse(String(obj.metadata.deletionTimestamp)) - Date.now()) / 1000));
      }
      left.estimate = Math.max(left.estimate, estimate);
    }
    return left;
  }

  /** namespaceConditionUpdater.Update: every condition type present, the "ok" variant unless something failed or remains. */
  private updateConditions(type: ResourceType, ns: SimObject, left: Remaining): SimObject {
    const now = kubeTime(new Date());
    const failures = new Map<string, { reason: string; message: string }>();
    if (left.errors.length) {
      failures.set('NamespaceDeletionContentFailure', { reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${left.errors.length} remaining: ${[...left.errors].sort().join(', ')}` });
    }
    const resources = [...left.byResource].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`).sort();
    if (resources.length) failures.set('NamespaceContentRemaining', { reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${resources.join(', ')}` });
    const finalizers = [...left.byFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
    if (finalizers.length) failures.set('NamespaceFinalizersRemaining', { reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}` });
    const status = (ns.status ?? {}) as Json;
    const conditions: Json[] = ((status.conditions ?? []) as Json[]).map((c) => ({ ...c }));
    let changed = false;
    for (const [condType, okReason, okMessage] of CONDITIONS) {
      const failure = failures.get(condType);
      const want = { type: condType, status: failure ? 'True' : 'False', lastTransitionTime: now, reason: failure?.reason ?? okReason, message: failure?.message ?? okMessage };
      const old = conditions.find((c) => c.type === condType);
      if (!old) { conditions.push(want); changed = true; continue; }
      if (old.status === want.status && old.reason === want.reason && old.message === want.message) continue;
      if (old.status !== want.status) old.lastTransitionTime = now;
      old.status = want.status;
      old.reason = want.reason;
      old.message = want.message;
      changed = true;
    }
    if (!changed) return ns;
    return this.ctx.store.updateObject(type, { ...ns, status: { ...status, conditions } }, { subresource: 'status', ...writtenBy(type, CONTROLLER_MANAGER, 'status') });
  }

  private namespaces(): ResourceType {
    return this.ctx.store.resolve({ group: '', version: 'v1', resource: 'namespaces' });
  }
}
