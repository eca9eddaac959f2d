// ValidateObjectMeta's checks of labels and annotations (apimachinery ValidateLabels, ValidateAnnotations), which
// kube runs on every kind; the name is checked by the store on create (object-meta.ts validateName).
import type { FieldError } from '../status.js';
import { isQualifiedName, isValidLabelValue } from '../label-validation.js';

type Json = Record<string, unknown>;

const ANNOTATIONS_LIMIT = 256 * 1024;

/** Keys in sorted order: Go ranges over the map in a random one, the sim picks a stable one. */
function entries(m: unknown): [string, string][] {
  if (m === null || typeof m !== 'object') return [];
  return Object.keys(m).sort().map((k) => [k, String((m as Json)[k])]);
}

export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of entries(labels)) {
    for (const detail of isQualifiedName(k)) errs.push({ field, type: 'Invalid value', value: k, detail });
    for (const detail of isValidLabelValue(v)) errs.push({ field, type: 'Invalid value', value: v, detail });
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries(annotations)) {
    // A qualified name, but case does not matter.
    for (const detail of isQualifiedName(k.toLowerCase())) errs.push({ field, type: 'Invalid value', value: k, detail });
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > ANNOTATIONS_LIMIT) errs.push({ field, type: 'Too long', detail: `may not be more than ${ANNOTATIONS_LIMIT} bytes` }); // field.TooLong, apimachinery 1.32+
  return errs;
}

/** metadata.labels and metadata.annotations of any object, or of a pod template at `path` (`spec.template`). */
export function validateMetadataMaps(meta: unknown, path: string): FieldError[] {
  const m = (meta ?? {}) as Json;
  return [...validateLabels(m.labels, `${path}.labels`), ...validateAnnotations(m.annotations, `${path}.annotations`)];
}
