// Objects as kube writes them back: it decodes a body into its Go type, so a null field becomes the zero value and an
// omitempty field with a zero value (nil pointer, empty string, empty map such as `labels: {}`) is left out when it
// encodes the object again. The sim drops nulls (except metav1.Time fields, structs that print as null) and empty
// maps on every client write of a built-in kind, and in every kind's metadata (a custom resource's metadata is
// ObjectMeta; the rest of a custom resource is unstructured and kept as sent).
import type { SimObject } from './api.js';
import type { ResourceType } from './registry.js';
import { fieldTree, objectMetaTree, TIME_NODE, type FieldNode } from './openapi/field-tree.js';

const isEmptyMap = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

function walk(value: unknown, node: FieldNode): void {
  if (value === null || typeof value !== 'object') return;
  if (node.k === 'list') {
    if (Array.isArray(value)) for (const item of value) walk(item, node.items);
    return;
  }
  if (Array.isArray(value) || node.k === 'any') return;
  const obj = value as Record<string, unknown>;
  if (node.k === 'map') {
    for (const k of Object.keys(obj)) walk(obj[k], node.values);
    return;
  }
  for (const k of Object.keys(obj)) {
    const child = node.fields.get(k);
    if (!child) continue; // undeclared (preserved) fields are not the Go type's
    const v = obj[k];
    if (v === null) { if (child !== TIME_NODE) delete obj[k]; continue; }
    if (child.k === 'map' && isEmptyMap(v)) { delete obj[k]; continue; }
    walk(v, child);
  }
}

/** Drops, in place, what kube's Go types would not write back (see above). */
export function omitEmpty(type: ResourceType, obj: SimObject): void {
  if (type.crd !== undefined) {
    walk(obj.metadata, objectMetaTree());
    return;
  }
  walk(obj, fieldTree(type));
}
