// Which pods the kubelet stand-in runs to completion: those a Job controls with restartPolicy Never or OnFailure.
// Their containers "run" for jobPodRunMs, then exit 0 (phase Succeeded, reason Completed); see kubelet.ts.
import type { SimObject } from '../api.js';
import { controllerOf } from './owner-references.js';

export function runsToCompletion(pod: SimObject): boolean {
  const restartPolicy = (pod.spec as Record<string, unknown> | undefined)?.restartPolicy;
  return (restartPolicy === 'Never' || restartPolicy === 'OnFailure') && controllerOf(pod)?.kind === 'Job';
}

