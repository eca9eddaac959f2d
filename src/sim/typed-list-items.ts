// kube-apiserver's lists of built-in kinds carry kind/apiVersion on the list only, never on its items (the items are
// typed structs whose TypeMeta the encoder leaves empty); custom resources are unstructured and keep theirs. Watch
// events and single objects always carry them.
import { groupVersion, type ResourceType } from './registry.js';

/**
 * How a stored object's JSON is written as a list item: `open` then `rest(json)`. Stored JSON always starts with
 * kind and apiVersion (normalizeObject), so for a built-in kind the item is "{" plus the JSON after that known prefix
 * — a slice that shares the stored string, never a copy of it (a 100k-pod list stays as fast as before).
 */
export interface ListItemParts { open: string; rest(json: string): string }

export function listItemParts(type: ResourceType): ListItemParts {
  if (type.crd !== undefined) return { open: '', rest: (json) => json };
  const prefix = `{"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(groupVersion(type))},`;
  return { open: '{', rest: (json) => json.slice(json.startsWith(prefix) ? prefix.length : 1) };
}
