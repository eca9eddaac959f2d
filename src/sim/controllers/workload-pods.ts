// The opening every pod-owning workload controller's sync shares: find the workload its queue key names, read its
// selector, and claim the pods that selector and the workload's controller references give it.
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import { claim } from './claim.js';
import { splitKey, type ControllerContext } from './controller-context.js';
import { specSelector } from './spec-selector.js';

export interface WorkloadPods {
  workload: SimObject;
  /** The pods the workload controls after adoption and release, in name order. */
  pods: SimObject[];
}

/**
 * The workload stored under `key` and its pods, or undefined when there is nothing to sync: the workload is gone,
 * `skip` says to leave it alone (checked before any pod is adopted), or its selector is missing or empty.
 */
export function workloadPods(ctx: ControllerContext, workloadType: ResourceType, key: string, skip?: (workload: SimObject) => boolean): WorkloadPods | undefined {
  const [namespace, name] = splitKey(key);
  const workload = ctx.store.getStored(workloadType, namespace, name)?.obj;
  if (!workload || skip?.(workload)) return undefined;
  const selector = specSelector(workload);
  if (!selector) return undefined;
  return { workload, pods: claim(ctx, workload, workloadType, ctx.types.pods, selector) };
}
