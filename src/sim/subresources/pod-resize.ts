// pods/NAME/resize (served from 1.33, the in-place pod resize subresource): a write through it changes only the
// containers' resources and resizePolicy; everything else comes from the stored pod, as kube's podResizeStrategy
// does (pkg/registry/core/pod/strategy.go dropNonResizeUpdates). The kubelet stand-in applies no resize: the new
// requests and limits are simply the pod's spec.
import type { SimObject } from '../api.js';

type Json = Record<string, any>;

export function resizeWrite(current: SimObject, body: SimObject): SimObject {
  const next = structuredClone(current) as SimObject & { spec?: Json };
  const sent = ((body.spec as Json | undefined) ?? {}) as Json;
  for (const list of ['containers', 'initContainers']) {
    const mine = (next.spec?.[list] ?? []) as Json[];
    const theirs = (Array.isArray(sent[list]) ? sent[list] : []) as Json[];
    for (const c of mine) {
      const update = theirs.find((t) => t?.name === c.name);
      if (!update) continue;
      if (update.resources !== undefined) c.resources = update.resources; else delete c.resources;
      if (update.resizePolicy !== undefined) c.resizePolicy = update.resizePolicy;
    }
  }
  // The body's resourceVersion stays a precondition.
  next.metadata = { ...next.metadata, resourceVersion: body.metadata?.resourceVersion ?? next.metadata.resourceVersion };
  return next;
}
