// What every controller shares: the store, the resource types it works on, its event recorder, the owner index,
// the timings, and the rule that keeps the workload generator's objects out of reach.
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import type { CreationBudgets } from './creation-budget.js';
import type { EventRecorder } from './event-recorder.js';
import type { OwnerIndex } from './owner-index.js';
import { controllerOf } from './owner-references.js';

export interface ControllerTimings {
  /** Real seconds of shutdown per second of a pod's grace period (0.05: a 30 s grace ends after 1.5 s). */
  graceScale: number;
  /** How long a scheduled pod stays ContainerCreating before it runs (ms). */
  podStartMs: number;
  /** How long a Job's pod runs before its containers exit 0 (ms). */
  jobPodRunMs: number;
}

export interface ControllerContext {
  store: SimStore;
  events: EventRecorder;
  owners: OwnerIndex;
  timings: ControllerTimings;
  /** How many more objects each creating controller may make (--max-objects). */
  budgets: CreationBudgets;
  types: { pods: ResourceType; nodes: ResourceType; replicaSets: ResourceType; deployments: ResourceType };
  /** True for the uid of a Deployment or ReplicaSet the workload generator created (it drives those itself). */
  generatorOwns(uid: string): boolean;
}

/** An object the generator drives: one of its Deployments/ReplicaSets, or a pod one of its ReplicaSets controls. */
export function drivenByGenerator(ctx: ControllerContext, obj: SimObject): boolean {
  if (obj.metadata.uid && ctx.generatorOwns(obj.metadata.uid)) return true;
  const owner = controllerOf(obj);
  return owner !== undefined && ctx.generatorOwns(owner.uid);
}

/** "namespace/name" of a namespaced object, the queue key every controller uses. */
export function keyOf(obj: SimObject): string {
  return `${obj.metadata.namespace}/${obj.metadata.name}`;
}

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
