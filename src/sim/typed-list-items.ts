// kube-apiserver's lists of built-in kinds carry kind/apiVersion on the list only, never on its items (the items are
// typed structs whose TypeMeta the encoder leaves empty); custom resources are unstructured and keep theirs. Watch
// events and single objects always carry them.
import { groupVersion, type ResourceType } from './registry.js';

/**
 * Maps a stored object's JSON to its form as a list item. Stored JSON always starts with kind and apiVersion
 * (normalizeObject), so cutting that known prefix is all it takes — no parse.
 */
export function listItemJson(type: ResourceType): (json: string) => string {
  if (type.crd !== undefined) return (json) => json;
  const prefix = `{"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(groupVersion(type))},`;
  return (json) => (json.startsWith(prefix) ? `{${json.slice(prefix.length)}` : json);
}
