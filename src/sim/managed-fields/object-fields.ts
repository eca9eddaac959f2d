// The field sets of objects: every field an object sets (ToFieldSet), and what changed between two objects (Compare).
import { jsonEqual } from '../object-meta.js';
import { FieldSet, fieldElement, keyElement, valueElement, type PathElement } from './field-set.js';
import { atomicStruct, listType } from './merge-keys.js';

/** Which fields a write can own: all of them, the main resource's (status is reset) or the status subresource's. */
export type FieldScope = 'all' | 'main' | 'status';

export interface SchemaContext {
  kind: string;
  /** false for custom resources: no list keys beyond metadata's. */
  builtIn: boolean;
  scope: FieldScope;
}

/** Never owned (kube's field manager strips them): type meta and server-set metadata. */
const STRIPPED_META = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

function ignored(ctx: SchemaContext, fields: readonly string[]): boolean {
  if (fields.length === 1) {
    const f = fields[0];
    if (f === 'apiVersion' || f === 'kind') return true;
    if (ctx.scope === 'main') return f === 'status';
    if (ctx.scope === 'status') return f !== 'status';
    return false;
  }
  return fields.length === 2 && fields[0] === 'metadata' && STRIPPED_META.has(fields[1]);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every field `obj` sets, as server-side apply records an applied configuration (maps carry no `.` of their own). */
export function fieldsOf(obj: unknown, ctx: SchemaContext): FieldSet {
  const set = new FieldSet();
  collect(obj, [], [], set, ctx, false);
  return set;
}

/**
 * Adds the fields of `v` at `path` to `set`. `added` is the Compare flavour: a map or list that appears whole is
 * itself a member too (the `.` entries of an Update).
 */
function collect(v: unknown, path: PathElement[], fields: string[], set: FieldSet, ctx: SchemaContext, added: boolean): void {
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0 || atomicStruct(ctx.kind, fields)) { set.insert(path); return; }
    if (added) set.insert(path);
    for (const k of keys) {
      if (v[k] === undefined) continue;
      const f = [...fields, k];
      if (!ignored(ctx, f)) collect(v[k], [...path, fieldElement(k)], f, set, ctx, added);
    }
  } else if (Array.isArray(v)) {
    const lt = listType(fields, v, ctx.builtIn);
    if (lt === 'atomic' || (added && v.length > 0)) set.insert(path);
    if (lt === 'atomic') return;
    if (lt === 'set') for (const x of v) set.insert([...path, valueElement(x)]);
    else for (const item of v as Record<string, unknown>[]) collectItem(item, [...path, keyElement(item, lt.keys, lt.defaults)], fields, set, ctx, added);
  } else {
    set.insert(path);
  }
}

function collectItem(item: Record<string, unknown>, path: PathElement[], fields: string[], set: FieldSet, ctx: SchemaContext, added: boolean): void {
  set.insert(path);
  for (const k of Object.keys(item)) if (item[k] !== undefined) collect(item[k], [...path, fieldElement(k)], [...fields, k], set, ctx, added);
}

export interface Comparison { added: FieldSet; modified: FieldSet; removed: FieldSet }

/** What changed from `before` to `after`, field by field (structured-merge-diff's Compare). */
export function compareObjects(before: unknown, after: unknown, ctx: SchemaContext): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(before, after, [], [], c, ctx);
  return c;
}

function compareAt(a: unknown, b: unknown, path: PathElement[], fields: string[], c: Comparison, ctx: SchemaContext): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) { collect(b, path, fields, c.added, ctx, true); return; }
  if (b === undefined) { collect(a, path, fields, c.removed, ctx, true); return; }
  if (isObject(a) && isObject(b) && !atomicStruct(ctx.kind, fields) && (Object.keys(a).length > 0 || Object.keys(b).length > 0)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const f = [...fields, k];
      if (!ignored(ctx, f)) compareAt(a[k], b[k], [...path, fieldElement(k)], f, c, ctx);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const la = listType(fields, a, ctx.builtIn), lb = listType(fields, b, ctx.builtIn);
    if (la === 'set' && lb === 'set') {
      const sa = new Map(a.map((x) => [valueElement(x), x])), sb = new Map(b.map((x) => [valueElement(x), x]));
      for (const k of sb.keys()) if (!sa.has(k)) c.added.insert([...path, k]);
      for (const k of sa.keys()) if (!sb.has(k)) c.removed.insert([...path, k]);
      return;
    }
    if (la !== 'atomic' && lb !== 'atomic' && la !== 'set' && lb !== 'set') {
      const ia = new Map((a as Record<string, unknown>[]).map((x) => [keyElement(x, la.keys, la.defaults), x]));
      const ib = new Map((b as Record<string, unknown>[]).map((x) => [keyElement(x, lb.keys, lb.defaults), x]));
      for (const [k, item] of ib) {
        const old = ia.get(k);
        if (old === undefined) collectItem(item, [...path, k], fields, c.added, ctx, true);
        else for (const f of new Set([...Object.keys(old), ...Object.keys(item)])) compareAt(old[f], item[f], [...path, k, fieldElement(f)], [...fields, f], c, ctx);
      }
      for (const [k, item] of ia) if (!ib.has(k)) collectItem(item, [...path, k], fields, c.removed, ctx, true);
      return;
    }
  }
  if (!jsonEqual(a, b)) c.modified.insert(path);
}
