// The ReplicaSet controller: keeps spec.replicas pods (from the template, owned by the ReplicaSet) and reports how
// many exist, carry the template's labels, are ready and are available.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { specSelector } from './spec-selector.js';
import { drivenByGenerator, keyOf, type ControllerContext } from './controller-context.js';
import { deleteObject } from './graceful-delete.js';
import { controllerOf, controllerRefTo } from './owner-references.js';
import { WorkQueue } from './work-queue.js';
import { workloadPods } from './workload-pods.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const COMPONENT = { component: 'replicaset-controller' };
/** kube's burstReplicas: at most this many pods created or deleted per sync. */
const BURST = 500;

export class ReplicaSetController {
  readonly queue: WorkQueue;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observeReplicaSet(change: Change): void {
    if (change.type === 'DELETED' || this.ctx.generatorOwns(change.cur.meta.uid)) return;
    this.queue.add(change.key);
  }

  observePod(change: Change, pod: () => SimObject): void {
    const p = pod();
    const owner = controllerOf(p);
    if (owner) {
      if (owner.kind === 'ReplicaSet' && !this.ctx.generatorOwns(owner.uid)) this.queue.add(`${p.metadata.namespace}/${owner.name}`);
      return;
    }
    // An orphan may be adopted by any ReplicaSet whose selector matches it.
    if (change.type === 'DELETED' || p.metadata.deletionTimestamp !== undefined) return;
    for (const rs of this.ctx.store.storedIn(this.ctx.types.replicaSets, p.metadata.namespace)) {
      if (this.ctx.generatorOwns(rs.meta.uid)) continue;
      const obj = rs.obj;
      if (specSelector(obj)?.matches(p.metadata.labels)) this.queue.add(keyOf(obj));
    }
  }

  private sync(key: string): void {
    const found = workloadPods(this.ctx, this.ctx.types.replicaSets, key, (rs) => drivenByGenerator(this.ctx, rs));
    if (!found) return;
    const { workload: rs, pods } = found;
    const { store, types } = this.ctx;
    const active = pods.filter(isActive);
    const replicas = specReplicas(rs);
    if (rs.metadata.deletionTimestamp === undefined) this.manage(rs, active, replicas);
    // Status is what this sync saw, as kube computes it from the pods listed before acting.
    const minReadySeconds = Number((rs.spec as Json).minReadySeconds ?? 0);
    const now = Date.now();
    const templateLabels = ((rs.spec as Json).template?.metadata?.labels ?? {}) as Record<string, string>;
    const status = replicaSetStatus(rs, active, templateLabels, minReadySeconds, now);
    store.updateObject(types.replicaSets, { ...rs, status }, { subresource: 'status', ...writtenBy(types.replicaSets, CONTROLLER_MANAGER, 'status') });
    // Ready pods become available after minReadySeconds: look again then.
    if (minReadySeconds > 0 && status.readyReplicas === replicas && (status.availableReplicas ?? 0) !== replicas) this.queue.add(key, minReadySeconds * 1000);
  }

  private manage(rs: SimObject, active: SimObject[], replicas: number): void {
    const { store, types, events } = this.ctx;
    const diff = active.length - replicas;
    if (diff < 0) {
      const template = ((rs.spec as Json).template ?? {}) as Json;
      const meta = (template.metadata ?? {}) as Json;
      for (let i = 0; i < Math.min(-diff, BURST); i++) {
        if (!this.ctx.budgets.replicaSet.allows()) return;
        const pod: SimObject = {
          apiVersion: 'v1', kind: 'Pod',
          metadata: {
            generateName: `${rs.metadata.name}-`, namespace: rs.metadata.namespace,
            ...(meta.labels ? { labels: { ...meta.labels } } : {}),
            ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
            ownerReferences: [controllerRefTo(rs, types.replicaSets)],
            ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
          },
          spec: structuredClone(template.spec ?? {}),
        };
        let created: SimObject;
        try {
          created = store.createObject(types.pods, pod, writtenBy(types.pods, CONTROLLER_MANAGER));
        } catch (err) {
          // A refused create (a quota, a terminating namespace) is told on the ReplicaSet, then retried with backoff.
          events.record(rs, types.replicaSets, 'Warning', 'FailedCreate', `Error creating: ${err instanceof Error ? err.message : String(err)}`, COMPONENT);
          throw err;
        }
        this.ctx.budgets.replicaSet.spend();
        events.record(rs, types.replicaSets, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`, COMPONENT);
      }
    } else if (diff > 0) {
      for (const victim of podsToDelete(active, Math.min(diff, BURST))) {
        deleteObject(store, types.pods, victim.metadata.namespace, victim.metadata.name!, { preconditions: { uid: victim.metadata.uid } });
        events.record(rs, types.replicaSets, 'Normal', 'SuccessfulDelete', `Deleted pod: ${victim.metadata.name}`, COMPONENT);
      }
    }
  }
}

export function specReplicas(obj: SimObject): number {
  const r = (obj.spec as Json | undefined)?.replicas;
  return typeof r === 'number' ? r : 1;
}


/** controller.IsPodActive: not finished and not being deleted. */
export function isActive(pod: SimObject): boolean {
  const phase = (pod.status as Json | undefined)?.phase;
  return pod.metadata.deletionTimestamp === undefined && phase !== 'Succeeded' && phase !== 'Failed';
}

function readyCondition(pod: SimObject): Json | undefined {
  return (((pod.status as Json | undefined)?.conditions ?? []) as Json[]).find((c) => c.type === 'Ready');
}

export function isReady(pod: SimObject): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** podutil.IsPodAvailable: ready for at least minReadySeconds. */
export function isAvailable(pod: SimObject, minReadySeconds: number, now: number): boolean {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds === 0) return true;
  const since = Date.parse(String(ready.lastTransitionTime ?? ''));
  return Number.isFinite(since) && since + minReadySeconds * 1000 < now;
}

/** ReplicaSetStatus in Go field order; zero counts other than replicas are omitted (omitempty). */
function replicaSetStatus(rs: SimObject, active: SimObject[], templateLabels: Record<string, string>, minReadySeconds: number, now: number): Json {
  const fullyLabeled = active.filter((p) => Object.entries(templateLabels).every(([k, v]) => p.metadata.labels?.[k] === v)).length;
  const ready = active.filter(isReady).length;
  const available = active.filter((p) => isAvailable(p, minReadySeconds, now)).length;
  const status: Json = { replicas: active.length };
  if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  if (rs.metadata.generation) status.observedGeneration = rs.metadata.generation;
  const conditions = (rs.status as Json | undefined)?.conditions;
  if (Array.isArray(conditions) && conditions.length) status.conditions = conditions;
  return status;
}

/**
 * Which pods go first when scaling down (kube's ActivePodsWithRanks): unscheduled before scheduled, Pending before
 * Running, not ready before ready, pods doubled up on a node before lone ones, ready for less time first, more
 * restarts first, newer first.
 */
export function podsToDelete(pods: SimObject[], n: number): SimObject[] {
  const onNode = new Map<string, number>();
  for (const p of pods) {
    const node = String((p.spec as Json | undefined)?.nodeName ?? '');
    if (node) onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const phaseRank = (p: SimObject): number => ({ Pending: 0, Unknown: 1, Running: 2 } as Record<string, number>)[String((p.status as Json | undefined)?.phase)] ?? 0;
  const restarts = (p: SimObject): number => (((p.status as Json | undefined)?.containerStatuses ?? []) as Json[]).reduce((n, c) => Math.max(n, Number(c.restartCount ?? 0)), 0);
  const readySince = (p: SimObject): number => Date.parse(String(readyCondition(p)?.lastTransitionTime ?? '')) || 0;
  const key = (p: SimObject): number[] => {
    const node = String((p.spec as Json | undefined)?.nodeName ?? '');
    return [node ? 1 : 0, phaseRank(p), isReady(p) ? 1 : 0, -(node ? onNode.get(node)! : 0), isReady(p) ? -readySince(p) : 0, -restarts(p), -(Date.parse(p.metadata.creationTimestamp ?? '') || 0)];
  };
  return [...pods].sort((a, b) => {
    const ka = key(a), kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return a.metadata.name! < b.metadata.name! ? 1 : -1;
  }).slice(0, n);
}
