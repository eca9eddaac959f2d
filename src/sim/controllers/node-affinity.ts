// The node a pod's required node affinity pins it to by metadata.name (how kube 1.32's DaemonSet controller places
// its pods: the scheduler then binds each to that node).
import type { SimObject } from '../api.js';

type Json = Record<string, any>;

export function pinnedNodeName(pod: SimObject): string | undefined {
  const terms = (pod.spec as Json | undefined)?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of (Array.isArray(terms) ? terms : []) as Json[]) {
    for (const f of (Array.isArray(t.matchFields) ? t.matchFields : []) as Json[]) {
      if (f.key === 'metadata.name' && f.operator === 'In' && Array.isArray(f.values) && f.values.length === 1) return String(f.values[0]);
    }
  }
  return undefined;
}
