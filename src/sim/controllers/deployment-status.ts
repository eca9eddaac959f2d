// Deployment status as kube's deployment controller computes it: the replica counts over its ReplicaSets and the
// Available / Progressing conditions with kube's reasons and messages.
import type { SimObject } from '../api.js';
import { kubeTime } from '../object-meta.js';
import { maxUnavailable, statusOf, sumSpec, sumStatus } from './deployment-rollout.js';
import { specReplicas } from './replicaset-controller.js';

type Json = Record<string, any>;

export interface DeploymentCondition {
  type: 'Available' | 'Progressing' | string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export const REASONS = {
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
} as const;

export function conditionsOf(status: Json | undefined): DeploymentCondition[] {
  return Array.isArray(status?.conditions) ? status!.conditions as DeploymentCondition[] : [];
}

export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string): DeploymentCondition {
  const now = kubeTime(new Date());
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/**
 * SetDeploymentCondition: nothing changes when status and reason are the same; otherwise the condition moves to the
 * end of the list, keeping lastTransitionTime while its status holds (hence kube's usual Available, Progressing order).
 */
export function setCondition(status: Json, c: DeploymentCondition): void {
  const conditions = conditionsOf(status);
  const current = conditions.find((x) => x.type === c.type);
  if (current && current.status === c.status && current.reason === c.reason) return;
  if (current && current.status === c.status) c.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...conditions.filter((x) => x.type !== c.type), c];
}

export function removeCondition(status: Json, type: string): void {
  status.conditions = conditionsOf(status).filter((x) => x.type !== type);
}

/** calculateStatus: counts over all ReplicaSets, updatedReplicas from the new one, and the Available condition. */
export function calculateStatus(d: SimObject, allRSs: SimObject[], newRS: SimObject | undefined): Json {
  const prev = (d.status ?? {}) as Json;
  const available = sumStatus(allRSs, 'availableReplicas');
  const unavailable = Math.max(0, sumSpec(allRSs) - available);
  const status: Json = {
    observedGeneration: d.metadata.generation,
    replicas: sumStatus(allRSs, 'replicas'),
    updatedReplicas: statusOf(newRS, 'replicas'),
    readyReplicas: sumStatus(allRSs, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    conditions: conditionsOf(prev).map((c) => ({ ...c })),
    collisionCount: prev.collisionCount,
  };
  if (available >= specReplicas(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', REASONS.minimumReplicasAvailable, 'Deployment has minimum availability.'));
  } else {
    setCondition(status, newCondition('Available', 'False', REASONS.minimumReplicasUnavailable, 'Deployment does not have minimum availability.'));
  }
  return status;
}

/** DeploymentStatus in Go field order with omitempty applied (zero counts and an empty condition list vanish). */
export function wireStatus(status: Json): Json {
  const out: Json = {};
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'conditions', 'collisionCount']) {
    const v = status[k];
    if (v === undefined || v === null || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out;
}

/** DeploymentComplete: every desired replica is updated and available, and the spec has been observed. */
export function deploymentComplete(d: SimObject, status: Json): boolean {
  const desired = specReplicas(d);
  return (status.updatedReplicas ?? 0) === desired && (status.replicas ?? 0) === desired && (status.availableReplicas ?? 0) === desired && (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, ready or available replicas than before, or fewer old ones. */
export function deploymentProgressing(d: SimObject, status: Json): boolean {
  const old = (d.status ?? {}) as Json;
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** progressDeadlineSeconds defaults to 600; MaxInt32 means "no deadline". */
export function hasProgressDeadline(d: SimObject): boolean {
  const v = (d.spec as Json | undefined)?.progressDeadlineSeconds;
  return v === undefined || v !== 2147483647;
}
