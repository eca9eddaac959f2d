// ConfigMap and Secret validation (core/validation ValidateConfigMap[Update], ValidateSecret[Update]): data keys
// are file names, and `immutable: true` freezes the data for good.
import type { FieldError } from '../status.js';
import { isConfigMapKey } from '../label-validation.js';
import { jsonEqual } from '../object-meta.js';
import { configMapSizeErrors, secretSizeErrors } from './config-data-size.js';

type Json = Record<string, unknown>;

const FROZEN = 'field is immutable when `immutable` is set';

function keyErrors(obj: Json, bag: string): FieldError[] {
  const data = obj[bag];
  if (data === null || typeof data !== 'object') return [];
  return Object.keys(data).flatMap((key) => isConfigMapKey(key).map((detail): FieldError => ({ field: `${bag}[${key}]`, type: 'Invalid value', value: key, detail })));
}

/** A nil map and an empty one serialise alike: the sim cannot tell them apart, so neither counts as a change. */
function sameData(a: unknown, b: unknown): boolean {
  const empty = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'object' && Object.keys(v).length === 0);
  return (empty(a) && empty(b)) || jsonEqual(a, b);
}

function frozenErrors(next: Json, prev: Json | undefined, bags: string[]): FieldError[] {
  if (prev?.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (next.immutable !== true) errs.push({ field: 'immutable', type: 'Forbidden', detail: FROZEN });
  for (const bag of bags) if (!sameData(next[bag], prev[bag])) errs.push({ field: bag, type: 'Forbidden', detail: FROZEN });
  return errs;
}

export function validateConfigMap(next: Json, prev: Json | undefined): FieldError[] {
  const errs = frozenErrors(next, prev, ['data', 'binaryData']);
  errs.push(...keyErrors(next, 'data'), ...keyErrors(next, 'binaryData'));
  const data = (next.data ?? {}) as Json;
  for (const key of Object.keys((next.binaryData ?? {}) as Json)) {
    if (key in data) errs.push({ field: `data[${key}]`, type: 'Invalid value', value: key, detail: 'duplicate of key present in binaryData' });
  }
  errs.push(...configMapSizeErrors(next));
  return errs;
}

export function validateSecret(next: Json, prev: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (prev && (next.type ?? 'Opaque') !== (prev.type ?? 'Opaque')) errs.push({ field: 'type', type: 'Invalid value', value: next.type ?? '', detail: 'field is immutable' });
  errs.push(...frozenErrors(next, prev, ['data']));
  errs.push(...keyErrors(next, 'data'), ...secretSizeErrors(next));
  return errs;
}
