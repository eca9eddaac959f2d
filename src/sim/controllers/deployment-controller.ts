// The Deployment controller: one ReplicaSet per pod template (named <deployment>-<pod-template-hash>), rolled from
// old to new within maxSurge/maxUnavailable (or all at once for Recreate), scaled with spec.replicas, old revisions
// pruned to revisionHistoryLimit, and status/conditions that `kubectl get deploy` and `rollout status` read.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { specSelector } from './spec-selector.js';
import { jsonEqual } from '../object-meta.js';
import { SimApiError } from '../api.js';
import { claim } from './claim.js';
import { drivenByGenerator, splitKey, type ControllerContext } from './controller-context.js';
import {
  active, annotation, byCreation, DESIRED_REPLICAS, isRollingUpdate, isSaturated, MAX_REPLICAS, maxSurge, maxUnavailable, newRSNewReplicas,
  proportionalSizes, REVISION, revisionOf, statusOf, sumSpec, sumStatus,
} from './deployment-rollout.js';
import {
  calculateStatus, conditionsOf, deploymentComplete, deploymentProgressing, hasProgressDeadline, newCondition, REASONS, removeCondition, setCondition, wireStatus,
} from './deployment-status.js';
import { deleteObject } from './graceful-delete.js';
import { controllerOf, controllerRefTo } from './owner-references.js';
import { podTemplateHash } from './pod-template-hash.js';
import { specReplicas } from './replicaset-controller.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const COMPONENT = { component: 'deployment-controller' };
const HASH_LABEL = 'pod-template-hash';
/** Annotations a ReplicaSet never inherits from its Deployment (deployment util's skipCopyAnnotation). */
const NOT_COPIED = new Set(['kubectl.kubernetes.io/last-applied-configuration', REVISION, 'deployment.kubernetes.io/revision-history', DESIRED_REPLICAS, MAX_REPLICAS, 'deprecated.deployment.rollback.to']);

export class DeploymentController {
  readonly queue: WorkQueue;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observeDeployment(change: Change): void {
    if (change.type === 'DELETED' || this.ctx.generatorOwns(change.cur.meta.uid)) return;
    this.queue.add(change.key);
  }

  observeReplicaSet(change: Change, rs: () => SimObject): void {
    const obj = rs();
    const owner = controllerOf(obj);
    if (owner) {
      if (owner.kind === 'Deployment' && !this.ctx.generatorOwns(owner.uid)) this.queue.add(`${obj.metadata.namespace}/${owner.name}`);
      return;
    }
    // An orphan ReplicaSet may be adopted by a Deployment of its namespace.
    if (change.type === 'DELETED') return;
    for (const d of this.ctx.store.storedIn(this.ctx.types.deployments, obj.metadata.namespace)) {
      if (!this.ctx.generatorOwns(d.meta.uid)) this.queue.add(`${obj.metadata.namespace}/${d.meta.name}`);
    }
  }

  /** A pod that went away may be what a Recreate rollout waits for. */
  observePodGone(pod: SimObject): void {
    const owner = controllerOf(pod);
    if (owner?.kind !== 'ReplicaSet' || this.ctx.generatorOwns(owner.uid)) return;
    const rs = this.ctx.store.getStored(this.ctx.types.replicaSets, pod.metadata.namespace, owner.name)?.obj;
    const d = rs && controllerOf(rs);
    if (d?.kind === 'Deployment' && !this.ctx.generatorOwns(d.uid)) this.queue.add(`${pod.metadata.namespace}/${d.name}`);
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const { types } = this.ctx;
    let d = this.ctx.store.getStored(types.deployments, namespace, name)?.obj;
    if (!d || drivenByGenerator(this.ctx, d)) return;
    const selector = specSelector(d);
    if (!selector) {
      // kube records SelectingAll and only observes the generation.
      this.writeStatus(d, { ...((d.status ?? {}) as Json), observedGeneration: d.metadata.generation });
      return;
    }
    const rsList = claim(this.ctx, d, types.deployments, types.replicaSets, selector);
    if (d.metadata.deletionTimestamp !== undefined) return this.syncStatusOnly(d, rsList);
    d = this.checkPausedConditions(d);
    if ((d.spec as Json).paused === true || this.isScalingEvent(d, rsList)) return this.syncScale(d, rsList);
    if (isRollingUpdate(d)) this.rolloutRolling(d, rsList);
    else this.rolloutRecreate(d, rsList);
  }

  // ---- ReplicaSets of a revision ------------------------------------------------------------------

  /**
   * getAllReplicaSetsAndSyncRevision: the new ReplicaSet (the oldest whose template equals the Deployment's, hash
   * label aside) and the old ones; the new one gets the next revision number, and is created when asked and missing.
   */
  private newAndOld(d: SimObject, rsList: SimObject[], create: boolean): { d: SimObject; newRS?: SimObject; oldRSs: SimObject[] } {
    const sorted = [...rsList].sort(byCreation);
    const template = (d.spec as Json).template;
    let newRS = sorted.find((rs) => equalIgnoreHash((rs.spec as Json).template, template));
    const oldRSs = sorted.filter((rs) => rs !== newRS);
    const newRevision = Math.max(0, ...oldRSs.map(revisionOf)) + 1;
    if (newRS) {
      const annotations = newRSAnnotations(d, newRS, newRevision, true);
      const minReady = (d.spec as Json).minReadySeconds;
      if (!jsonEqual(annotations, newRS.metadata.annotations ?? {}) || (newRS.spec as Json).minReadySeconds !== minReady) {
        newRS = this.ctx.store.updateObject(this.ctx.types.replicaSets, { ...newRS, metadata: { ...newRS.metadata, annotations }, spec: { ...(newRS.spec as Json), minReadySeconds: minReady } }, writtenBy(this.ctx.types.replicaSets, CONTROLLER_MANAGER));
      }
      let next = withRevision(d, annotation(newRS, REVISION));
      const status = structuredClone((next.status ?? {}) as Json);
      if (hasProgressDeadline(d) && !conditionsOf(status).some((c) => c.type === 'Progressing')) {
        setCondition(status, newCondition('Progressing', 'True', REASONS.foundNewReplicaSet, `Found new replica set "${newRS.metadata.name}"`));
        next = { ...next, status: wireStatus(status) };
      }
      return { d: this.update(d, next), newRS, oldRSs };
    }
    if (!create) return { d, oldRSs };
    return this.createNewReplicaSet(d, oldRSs, newRevision);
  }

  private createNewReplicaSet(d: SimObject, oldRSs: SimObject[], revision: number): { d: SimObject; newRS?: SimObject; oldRSs: SimObject[] } {
    const { store, types, events } = this.ctx;
    const spec = d.spec as Json;
    const collisionCount = (d.status as Json | undefined)?.collisionCount as number | undefined;
    const hash = podTemplateHash(spec.template, collisionCount);
    const template = structuredClone(spec.template ?? {}) as Json;
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash } };
    const selector = structuredClone(spec.selector ?? {}) as Json;
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [HASH_LABEL]: hash };
    const rs: SimObject = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: `${d.metadata.name}-${hash}`, namespace: d.metadata.namespace, labels: template.metadata.labels, ownerReferences: [controllerRefTo(d, types.deployments)] },
      spec: { replicas: 0, ...(spec.minReadySeconds !== undefined ? { minReadySeconds: spec.minReadySeconds } : {}), selector, template },
    };
    const replicas = newRSNewReplicas(d, [...oldRSs, rs], rs);
    (rs.spec as Json).replicas = replicas;
    rs.metadata.annotations = newRSAnnotations(d, rs, revision, false);
    if (!this.ctx.budgets.deployment.allows()) return { d, oldRSs };
    let created: SimObject;
    try {
      created = store.createObject(types.replicaSets, rs, writtenBy(types.replicaSets, CONTROLLER_MANAGER));
      this.ctx.budgets.deployment.spend();
    } catch (err) {
      if (!(err instanceof SimApiError) || err.status.code !== 409) throw err;
      // The name is taken: ours (an earlier sync) or a hash collision, which bumps collisionCount and retries.
      const existing = store.getStored(types.replicaSets, d.metadata.namespace, rs.metadata.name!)?.obj;
      if (existing && controllerOf(existing)?.uid === d.metadata.uid && equalIgnoreHash((existing.spec as Json).template, spec.template)) return { d, newRS: existing, oldRSs };
      const status = { ...((d.status ?? {}) as Json), collisionCount: (collisionCount ?? 0) + 1 };
      this.writeStatus(d, status);
      throw err;
    }
    if (replicas > 0) events.record(d, types.deployments, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`, COMPONENT);
    let next = withRevision(d, String(revision));
    if (hasProgressDeadline(d)) {
      const status = structuredClone((d.status ?? {}) as Json);
      setCondition(status, newCondition('Progressing', 'True', REASONS.newReplicaSetCreated, `Created new replica set "${created.metadata.name}"`));
      next = { ...next, status: wireStatus(status) };
    }
    return { d: this.update(d, next), newRS: created, oldRSs };
  }

  // ---- strategies ---------------------------------------------------------------------------------

  private rolloutRolling(d0: SimObject, rsList: SimObject[]): void {
    const { d, newRS, oldRSs } = this.newAndOld(d0, rsList, true);
    if (!newRS) return;
    let all = [...oldRSs, newRS];
    // Scale up, if we can; else scale down, if we can.
    const grown = this.reconcileNewReplicaSet(d, all, newRS);
    if (specReplicas(grown) !== specReplicas(newRS)) return this.syncRolloutStatus(d, [...oldRSs, grown], grown);
    const shrunk = this.reconcileOldReplicaSets(d, all, oldRSs, newRS);
    if (shrunk) {
      all = [...shrunk, newRS];
      return this.syncRolloutStatus(d, all, newRS);
    }
    if (deploymentComplete(d, (d.status ?? {}) as Json)) this.cleanup(d, oldRSs);
    this.syncRolloutStatus(d, all, newRS);
  }

  private rolloutRecreate(d0: SimObject, rsList: SimObject[]): void {
    let { d, newRS, oldRSs } = this.newAndOld(d0, rsList, false);
    // Old pods go first, all of them, and must be gone (not just terminating) before new ones start.
    const scaledDown = active(oldRSs).map((rs) => this.scaleReplicaSet(d, rs, 0));
    oldRSs = oldRSs.map((rs) => scaledDown.find((s) => s.metadata.uid === rs.metadata.uid) ?? rs);
    const all = (): SimObject[] => (newRS ? [...oldRSs, newRS] : oldRSs);
    if (scaledDown.length || this.oldPodsRunning(oldRSs)) return this.syncRolloutStatus(d, all(), newRS);
    if (!newRS) ({ d, newRS } = this.newAndOld(d, oldRSs, true));
    if (newRS && specReplicas(newRS) !== specReplicas(d)) newRS = this.scaleReplicaSet(d, newRS, specReplicas(d));
    if (deploymentComplete(d, (d.status ?? {}) as Json)) this.cleanup(d, oldRSs);
    this.syncRolloutStatus(d, all(), newRS);
  }

  /** Scale the new ReplicaSet toward desired, up to desired + maxSurge pods in all (or straight down when too big). */
  private reconcileNewReplicaSet(d: SimObject, all: SimObject[], newRS: SimObject): SimObject {
    const desired = specReplicas(d);
    if (specReplicas(newRS) === desired) return newRS;
    if (specReplicas(newRS) > desired) return this.scaleReplicaSet(d, newRS, desired);
    return this.scaleReplicaSet(d, newRS, newRSNewReplicas(d, all, newRS));
  }

  /**
   * Scale old ReplicaSets down without going under desired - maxUnavailable available pods: unhealthy replicas
   * first (they block nothing by going), then the oldest ReplicaSets first. Answers the old ones when any shrank.
   */
  private reconcileOldReplicaSets(d: SimObject, all: SimObject[], oldRSs: SimObject[], newRS: SimObject): SimObject[] | undefined {
    let olds = active(oldRSs);
    if (sumSpec(olds) === 0) return undefined;
    const minAvailable = specReplicas(d) - maxUnavailable(d);
    const newUnavailable = specReplicas(newRS) - statusOf(newRS, 'availableReplicas');
    const maxScaledDown = sumSpec(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return undefined;
    let total = 0;
    olds = [...olds].sort(byCreation);
    for (let i = 0; i < olds.length && total < maxScaledDown; i++) {
      const rs = olds[i];
      const unhealthy = specReplicas(rs) - statusOf(rs, 'availableReplicas');
      if (specReplicas(rs) === 0 || unhealthy <= 0) continue;
      const n = Math.min(maxScaledDown - total, unhealthy);
      olds[i] = this.scaleReplicaSet(d, rs, specReplicas(rs) - n);
      total += n;
    }
    const available = sumStatus([...olds, newRS], 'availableReplicas');
    if (available > minAvailable) {
      const budget = available - minAvailable;
      let done = 0;
      for (let i = 0; i < olds.length && done < budget; i++) {
        const rs = olds[i];
        if (specReplicas(rs) === 0) continue;
        const n = Math.min(specReplicas(rs), budget - done);
        olds[i] = this.scaleReplicaSet(d, rs, specReplicas(rs) - n);
        done += n;
      }
      total += done;
    }
    if (total === 0) return undefined;
    return oldRSs.map((rs) => olds.find((o) => o.metadata.uid === rs.metadata.uid) ?? rs);
  }

  /** sync(): a paused Deployment or a resize — scale the ReplicaSets (proportionally mid-rollout) and report status. */
  private syncScale(d0: SimObject, rsList: SimObject[]): void {
    const { d, newRS, oldRSs } = this.newAndOld(d0, rsList, false);
    const all = this.scale(d, newRS, oldRSs);
    if ((d.spec as Json).paused === true) this.cleanup(d, all.filter((rs) => rs !== newRS && rs.metadata.uid !== newRS?.metadata.uid));
    const next = all.find((rs) => rs.metadata.uid === newRS?.metadata.uid);
    this.writeStatus(d, calculateStatus(d, all, next));
  }

  private scale(d: SimObject, newRS: SimObject | undefined, oldRSs: SimObject[]): SimObject[] {
    const all = newRS ? [...oldRSs, newRS] : [...oldRSs];
    const replace = (rs: SimObject, size: number): void => {
      const i = all.findIndex((x) => x.metadata.uid === rs.metadata.uid);
      all[i] = this.scaleReplicaSet(d, rs, size);
    };
    const activeRSs = active(all);
    // One active ReplicaSet (or none: then the newest) takes the whole count.
    if (activeRSs.length <= 1) {
      const target = activeRSs[0] ?? newRS ?? [...oldRSs].sort(byCreation).at(-1);
      if (target && specReplicas(target) !== specReplicas(d)) replace(target, specReplicas(d));
      return all;
    }
    if (isSaturated(d, newRS)) {
      for (const rs of active(oldRSs)) replace(rs, 0);
      return all;
    }
    if (isRollingUpdate(d)) {
      const sizes = proportionalSizes(d, activeRSs);
      for (const rs of activeRSs) replace(rs, sizes.get(rs.metadata.name!)!);
    }
    return all;
  }

  private syncStatusOnly(d0: SimObject, rsList: SimObject[]): void {
    const { d, newRS, oldRSs } = this.newAndOld(d0, rsList, false);
    this.writeStatus(d, calculateStatus(d, newRS ? [...oldRSs, newRS] : oldRSs, newRS));
  }

  /** syncRolloutStatus: counts plus the Progressing condition (complete, progressing, or unchanged). */
  private syncRolloutStatus(d: SimObject, all: SimObject[], newRS: SimObject | undefined): void {
    const status = calculateStatus(d, all, newRS);
    if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
    const current = conditionsOf((d.status ?? {}) as Json).find((c) => c.type === 'Progressing');
    const complete = status.replicas === status.updatedReplicas && current?.reason === REASONS.newReplicaSetAvailable;
    if (hasProgressDeadline(d) && !complete) {
      const what = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
      if (deploymentComplete(d, status)) {
        setCondition(status, newCondition('Progressing', 'True', REASONS.newReplicaSetAvailable, `${what} has successfully progressed.`));
      } else if (deploymentProgressing(d, status)) {
        // Progress refreshes lastUpdateTime (kube removes and re-adds the condition for that).
        const c = newCondition('Progressing', 'True', REASONS.replicaSetUpdated, `${what} is progressing.`);
        const was = conditionsOf(status).find((x) => x.type === 'Progressing');
        if (was?.status === 'True') c.lastTransitionTime = was.lastTransitionTime;
        removeCondition(status, 'Progressing');
        setCondition(status, c);
      }
    }
    this.writeStatus(d, status);
  }

  private checkPausedConditions(d: SimObject): SimObject {
    if (!hasProgressDeadline(d)) return d;
    const status = structuredClone((d.status ?? {}) as Json);
    const cond = conditionsOf(status).find((c) => c.type === 'Progressing');
    if (cond?.reason === 'ProgressDeadlineExceeded') return d;
    const pausedNoted = cond?.reason === REASONS.paused;
    const paused = (d.spec as Json).paused === true;
    if (paused && !pausedNoted) setCondition(status, newCondition('Progressing', 'Unknown', REASONS.paused, 'Deployment is paused'));
    else if (!paused && pausedNoted) setCondition(status, newCondition('Progressing', 'Unknown', REASONS.resumed, 'Deployment is resumed'));
    else return d;
    return this.writeStatus(d, status);
  }

  /** isScalingEvent: an active ReplicaSet was sized for a different spec.replicas than the Deployment's now. */
  private isScalingEvent(d: SimObject, rsList: SimObject[]): boolean {
    return active(rsList).some((rs) => {
      const desired = annotation(rs, DESIRED_REPLICAS);
      return desired !== undefined && Number(desired) !== specReplicas(d);
    });
  }

  /** Old pods of a Recreate rollout still exist (running or terminating). */
  private oldPodsRunning(oldRSs: SimObject[]): boolean {
    const { store, types } = this.ctx;
    return oldRSs.some((rs) => statusOf(rs, 'replicas') > 0 || store.storedIn(types.pods, rs.metadata.namespace).some((p) => {
      if (!p.json.includes(rs.metadata.uid!)) return false;
      const pod = p.obj;
      const phase = (pod.status as Json | undefined)?.phase;
      return controllerOf(pod)?.uid === rs.metadata.uid && phase !== 'Succeeded' && phase !== 'Failed';
    }));
  }

  /** cleanupDeployment: delete the oldest fully scaled-down ReplicaSets beyond revisionHistoryLimit (default 10). */
  private cleanup(d: SimObject, oldRSs: SimObject[]): void {
    const limit = Number((d.spec as Json).revisionHistoryLimit ?? 10);
    const cleanable = oldRSs.filter((rs) => rs.metadata.deletionTimestamp === undefined);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    const byRevision = [...cleanable].sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of byRevision.slice(0, diff)) {
      if (statusOf(rs, 'replicas') !== 0 || specReplicas(rs) !== 0 || (rs.metadata.generation ?? 0) > Number((rs.status as Json | undefined)?.observedGeneration ?? 0)) continue;
      deleteObject(this.ctx.store, this.ctx.types.replicaSets, rs.metadata.namespace, rs.metadata.name!, { preconditions: { uid: rs.metadata.uid } });
    }
  }

  // ---- writes ---------------------------------------------------------------------------------------

  /** scaleReplicaSet: new spec.replicas and the desired/max annotations, with a ScalingReplicaSet event on resize. */
  private scaleReplicaSet(d: SimObject, rs: SimObject, size: number): SimObject {
    const annotations = { ...(rs.metadata.annotations ?? {}), [DESIRED_REPLICAS]: String(specReplicas(d)), [MAX_REPLICAS]: String(specReplicas(d) + maxSurge(d)) };
    const from = specReplicas(rs);
    if (from === size && jsonEqual(annotations, rs.metadata.annotations ?? {})) return rs;
    const updated = this.ctx.store.updateObject(this.ctx.types.replicaSets, { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...(rs.spec as Json), replicas: size } }, writtenBy(this.ctx.types.replicaSets, CONTROLLER_MANAGER));
    if (from !== size) {
      this.ctx.events.record(d, this.ctx.types.deployments, 'Normal', 'ScalingReplicaSet', `Scaled ${size > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${size}`, COMPONENT);
    }
    return updated;
  }

  /** Writes status (and whatever else changed, e.g. the revision annotation) in one update; no change, no write. */
  private writeStatus(d: SimObject, status: Json): SimObject {
    return this.update(d, { ...d, status: wireStatus(status) });
  }

  private update(d: SimObject, next: SimObject): SimObject {
    if (jsonEqual(next, d)) return d;
    return this.ctx.store.updateObject(this.ctx.types.deployments, next, writtenBy(this.ctx.types.deployments, CONTROLLER_MANAGER, 'main+status'));
  }
}


/** EqualIgnoreHash: templates equal once the pod-template-hash label is taken out of both. */
function equalIgnoreHash(a: unknown, b: unknown): boolean {
  const strip = (t: unknown): unknown => {
    const c = structuredClone((t ?? {}) as Json);
    if (c.metadata?.labels) {
      delete c.metadata.labels[HASH_LABEL];
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
    }
    return c;
  };
  return jsonEqual(strip(a), strip(b));
}

/** SetNewReplicaSetAnnotations: the Deployment's own annotations, the revision, and desired/max replicas. */
function newRSAnnotations(d: SimObject, rs: SimObject, revision: number, existing: boolean): Record<string, string> {
  const out: Record<string, string> = { ...(rs.metadata.annotations ?? {}) };
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) out[k] = v;
  const current = Number(out[REVISION] ?? 0);
  if (!existing || current < revision) out[REVISION] = String(revision);
  if (out[DESIRED_REPLICAS] === undefined || !existing) out[DESIRED_REPLICAS] = String(specReplicas(d));
  if (out[MAX_REPLICAS] === undefined || !existing) out[MAX_REPLICAS] = String(specReplicas(d) + maxSurge(d));
  return out;
}

/** The Deployment with deployment.kubernetes.io/revision set to `revision`. */
function withRevision(d: SimObject, revision: string | undefined): SimObject {
  if (revision === undefined || annotation(d, REVISION) === revision) return d;
  return { ...d, metadata: { ...d.metadata, annotations: { ...(d.metadata.annotations ?? {}), [REVISION]: revision } } };
}
