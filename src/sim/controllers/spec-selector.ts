// The pod selector of a workload's spec (Deployment, ReplicaSet, Job, StatefulSet, DaemonSet), as its controller uses it.
import type { SimObject } from '../api.js';
import { labelSelectorFromObject, type LabelSelector } from '../label-selector.js';

/**
 * spec.selector, or undefined when it is missing, malformed or empty: an empty selector would select every pod of
 * the namespace, and kube's validation never lets one through, so a controller acting on it would be a sim bug.
 */
export function specSelector(obj: SimObject): LabelSelector | undefined {
  try {
    const s = labelSelectorFromObject((obj.spec as { selector?: Parameters<typeof labelSelectorFromObject>[0] } | undefined)?.selector);
    return s.empty ? undefined : s;
  } catch {
    return undefined;
  }
}
