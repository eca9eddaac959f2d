// The scheduler stand-in: binds each unscheduled pod to a feasible node, spreading pods over nodes; with no feasible
// node the pod stays Pending with PodScheduled=False (reason Unschedulable) until a node change lets it fit.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { kubeTime } from '../object-meta.js';
import { drivenByGenerator, splitKey, type ControllerContext } from './controller-context.js';
import { pinnedNodeName } from './node-affinity.js';
import { WorkQueue } from './work-queue.js';
import { SCHEDULER as SCHEDULER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

const SCHEDULER = 'default-scheduler';

interface Taint { key: string; value?: string; effect: string }
interface Toleration { key?: string; operator?: string; value?: string; effect?: string }

export class Scheduler {
  readonly queue: WorkQueue;
  /** Pods that found no node: retried whenever a node changes. */
  private readonly waiting = new Set<string>();

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observePod(change: Change, pod: () => SimObject): void {
    if (change.type === 'DELETED') { this.waiting.delete(change.key); return; }
    const f = change.cur.meta.fields;
    if (f['spec.nodeName'] !== '' || (f['spec.schedulerName'] !== SCHEDULER && f['spec.schedulerName'] !== '')) return;
    const p = pod();
    if (p.metadata.deletionTimestamp !== undefined || drivenByGenerator(this.ctx, p)) return;
    this.queue.add(change.key);
  }

  observeNode(change: Change): void {
    if (change.type === 'DELETED') return;
    for (const key of this.waiting) this.queue.add(key);
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const { store, types } = this.ctx;
    const stored = store.getStored(types.pods, namespace, name);
    if (!stored) { this.waiting.delete(key); return; }
    const pod = stored.obj;
    const spec = (pod.spec ?? {}) as Json;
    if (spec.nodeName || pod.metadata.deletionTimestamp !== undefined || (spec.schedulerName ?? SCHEDULER) !== SCHEDULER || drivenByGenerator(this.ctx, pod)) {
      this.waiting.delete(key);
      return;
    }
    const nodes = store.storedIn(types.nodes).map((n) => n.obj);
    const reasons = new Map<string, number>();
    const feasible: SimObject[] = [];
    for (const node of nodes) {
      const why = unfit(pod, node);
      if (why === undefined) feasible.push(node);
      else reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    const now = kubeTime(new Date());
    if (feasible.length === 0) {
      this.waiting.add(key);
      const message = nodes.length === 0 ? 'no nodes available to schedule pods' : fitError(nodes.length, reasons);
      const conditions = withCondition(pod, { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: now, reason: 'Unschedulable', message });
      if (conditions === undefined) return; // already says so
      const updated = store.updateObject(types.pods, { ...pod, status: { ...(pod.status as Json), conditions } }, writtenBy(types.pods, SCHEDULER_MANAGER, 'status'));
      this.ctx.events.record(updated, types.pods, 'Warning', 'FailedScheduling', message, { component: SCHEDULER });
      return;
    }
    this.waiting.delete(key);
    const node = leastLoaded(this.ctx, pod, feasible);
    // The binding subresource: spec.nodeName plus PodScheduled=True in one write.
    const conditions = withCondition(pod, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }) ?? (pod.status as Json).conditions;
    const bound = store.updateObject(types.pods, { ...pod, spec: { ...spec, nodeName: node.metadata.name }, status: { ...(pod.status as Json), conditions } });
    this.ctx.events.record(bound, types.pods, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${node.metadata.name}`, { component: SCHEDULER });
  }
}

/** Why `node` cannot take `pod` (the scheduler's filter plugins, in brief), or undefined when it can. */
function unfit(pod: SimObject, node: SimObject): string | undefined {
  const nodeSpec = (node.spec ?? {}) as Json;
  const podSpec = (pod.spec ?? {}) as Json;
  const tolerations = (Array.isArray(podSpec.tolerations) ? podSpec.tolerations : []) as Toleration[];
  if (nodeSpec.unschedulable === true && !tolerates(tolerations, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) return 'node(s) were unschedulable';
  const ready = ((node.status as Json | undefined)?.conditions ?? []).find((c: Json) => c.type === 'Ready');
  if (ready && ready.status !== 'True' && !tolerates(tolerations, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' })) {
    return 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }';
  }
  for (const taint of (Array.isArray(nodeSpec.taints) ? nodeSpec.taints : []) as Taint[]) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerates(tolerations, taint)) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  }
  const selector = (podSpec.nodeSelector ?? {}) as Record<string, string>;
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(selector)) if (labels[k] !== v) return "node(s) didn't match Pod's node affinity/selector";
  const pinned = pinnedNodeName(pod);
  if (pinned !== undefined && pinned !== node.metadata.name) return "node(s) didn't match Pod's node affinity/selector";
  return undefined;
}

function tolerates(tolerations: Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** framework.FitError's message: a sorted histogram of reasons, then the preemption verdict. */
function fitError(nodes: number, reasons: Map<string, number>): string {
  const parts = [...reasons].map(([why, n]) => `${n} ${why}`).sort();
  return `0/${nodes} nodes are available: ${parts.join(', ')}. preemption: 0/${nodes} nodes are available: ${nodes} Preemption is not helpful for scheduling.`;
}

/**
 * Where the pod goes: the feasible node with the fewest of its siblings (pods of its namespace with the same labels,
 * i.e. replicas of the same template — what kube's default topology spreading evens out), then the fewest pods in
 * all; ties go to the first by name, so placement is deterministic.
 */
function leastLoaded(ctx: ControllerContext, pod: SimObject, nodes: SimObject[]): SimObject {
  const siblings = new Map<string, number>(nodes.map((n) => [n.metadata.name!, 0]));
  const total = new Map<string, number>(nodes.map((n) => [n.metadata.name!, 0]));
  const labels = pod.metadata.labels ?? {};
  const keys = Object.keys(labels);
  for (const p of ctx.store.storedIn(ctx.types.pods)) {
    const n = p.meta.fields['spec.nodeName'];
    if (!n || !total.has(n)) continue;
    total.set(n, total.get(n)! + 1);
    const other = p.meta.labels ?? {};
    if (p.meta.namespace === pod.metadata.namespace && keys.length === Object.keys(other).length && keys.every((k) => other[k] === labels[k])) siblings.set(n, siblings.get(n)! + 1);
  }
  const name = (n: SimObject): string => n.metadata.name!;
  return [...nodes].sort((a, b) => siblings.get(name(a))! - siblings.get(name(b))! || total.get(name(a))! - total.get(name(b))! || (name(a) < name(b) ? -1 : 1))[0];
}

/** The conditions with `c` replacing any of its type; undefined when the pod already has it (same status, reason, message). */
function withCondition(pod: SimObject, c: Json): Json[] | undefined {
  const conditions = (((pod.status as Json | undefined)?.conditions ?? []) as Json[]);
  const old = conditions.find((x) => x.type === c.type);
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return undefined;
  if (old && old.status === c.status) c.lastTransitionTime = old.lastTransitionTime;
  return [...conditions.filter((x) => x.type !== c.type), c];
}
