// metadata.ownerReferences helpers: reading them, the controller reference, and building one for an owner.
import type { SimObject } from '../api.js';
import { groupVersion, type ResourceType } from '../registry.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export function ownerReferences(obj: SimObject): OwnerReference[] {
  const refs = obj.metadata.ownerReferences;
  return Array.isArray(refs) ? refs as OwnerReference[] : [];
}

/** The owner with controller: true (at most one, by validation). */
export function controllerOf(obj: SimObject): OwnerReference | undefined {
  return ownerReferences(obj).find((r) => r.controller === true);
}

/** metav1.NewControllerRef: controller and blockOwnerDeletion both true. */
export function controllerRefTo(owner: SimObject, type: ResourceType): OwnerReference {
  return { apiVersion: groupVersion(type), kind: type.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

export function finalizersOf(obj: SimObject): string[] {
  const f = obj.metadata.finalizers;
  return Array.isArray(f) ? f as string[] : [];
}

/**
 * The owner uids of a stored object, read from its JSON without parsing it. Stored JSON starts with metadata (see
 * normalizeObject), so the first `"ownerReferences":[` is the object's own; annotations that embed JSON escape their
 * quotes and cannot match. Owner references hold only scalars, so the list ends at the first `]`.
 */
export function ownerUidsInJson(json: string): string[] {
  const start = json.indexOf('"ownerReferences":[');
  if (start < 0) return [];
  const end = json.indexOf(']', start);
  const list = json.slice(start, end < 0 ? undefined : end);
  const out: string[] = [];
  const re = /"uid":"([^"]*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(list)) !== null) out.push(m[1]);
  return out;
}
