// PodGC's orphan collection (pkg/controller/podgc/gc_controller.go gcOrphaned): a pod bound to a node that no longer
// exists is, after the node has stayed gone for the quarantine time (40 s, scaled like grace periods), marked Failed
// with the DisruptionTarget condition (reason DeletionByPodGC) and force-deleted (grace 0). Its ReplicaSet then
// replaces it on a node that exists.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { kubeTime } from '../object-meta.js';
import type { ControllerContext } from './controller-context.js';
import { deleteObject } from './graceful-delete.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** podgc's quarantineTime: how long a node must stay gone before its pods are collected. */
const QUARANTINE_SECONDS = 40;

export class PodGC {
  /** Keyed by node name. */
  readonly queue: WorkQueue;
  /** Nodes seen deleted (and not re-created): pods bound to them later are collected too. */
  private readonly goneNodes = new Set<string>();

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observeNode(change: Change): void {
    const name = change.cur.meta.name;
    if (change.type === 'DELETED') {
      this.goneNodes.add(name);
      this.queue.add(name, this.quarantineMs());
    } else {
      this.goneNodes.delete(name);
    }
  }

  /** A pod (re)bound to a node that was deleted: collect it after the quarantine too. */
  observePod(change: Change): void {
    if (change.type === 'DELETED' || this.goneNodes.size === 0) return;
    const node = change.cur.meta.fields['spec.nodeName'];
    if (node && this.goneNodes.has(node)) this.queue.add(node, this.quarantineMs());
  }

  private quarantineMs(): number {
    return QUARANTINE_SECONDS * 1000 * this.ctx.timings.graceScale;
  }

  private sync(nodeName: string): void {
    const { store, types } = this.ctx;
    // The node came back (checked against the API, as podgc does after the quarantine): nothing to collect.
    if (store.getStored(types.nodes, undefined, nodeName)) { this.goneNodes.delete(nodeName); return; }
    for (const p of store.storedIn(types.pods)) {
      if (p.meta.fields['spec.nodeName'] !== nodeName) continue;
      const pod = p.obj;
      const failed = this.markFailed(pod);
      deleteObject(store, types.pods, pod.metadata.namespace, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: failed.metadata.uid } });
    }
  }

  /** markFailedAndDeletePodWithCondition: phase Failed unless already terminal, and DisruptionTarget=True. */
  private markFailed(pod: SimObject): SimObject {
    const status = (pod.status ?? {}) as Json;
    const conditions = ((status.conditions ?? []) as Json[]).filter((c) => c.type !== 'DisruptionTarget');
    conditions.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: kubeTime(new Date()), reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
    const phase = status.phase === 'Succeeded' || status.phase === 'Failed' ? status.phase : 'Failed';
    return this.ctx.store.updateObject(this.ctx.types.pods, { ...pod, status: { ...status, phase, conditions } }, { subresource: 'status', ...writtenBy(this.ctx.types.pods, CONTROLLER_MANAGER, 'status') });
  }
}
