// Defaulting of custom resources from their structural schema, as apiextensions-apiserver does on every read of a
// request body (pkg/apiserver/schema/defaulting: Default and PruneNonNullableNullsWithoutDefaults): a property that is
// absent gets a copy of its schema default, a null in a field that is not nullable gets the default or is dropped;
// defaults apply inside objects and list items that are present (an absent parent is not created unless it has a default).
import type { StructuralSchema } from '../validation/custom-resource.js';

type Json = Record<string, unknown>;

function defaultValue(v: unknown, s: StructuralSchema | undefined): void {
  if (!s || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    if (!s.items) return;
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null && !s.items.nullable && s.items.default !== undefined) v[i] = structuredClone(s.items.default);
      defaultValue(v[i], s.items);
    }
    return;
  }
  const obj = v as Json;
  for (const [k, child] of Object.entries(s.properties ?? {})) {
    if (obj[k] === null && !child.nullable) {
      if (child.default !== undefined) obj[k] = structuredClone(child.default);
      else delete obj[k];
    } else if (!(k in obj) && child.default !== undefined) {
      obj[k] = structuredClone(child.default);
    }
  }
  const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k of Object.keys(obj)) {
    const child = s.properties?.[k] ?? extra;
    if (!child) continue;
    if (obj[k] === null && !child.nullable && !s.properties?.[k]) {
      if (child.default !== undefined) obj[k] = structuredClone(child.default);
      else delete obj[k];
      continue;
    }
    defaultValue(obj[k], child);
  }
}

/** Fills the schema's defaults into `obj` (fresh copies of its top-level fields other than metadata: nested values may be shared). */
export function defaultCustomResource(schema: StructuralSchema | undefined, obj: Json): void {
  if (!schema) return;
  for (const k of Object.keys(obj)) if (k !== 'metadata' && obj[k] !== null && typeof obj[k] === 'object') obj[k] = structuredClone(obj[k]);
  const props: Record<string, StructuralSchema> = {};
  for (const [k, v] of Object.entries(schema.properties ?? {})) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') props[k] = v;
  defaultValue(obj, { ...schema, properties: props });
}
