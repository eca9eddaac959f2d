// The StatefulSet controller: pods named <set>-0 … <set>-(n-1), created in order (OrderedReady: the next only once
// the previous runs and is ready; Parallel: all at once), removed from the highest ordinal down, replaced one at a
// time from the highest ordinal when the template changes (RollingUpdate, ordinals below the partition keep the
// current revision), with kube's identity labels, hostname and subdomain, and a claim per volumeClaimTemplate
// (<template>-<set>-<ordinal>). Each distinct template is a ControllerRevision (<set>-<hash>, numbered), which the pods'
// controller-revision-hash label and status.currentRevision/updateRevision name; a template equal to an earlier
// revision (a rollback) reuses it under the next number, and unused revisions beyond revisionHistoryLimit are deleted.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import type { ResourceType } from '../registry.js';
import type { ControllerContext } from './controller-context.js';
import { hashRevision, nextRevision, revisionName, revisionTemplate, RevisionHistory, REVISION_HASH_LABEL, sameData, templatePatch } from './controller-history.js';
import { deleteObject } from './graceful-delete.js';
import { controllerOf, controllerRefTo } from './owner-references.js';
import { isActive, isReady } from './replicaset-controller.js';
import { specSelector } from './spec-selector.js';
import { WorkQueue } from './work-queue.js';
import { workloadPods } from './workload-pods.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const COMPONENT = { component: 'statefulset-controller' };
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const REVISION_LABEL = REVISION_HASH_LABEL;

/** The revisions one sync works with: the one pods are updated to, the one they are updated from. */
interface SetRevisions {
  update: SimObject;
  current: SimObject;
  collisionCount: number;
  /** The revisions that existed before this sync (what history truncation looks at). */
  before: SimObject[];
}

/** The ordinal of a pod named <set>-<n>, or -1 when the name is not one of the set's. */
export function ordinalOf(setName: string, podName: string): number {
  if (!podName.startsWith(`${setName}-`)) return -1;
  const rest = podName.slice(setName.length + 1);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

export class StatefulSetController {
  readonly queue: WorkQueue;
  private readonly sets: ResourceType;
  private readonly claims: ResourceType;
  private readonly history: RevisionHistory;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
    this.sets = ctx.store.resolve({ group: 'apps', version: 'v1', resource: 'statefulsets' });
    this.claims = ctx.store.resolve({ group: '', version: 'v1', resource: 'persistentvolumeclaims' });
    this.history = new RevisionHistory(ctx, this.sets);
  }

  get type(): ResourceType { return this.sets; }

  observeStatefulSet(change: Change): void {
    if (change.type !== 'DELETED') this.queue.add(change.key);
  }

  observePod(pod: () => SimObject): void {
    const owner = controllerOf(pod());
    if (owner?.kind === 'StatefulSet') this.queue.add(`${pod().metadata.namespace}/${owner.name}`);
  }

  /** A revision changed or went: its set looks again (it may have to recreate it, or may adopt an orphan). */
  observeRevision(revision: () => SimObject): void {
    const owner = controllerOf(revision());
    if (owner?.kind === 'StatefulSet') this.queue.add(`${revision().metadata.namespace}/${owner.name}`);
  }

  private sync(key: string): void {
    const found = workloadPods(this.ctx, this.sets, key);
    if (!found) return;
    const { workload: set, pods } = found;
    const spec = (set.spec ?? {}) as Json;
    const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const byOrdinal = new Map<number, SimObject>();
    for (const p of pods) {
      const i = ordinalOf(set.metadata.name!, p.metadata.name!);
      if (i >= 0) byOrdinal.set(i, p);
    }
    if (set.metadata.deletionTimestamp !== undefined) {
      // Being deleted: no new revisions; the status keeps naming the ones it named.
      const old = (set.status ?? {}) as Json;
      this.writeStatus(set, [...byOrdinal.values()], replicas, String(old.updateRevision ?? ''), String(old.currentRevision ?? ''), Number(old.collisionCount ?? 0));
      return;
    }
    const revisions = this.revisions(set);
    this.manage(set, byOrdinal, replicas, revisions);
    this.truncateHistory(set, [...byOrdinal.values()], revisions);
    this.writeStatus(set, [...byOrdinal.values()], replicas, revisions.update.metadata.name!, revisions.current.metadata.name!, revisions.collisionCount);
  }

  /**
   * getStatefulSetRevisions: the update revision is the set's template — the newest revision when it already holds
   * it, an older equal one renumbered to come next (a rollback), or a new revision; the current revision is the one
   * status.currentRevision names, or the update revision for a set without one.
   */
  private revisions(set: SimObject): SetRevisions {
    const selector = specSelector(set)!;
    const before = this.history.list(set, selector);
    const data = templatePatch(set);
    const number = nextRevision(before);
    let collisionCount = Number((set.status as Json | undefined)?.collisionCount ?? 0);
    const equal = before.filter((r) => sameData(r.data, data));
    let update: SimObject;
    if (equal.length && equal.at(-1) === before.at(-1)) update = before.at(-1)!;
    else if (equal.length) update = this.history.renumber(equal.at(-1)!, number);
    else {
      const name = set.metadata.name!;
      const created = this.history.create(set, {
        data, revision: number,
        labels: { ...((((set.spec as Json).template ?? {}).metadata?.labels ?? {}) as Record<string, string>) },
        annotations: set.metadata.annotations as Record<string, string> | undefined,
        naming: (collisions) => { const hash = hashRevision(data, collisions); return { name: revisionName(name, hash), hash }; },
      }, collisionCount);
      update = created.revision;
      collisionCount = created.collisionCount;
    }
    const currentName = (set.status as Json | undefined)?.currentRevision;
    const current = before.find((r) => r.metadata.name === currentName) ?? update;
    return { update, current, collisionCount, before };
  }

  /** One step of kube's StatefulSetControl: create what is missing, remove what is too many, replace what is outdated. */
  private manage(set: SimObject, pods: Map<number, SimObject>, replicas: number, revisions: SetRevisions): void {
    const spec = (set.spec ?? {}) as Json;
    const parallel = spec.podManagementPolicy === 'Parallel';
    const revision = revisions.update.metadata.name!;
    for (let i = 0; i < replicas; i++) {
      const pod = pods.get(i);
      if (!pod) {
        if (!this.ctx.budgets.statefulSet.allows()) return;
        this.createPod(set, i, revisions);
        if (!parallel) return;
        continue;
      }
      // A failed or finished pod is deleted and recreated under the same name once it is gone.
      if (!isActive(pod) && pod.metadata.deletionTimestamp === undefined) { this.deletePod(set, pod); return; }
      // OrderedReady waits for each pod to be running and ready before it looks at the next.
      if (!parallel && (!isActive(pod) || !isReady(pod))) return;
    }
    const extra = [...pods.keys()].filter((i) => i >= replicas).sort((a, b) => b - a);
    for (const i of extra) {
      const pod = pods.get(i)!;
      if (pod.metadata.deletionTimestamp === undefined) this.deletePod(set, pod);
      if (!parallel) return;
    }
    if (((spec.updateStrategy ?? {}) as Json).type === 'OnDelete') return;
    const partition = partitionOf(set);
    // RollingUpdate: wait for every pod to be ready, then replace the highest outdated ordinal.
    const current = [...pods.entries()].filter(([i]) => i < replicas);
    if (current.length < replicas || current.some(([, p]) => !isActive(p) || !isReady(p))) return;
    const outdated = current.filter(([i, p]) => i >= partition && p.metadata.labels?.[REVISION_LABEL] !== revision).sort((a, b) => b[0] - a[0]);
    if (outdated.length) this.deletePod(set, outdated[0][1]);
  }

  /** newVersionedStatefulSetPod: below a RollingUpdate's partition a pod is made from the current revision, else the update one. */
  private createPod(set: SimObject, ordinal: number, revisions: SetRevisions): void {
    const { store, types, events } = this.ctx;
    const spec = (set.spec ?? {}) as Json;
    const rolling = ((spec.updateStrategy ?? {}) as Json).type !== 'OnDelete';
    const from = rolling && ordinal < partitionOf(set) ? revisions.current : revisions.update;
    const revision = from.metadata.name!;
    const template = from === revisions.update ? (spec.template ?? {}) as Json : revisionTemplate(from);
    const meta = (template.metadata ?? {}) as Json;
    const name = `${set.metadata.name}-${ordinal}`;
    const podSpec = structuredClone(template.spec ?? {}) as Json;
    podSpec.hostname = name;
    if (spec.serviceName) podSpec.subdomain = spec.serviceName;
    const volumes = Array.isArray(podSpec.volumes) ? podSpec.volumes as Json[] : [];
    for (const t of (Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) as Json[]) {
      const claimName = `${t.metadata?.name}-${name}`;
      this.ensureClaim(set, t, claimName);
      const volume = { name: t.metadata?.name, persistentVolumeClaim: { claimName } };
      const at = volumes.findIndex((v) => v.name === volume.name);
      if (at >= 0) volumes[at] = volume; else volumes.push(volume);
    }
    if (volumes.length) podSpec.volumes = volumes;
    const pod: SimObject = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name, namespace: set.metadata.namespace,
        labels: { ...(meta.labels ?? {}), [REVISION_LABEL]: revision, [POD_INDEX_LABEL]: String(ordinal), [POD_NAME_LABEL]: name },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ownerReferences: [controllerRefTo(set, this.sets)],
      },
      spec: podSpec,
    };
    store.createObject(types.pods, pod, writtenBy(types.pods, CONTROLLER_MANAGER));
    this.ctx.budgets.statefulSet.spend();
    events.record(set, this.sets, 'Normal', 'SuccessfulCreate', `create Pod ${name} in StatefulSet ${set.metadata.name} successful`, COMPONENT);
  }

  /**
   * truncateHistory: revisions no pod runs and status does not name are history; beyond revisionHistoryLimit the
   * oldest of them are deleted.
   */
  private truncateHistory(set: SimObject, pods: SimObject[], revisions: SetRevisions): void {
    const live = new Set<string>([revisions.current.metadata.name!, revisions.update.metadata.name!]);
    for (const p of pods) { const r = p.metadata.labels?.[REVISION_LABEL]; if (r) live.add(r); }
    const history = revisions.before.filter((r) => !live.has(r.metadata.name!));
    const limit = Number((set.spec as Json).revisionHistoryLimit ?? 10);
    for (const r of history.slice(0, Math.max(0, history.length - limit))) this.history.delete(r);
  }

  private ensureClaim(set: SimObject, template: Json, name: string): void {
    const { store, events } = this.ctx;
    if (store.getStored(this.claims, set.metadata.namespace, name)) return;
    const labels = { ...(template.metadata?.labels ?? {}), ...(((set.spec as Json).selector?.matchLabels ?? {}) as Record<string, string>) };
    store.createObject(this.claims, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: set.metadata.namespace, labels }, spec: structuredClone(template.spec ?? {}) }, writtenBy(this.claims, CONTROLLER_MANAGER));
    events.record(set, this.sets, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${name.slice(String(template.metadata?.name).length + 1)} in StatefulSet ${set.metadata.name} success`, COMPONENT);
  }

  private deletePod(set: SimObject, pod: SimObject): void {
    deleteObject(this.ctx.store, this.ctx.types.pods, pod.metadata.namespace, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } });
    this.ctx.events.record(set, this.sets, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`, COMPONENT);
  }

  private writeStatus(set: SimObject, pods: SimObject[], replicas: number, updateRevision: string, currentRevision: string, collisionCount: number): void {
    const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
    const updated = live.filter((p) => p.metadata.labels?.[REVISION_LABEL] === updateRevision).length;
    const ready = live.filter((p) => isActive(p) && isReady(p)).length;
    // completeRollingUpdate: under RollingUpdate the current revision becomes the update revision once every replica runs it.
    const rolling = ((((set.spec ?? {}) as Json).updateStrategy ?? {}) as Json).type !== 'OnDelete';
    if (rolling && updated === replicas && ready === replicas && live.length === replicas) currentRevision = updateRevision;
    const current = live.filter((p) => p.metadata.labels?.[REVISION_LABEL] === currentRevision).length;
    const status: Json = { observedGeneration: set.metadata.generation, replicas: live.length };
    if (ready) status.readyReplicas = ready;
    if (current) status.currentReplicas = current;
    if (updated) status.updatedReplicas = updated;
    if (currentRevision) status.currentRevision = currentRevision;
    if (updateRevision) status.updateRevision = updateRevision;
    status.collisionCount = collisionCount;
    status.availableReplicas = ready;
    this.ctx.store.updateObject(this.sets, { ...set, status }, { subresource: 'status', ...writtenBy(this.sets, CONTROLLER_MANAGER, 'status') });
  }
}

/** spec.updateStrategy.rollingUpdate.partition (0 when unset). */
function partitionOf(set: SimObject): number {
  return Number(((set.spec as Json | undefined)?.updateStrategy?.rollingUpdate?.partition) ?? 0);
}
