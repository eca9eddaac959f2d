// The DaemonSet controller: one pod per node the template fits (its nodeSelector, the node's NoSchedule/NoExecute
// taints against the template's tolerations plus the ones kube adds to every daemon pod), named <set>-<5 random
// chars>, pinned to its node by node affinity on metadata.name as kube 1.32 does (the scheduler binds it), labelled
// with controller-revision-hash and pod-template-generation; pods on nodes that no longer fit are deleted, and a
// changed template replaces pods one node at a time (RollingUpdate, maxUnavailable 1). Each distinct template is a
// ControllerRevision (<set>-<hash>, the hash the pods' label carries); a template equal to an older revision (a
// rollback) makes that one the newest, and unused revisions beyond revisionHistoryLimit are deleted.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import type { ResourceType } from '../registry.js';
import type { ControllerContext } from './controller-context.js';
import { deleteObject } from './graceful-delete.js';
import { pinnedNodeName } from './node-affinity.js';
import { nextRevision, RevisionHistory, REVISION_HASH_LABEL, revisionNumber, sameData, templatePatch } from './controller-history.js';
import { controllerOf, controllerRefTo } from './owner-references.js';
import { podTemplateHash } from './pod-template-hash.js';
import { isActive, isReady } from './replicaset-controller.js';
import { WorkQueue } from './work-queue.js';
import { specSelector } from './spec-selector.js';
import { workloadPods } from './workload-pods.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;
interface Toleration { key?: string; operator?: string; value?: string; effect?: string }

const COMPONENT = { component: 'daemonset-controller' };
const REVISION_LABEL = REVISION_HASH_LABEL;
const GENERATION_LABEL = 'pod-template-generation';

/** util.AddOrUpdateDaemonPodTolerations: daemon pods survive node conditions and cordoning. */
export const DAEMON_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** The node a daemon pod is on or pinned to. */
function daemonPodNode(pod: SimObject): string | undefined {
  return ((pod.spec as Json | undefined)?.nodeName as string | undefined) || pinnedNodeName(pod);
}

function tolerates(tolerations: Toleration[], taint: Json): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** NodeShouldRunDaemonPod, in brief: the template's nodeSelector matches and every hard taint is tolerated. */
export function shouldRun(template: Json, node: SimObject): boolean {
  const podSpec = (template.spec ?? {}) as Json;
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries((podSpec.nodeSelector ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  const tolerations = [...((Array.isArray(podSpec.tolerations) ? podSpec.tolerations : []) as Toleration[]), ...DAEMON_TOLERATIONS];
  const taints = ((node.spec as Json | undefined)?.taints ?? []) as Json[];
  return taints.every((t) => (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') || tolerates(tolerations, t));
}

export class DaemonSetController {
  readonly queue: WorkQueue;
  private readonly sets: ResourceType;
  private readonly history: RevisionHistory;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
    this.sets = ctx.store.resolve({ group: 'apps', version: 'v1', resource: 'daemonsets' });
    this.history = new RevisionHistory(ctx, this.sets);
  }

  observeDaemonSet(change: Change): void {
    if (change.type !== 'DELETED') this.queue.add(change.key);
  }

  observePod(pod: () => SimObject): void {
    const owner = controllerOf(pod());
    if (owner?.kind === 'DaemonSet') this.queue.add(`${pod().metadata.namespace}/${owner.name}`);
  }

  /** A revision changed or went: its daemon set looks again. */
  observeRevision(revision: () => SimObject): void {
    const owner = controllerOf(revision());
    if (owner?.kind === 'DaemonSet') this.queue.add(`${revision().metadata.namespace}/${owner.name}`);
  }

  /** A node came, went or changed: every daemon set looks again. */
  observeNode(): void {
    for (const s of this.ctx.store.storedIn(this.sets)) this.queue.add(`${s.meta.namespace}/${s.meta.name}`);
  }

  private sync(key: string): void {
    const found = workloadPods(this.ctx, this.sets, key);
    if (!found) return;
    const { workload: set } = found;
    const template = ((set.spec ?? {}) as Json).template ?? {};
    const deleting = set.metadata.deletionTimestamp !== undefined;
    const history = deleting ? undefined : this.constructHistory(set);
    const revision = history?.hash ?? podTemplateHash(template);
    const nodes = this.ctx.store.storedIn(this.ctx.types.nodes).map((n) => n.obj);
    const pods = found.pods.filter((p) => isActive(p) || p.metadata.deletionTimestamp !== undefined);
    const byNode = new Map<string, SimObject[]>();
    for (const p of pods) {
      const node = daemonPodNode(p) ?? '';
      byNode.set(node, [...(byNode.get(node) ?? []), p]);
    }
    const wanted = nodes.filter((n) => shouldRun(template, n)).map((n) => n.metadata.name!);
    if (history) {
      this.manage(set, byNode, new Set(wanted), revision);
      this.cleanupHistory(set, found.pods, history.old);
    }
    this.writeStatus(set, byNode, wanted, revision, history?.collisionCount);
  }

  /**
   * constructHistory: the revision holding the set's template (created when there is none, numbered after every
   * other when it is not the newest) and the others. The pods' hash label is the current revision's.
   */
  private constructHistory(set: SimObject): { hash: string; old: SimObject[]; collisionCount: number | undefined } {
    const data = templatePatch(set);
    const current: SimObject[] = [], old: SimObject[] = [];
    for (const r of this.history.list(set, specSelector(set)!)) (sameData(r.data, data) ? current : old).push(r);
    const number = nextRevision(old);
    const counted = (set.status as Json | undefined)?.collisionCount;
    let collisionCount = typeof counted === 'number' ? counted : undefined;
    let cur: SimObject;
    if (!current.length) {
      const template = ((set.spec as Json).template ?? {}) as Json;
      const created = this.history.create(set, {
        data, revision: number,
        labels: { ...((template.metadata?.labels ?? {}) as Record<string, string>) },
        annotations: set.metadata.annotations as Record<string, string> | undefined,
        // ComputeHash(template, status.collisionCount): no collision count hashes differently from a count of 0.
        naming: (collisions) => {
          const hash = podTemplateHash(template, collisions === 0 && collisionCount === undefined ? undefined : collisions);
          return { name: `${set.metadata.name}-${hash}`, hash };
        },
      }, collisionCount ?? 0);
      cur = created.revision;
      if (created.collisionCount !== (collisionCount ?? 0)) collisionCount = created.collisionCount;
    } else {
      // dedupCurHistories: of equal revisions the highest numbered one stays.
      current.sort((a, b) => revisionNumber(b) - revisionNumber(a));
      cur = current[0];
      for (const dup of current.slice(1)) this.history.delete(dup);
      if (revisionNumber(cur) < number) cur = this.history.renumber(cur, number);
    }
    const hash = String(cur.metadata.labels?.[REVISION_LABEL] ?? cur.metadata.name);
    return { hash, old, collisionCount };
  }

  /** cleanupHistory: beyond revisionHistoryLimit, the oldest revisions no pod carries the hash of are deleted. */
  private cleanupHistory(set: SimObject, pods: SimObject[], old: SimObject[]): void {
    let toKill = old.length - Number((set.spec as Json).revisionHistoryLimit ?? 10);
    if (toKill <= 0) return;
    const liveHashes = new Set(pods.map((p) => p.metadata.labels?.[REVISION_LABEL]).filter(Boolean));
    for (const r of [...old].sort((a, b) => revisionNumber(a) - revisionNumber(b))) {
      if (toKill <= 0) break;
      if (liveHashes.has(r.metadata.labels?.[REVISION_LABEL])) continue;
      this.history.delete(r);
      toKill--;
    }
  }

  private manage(set: SimObject, byNode: Map<string, SimObject[]>, wanted: Set<string>, revision: string): void {
    for (const node of wanted) {
      const live = (byNode.get(node) ?? []).filter((p) => p.metadata.deletionTimestamp === undefined);
      if (live.length === 0 && !(byNode.get(node) ?? []).length) {
        if (!this.ctx.budgets.daemonSet.allows()) break;
        this.createPod(set, node, revision);
      }
      // Duplicates on one node: keep the oldest.
      for (const extra of live.slice(1)) this.deletePod(set, extra);
    }
    for (const [node, pods] of byNode) {
      if (wanted.has(node)) continue;
      for (const p of pods) if (p.metadata.deletionTimestamp === undefined) this.deletePod(set, p);
    }
    const strategy = ((set.spec as Json).updateStrategy ?? {}) as Json;
    if (strategy.type === 'OnDelete') return;
    // RollingUpdate with maxUnavailable 1: replace one outdated pod once every other daemon pod is ready.
    const all = [...wanted].flatMap((n) => byNode.get(n) ?? []);
    if (all.length < wanted.size || all.some((p) => p.metadata.deletionTimestamp !== undefined || !isReady(p))) return;
    const outdated = all.find((p) => p.metadata.labels?.[REVISION_LABEL] !== revision);
    if (outdated) this.deletePod(set, outdated);
  }

  private createPod(set: SimObject, node: string, revision: string): void {
    const { store, types, events } = this.ctx;
    const template = ((set.spec as Json).template ?? {}) as Json;
    const meta = (template.metadata ?? {}) as Json;
    const podSpec = structuredClone(template.spec ?? {}) as Json;
    const own = (Array.isArray(podSpec.tolerations) ? podSpec.tolerations : []) as Toleration[];
    podSpec.tolerations = [...own, ...DAEMON_TOLERATIONS.filter((t) => !own.some((o) => o.key === t.key && o.effect === t.effect))];
    podSpec.affinity = {
      ...(podSpec.affinity ?? {}),
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } },
    };
    const created = store.createObject(types.pods, {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        generateName: `${set.metadata.name}-`, namespace: set.metadata.namespace,
        labels: { ...(meta.labels ?? {}), [REVISION_LABEL]: revision, [GENERATION_LABEL]: String(set.metadata.generation ?? 1) },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ownerReferences: [controllerRefTo(set, this.sets)],
      },
      spec: podSpec,
    }, writtenBy(types.pods, CONTROLLER_MANAGER));
    this.ctx.budgets.daemonSet.spend();
    events.record(set, this.sets, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`, COMPONENT);
  }

  private deletePod(set: SimObject, pod: SimObject): void {
    deleteObject(this.ctx.store, this.ctx.types.pods, pod.metadata.namespace, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } });
    this.ctx.events.record(set, this.sets, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, COMPONENT);
  }

  private writeStatus(set: SimObject, byNode: Map<string, SimObject[]>, wanted: string[], revision: string, collisionCount: number | undefined): void {
    const wantedSet = new Set(wanted);
    let current = 0, misscheduled = 0, ready = 0, updated = 0;
    for (const [node, pods] of byNode) {
      const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
      if (!live.length) continue;
      if (!wantedSet.has(node)) { misscheduled++; continue; }
      current++;
      if (live.some(isReady)) ready++;
      if (live.some((p) => p.metadata.labels?.[REVISION_LABEL] === revision)) updated++;
    }
    const status: Json = { currentNumberScheduled: current, numberMisscheduled: misscheduled, desiredNumberScheduled: wanted.length, numberReady: ready, observedGeneration: set.metadata.generation };
    if (updated) status.updatedNumberScheduled = updated;
    if (ready) status.numberAvailable = ready;
    if (wanted.length - ready > 0) status.numberUnavailable = wanted.length - ready;
    if (collisionCount !== undefined) status.collisionCount = collisionCount;
    this.ctx.store.updateObject(this.sets, { ...set, status }, { subresource: 'status', ...writtenBy(this.sets, CONTROLLER_MANAGER, 'status') });
  }
}

