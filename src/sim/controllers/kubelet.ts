// The kubelet stand-in: starts pods bound to an existing node (ContainerCreating, then Running with an IP), and
// stops pods marked for deletion after their (scaled) grace period, then removes them as the kubelet does.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { kubeTime } from '../object-meta.js';
import { drivenByGenerator, splitKey, type ControllerContext } from './controller-context.js';
import { deleteObject } from './graceful-delete.js';
import { runsToCompletion } from './pod-completion.js';
import { nodeIP, podStage, podStatusFor } from './pod-status.js';
import { WorkQueue } from './work-queue.js';
import { KUBELET, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

export class Kubelet {
  readonly queue: WorkQueue;
  /** When each pod (by uid) entered ContainerCreating, to run it podStartMs later. */
  private readonly creatingSince = new Map<string, number>();
  /** When each pod (by uid) was first seen marked for deletion: its shutdown starts then. */
  private readonly stoppingSince = new Map<string, number>();
  /** When each Job pod (by uid) started running, to complete it jobPodRunMs later. */
  private readonly runningSince = new Map<string, number>();
  /** Pods bound to a node that does not exist (yet): nobody runs them until it does. */
  private readonly orphans = new Map<string, string>();

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observePod(change: Change, pod: () => SimObject): void {
    if (change.type === 'DELETED') {
      this.creatingSince.delete(change.cur.meta.uid);
      this.stoppingSince.delete(change.cur.meta.uid);
      this.runningSince.delete(change.cur.meta.uid);
      this.orphans.delete(change.key);
      return;
    }
    if (change.cur.meta.fields['spec.nodeName'] === '' && !change.cur.json.includes('"deletionTimestamp"')) return;
    const p = pod();
    // The generator runs its own pods; once someone deletes one, finishing that is the kubelet's job.
    if (p.metadata.deletionTimestamp === undefined && drivenByGenerator(this.ctx, p)) return;
    this.queue.add(change.key);
  }

  observeNode(change: Change): void {
    if (change.type !== 'ADDED') return;
    for (const [key, node] of this.orphans) if (node === change.cur.meta.name) this.queue.add(key);
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const { store, types, timings } = this.ctx;
    const stored = store.getStored(types.pods, namespace, name);
    if (!stored) return;
    const pod = stored.obj;
    const uid = pod.metadata.uid!;
    const now = Date.now();
    if (pod.metadata.deletionTimestamp !== undefined) return this.stop(key, pod, now);
    if (drivenByGenerator(this.ctx, pod)) return;
    const nodeName = (pod.spec as Json | undefined)?.nodeName as string | undefined;
    if (!nodeName) return;
    const node = store.getStored(types.nodes, undefined, nodeName)?.obj;
    if (!node) { this.orphans.set(key, nodeName); return; }
    this.orphans.delete(key);
    const time = kubeTime(new Date(now));
    const stage = podStage(pod);
    const hostIP = { ip: nodeIP(node) };
    if (stage === undefined) {
      this.creatingSince.set(uid, now);
      store.updateObject(types.pods, { ...pod, status: podStatusFor(pod, 'creating', hostIP, undefined, time) }, writtenBy(types.pods, KUBELET, 'status'));
      this.queue.add(key, timings.podStartMs);
      return;
    }
    if (stage === 'running' && runsToCompletion(pod)) return this.complete(key, pod, node, now);
    if (stage !== 'creating') return;
    const since = this.creatingSince.get(uid) ?? now;
    if (!this.creatingSince.has(uid)) this.creatingSince.set(uid, now);
    if (now < since + timings.podStartMs) { this.queue.add(key, since + timings.podStartMs - now); return; }
    this.creatingSince.delete(uid);
    const running = store.updateObject(types.pods, { ...pod, status: podStatusFor(pod, 'running', hostIP, this.podIP(node), time) }, writtenBy(types.pods, KUBELET, 'status'));
    const source = { component: 'kubelet', host: nodeName };
    for (const c of ((pod.spec as Json).containers ?? []) as Json[]) {
      const fieldPath = `spec.containers{${c.name}}`;
      this.ctx.events.record(running, types.pods, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, source, fieldPath);
      this.ctx.events.record(running, types.pods, 'Normal', 'Created', `Created container: ${c.name}`, source, fieldPath);
      this.ctx.events.record(running, types.pods, 'Normal', 'Started', `Started container ${c.name}`, source, fieldPath);
    }
    if (runsToCompletion(running)) { this.runningSince.set(uid, now); this.queue.add(key, timings.jobPodRunMs); }
  }

  /** A Job's pod: its containers exit 0 after jobPodRunMs of running (phase Succeeded, terminated reason Completed). */
  private complete(key: string, pod: SimObject, node: SimObject, now: number): void {
    const uid = pod.metadata.uid!;
    const since = this.runningSince.get(uid) ?? now;
    if (!this.runningSince.has(uid)) this.runningSince.set(uid, now);
    const due = since + this.ctx.timings.jobPodRunMs;
    if (now < due) { this.queue.add(key, due - now); return; }
    this.runningSince.delete(uid);
    this.ctx.store.updateObject(this.ctx.types.pods, { ...pod, status: podStatusFor(pod, 'stopped', { ip: nodeIP(node) }, undefined, kubeTime(new Date(now))) }, writtenBy(this.ctx.types.pods, KUBELET, 'status'));
  }

  /**
   * Graceful shutdown: the containers get deletionGracePeriodSeconds × graceScale to stop; then the kubelet reports
   * them terminated and deletes the pod with grace 0 (kube's status manager does the same), which finishes the
   * deletion unless finalizers still hold the pod.
   */
  private stop(key: string, pod: SimObject, now: number): void {
    const { store, types, timings } = this.ctx;
    const uid = pod.metadata.uid!;
    const grace = Number(pod.metadata.deletionGracePeriodSeconds ?? 0);
    if (grace === 0) return; // already told to go; only finalizers keep it
    let since = this.stoppingSince.get(uid);
    if (since === undefined) {
      since = now;
      this.stoppingSince.set(uid, now);
      const nodeName = (pod.spec as Json | undefined)?.nodeName as string | undefined;
      for (const c of ((pod.spec as Json | undefined)?.containers ?? []) as Json[]) {
        this.ctx.events.record(pod, types.pods, 'Normal', 'Killing', `Stopping container ${c.name}`, { component: 'kubelet', host: nodeName }, `spec.containers{${c.name}}`);
      }
    }
    const due = since + grace * 1000 * timings.graceScale;
    if (now < due) { this.queue.add(key, due - now); return; }
    let current = pod;
    if (podStage(pod) === 'running') {
      const node = store.getStored(types.nodes, undefined, String((pod.spec as Json).nodeName))?.obj;
      const hostIP = { ip: node ? nodeIP(node) : String((pod.status as Json).hostIP ?? '') };
      current = store.updateObject(types.pods, { ...pod, status: podStatusFor(pod, 'stopped', hostIP, undefined, kubeTime(new Date(now))) }, writtenBy(types.pods, KUBELET, 'status'));
    }
    this.stoppingSince.delete(uid);
    deleteObject(store, types.pods, current.metadata.namespace, current.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid } });
  }

  /** The lowest free address in the node's pod CIDR (addresses of pods already on the node are skipped). */
  private podIP(node: SimObject): string {
    const cidr = String((node.spec as Json | undefined)?.podCIDR ?? '');
    const base = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(cidr)?.[1] ?? `10.244.${this.nodeIndex(node)}`;
    const used = new Set<string>();
    for (const p of this.ctx.store.storedIn(this.ctx.types.pods)) {
      if (p.meta.fields['spec.nodeName'] === node.metadata.name) used.add(p.meta.fields['status.podIP']);
    }
    for (let host = 2; host < 255; host++) if (!used.has(`${base}.${host}`)) return `${base}.${host}`;
    return `${base}.254`;
  }

  private nodeIndex(node: SimObject): number {
    const names = this.ctx.store.storedIn(this.ctx.types.nodes).map((n) => n.meta.name);
    return Math.max(0, names.indexOf(node.metadata.name!)) % 256;
  }
}
