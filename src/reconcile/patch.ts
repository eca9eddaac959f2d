// Patches applied locally, as the API server would apply them: what an intercepted or overlaid write
// would have stored. JSON merge patch (RFC 7386), JSON patch (RFC 6902), and strategic merge patch
// for the lists kube merges by key (containers, env, ports, volumes, conditions, …) or as a set (finalizers).
import type { KubeObject } from '../informer/types.js';

export class PatchError extends Error {}

type Json = unknown;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386: objects merge, null deletes, everything else (arrays included) replaces. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/** The merge patch that turns `from` into `to` (null for removed fields, arrays whole). */
export function createMergePatch(from: Json, to: Json): Json {
  if (!isObject(from) || !isObject(to)) return structuredClone(to);
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!Object.hasOwn(to, k)) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (!Object.hasOwn(from, k)) patch[k] = structuredClone(v);
    else if (!jsonEqual(from[k], v)) patch[k] = isObject(from[k]) && isObject(v) ? createMergePatch(from[k], v) : structuredClone(v);
  }
  return patch;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

/** RFC 6902, all six operations; a failed `test` or a missing path throws PatchError as the server answers 422. */
export function applyJsonPatch(target: Json, ops: unknown): Json {
  if (!Array.isArray(ops)) throw new PatchError('a JSON patch must be an array of operations');
  let doc = structuredClone(target);
  for (const raw of ops as JsonPatchOp[]) {
    if (!isObject(raw) || typeof raw.path !== 'string') throw new PatchError(`invalid JSON patch operation ${JSON.stringify(raw)}`);
    switch (raw.op) {
      case 'add':
        doc = setAt(doc, pointer(raw.path), structuredClone(raw.value), 'add');
        break;
      case 'replace':
        getAt(doc, pointer(raw.path), raw.path);
        doc = setAt(doc, pointer(raw.path), structuredClone(raw.value), 'replace');
        break;
      case 'remove':
        doc = removeAt(doc, pointer(raw.path), raw.path);
        break;
      case 'move': {
        const from = fromOf(raw);
        const v = getAt(doc, pointer(from), from);
        doc = removeAt(doc, pointer(from), from);
        doc = setAt(doc, pointer(raw.path), v, 'add');
        break;
      }
      case 'copy': {
        const from = fromOf(raw);
        doc = setAt(doc, pointer(raw.path), structuredClone(getAt(doc, pointer(from), from)), 'add');
        break;
      }
      case 'test':
        if (!jsonEqual(getAt(doc, pointer(raw.path), raw.path), raw.value)) throw new PatchError(`testing value ${raw.path} failed`);
        break;
      default:
        throw new PatchError(`unknown JSON patch operation ${JSON.stringify((raw as { op?: unknown }).op)}`);
    }
  }
  return doc;
}

/** move and copy need `from` (RFC 6902 §4.4, §4.5): without it the API server refuses the patch, not copies the root. */
function fromOf(op: JsonPatchOp): string {
  if (typeof op.from !== 'string') throw new PatchError(`the "${op.op}" operation needs a "from" path: ${JSON.stringify(op)}`);
  return op.from;
}

function pointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new PatchError(`invalid JSON pointer "${p}"`);
  return p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: Json, path: string[], shown: string): Json {
  let cur: unknown = doc;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isObject(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else throw new PatchError(`the path "${shown}" does not exist`);
    if (cur === undefined) throw new PatchError(`the path "${shown}" does not exist`);
  }
  return cur;
}

function setAt(doc: Json, path: string[], value: Json, mode: 'add' | 'replace'): Json {
  if (path.length === 0) return value;
  const parent = getAt(doc, path.slice(0, -1), '/' + path.slice(0, -1).join('/'));
  const last = path[path.length - 1];
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new PatchError(`index ${last} is out of range`);
    if (mode === 'add') parent.splice(i, 0, value);
    else parent[i] = value;
  } else if (isObject(parent)) parent[last] = value;
  else throw new PatchError(`cannot set "${last}" inside a ${parent === null ? 'null' : typeof parent}`);
  return doc;
}

function removeAt(doc: Json, path: string[], shown: string): Json {
  getAt(doc, path, shown);
  const parent = getAt(doc, path.slice(0, -1), shown);
  const last = path[path.length - 1];
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isObject(parent)) delete parent[last];
  return doc;
}

/**
 * Lists kube merges by a key under strategic merge patch (patchMergeKey in kube's Go types, k8s.io/api
 * core/v1/types.go). Lists without a patch strategy replace: `tolerations` among them (PodSpec's has none).
 */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  ports: 'containerPort',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  ownerReferences: 'uid',
};

/** A Service's `spec.ports` merge by `port` (ServiceSpec's patchMergeKey), not by a container's `containerPort`. */
const SERVICE_MERGE_KEYS: Record<string, string> = { ...MERGE_KEYS, ports: 'port' };

/**
 * Lists of scalars kube merges as sets (patchStrategy "merge" without a merge key), by field and the map that
 * holds it: ObjectMeta's `finalizers` (also a pod template's) and a Node's `spec.podCIDRs`. A Namespace's
 * `spec.finalizers` has no patch strategy: it replaces.
 */
const SCALAR_SETS: Record<string, string> = { finalizers: 'metadata', podCIDRs: 'spec' };

const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

/**
 * How merged lists are ordered. `kube`: as kube-apiserver orders a strategic merge (the patch's elements in the
 * patch's order, the live object's other elements kept where they were relative to them, new ones first);
 * `append`: the live order, new elements after it (the local approximation of server-side apply).
 */
type ListOrder = 'kube' | 'append';

interface MergeRules {
  keys: Record<string, string>;
  order: ListOrder;
}

/**
 * Strategic merge patch as kube applies it to built-in types: maps merge, null deletes, lists named in
 * MERGE_KEYS merge element by element on their key (`$patch: delete` removes one, a `$patch: replace` element
 * makes the rest of the list the new list), `finalizers` merge as a set, other lists replace. The directives
 * kubectl and client-go's CreateTwoWayMergePatch send are applied: `$deleteFromPrimitiveList/FIELD` and
 * `$setElementOrder/FIELD`; `$retainKeys` is not.
 */
export function applyStrategicMergePatch(target: Json, patch: Json, kind?: string): Json {
  return strategicMerge(target, patch, { keys: kind === 'Service' ? SERVICE_MERGE_KEYS : MERGE_KEYS, order: 'kube' }, undefined);
}

/** The list rule for `field` inside the map named `parent`: merged by a key, merged as a set, or (undefined) replaced. */
function listRule(field: string, parent: string | undefined, rules: MergeRules): { key: string } | { set: true } | undefined {
  if (Object.hasOwn(rules.keys, field)) return { key: rules.keys[field] };
  if (Object.hasOwn(SCALAR_SETS, field) && SCALAR_SETS[field] === parent) return { set: true };
  return undefined;
}

function mergeListByRule(current: unknown[], patch: unknown[], rule: { key: string } | { set: true }, rules: MergeRules): unknown[] {
  return 'key' in rule ? mergeList(current, patch, rule.key, rules) : mergeSet(current, patch, rules.order);
}

function strategicMerge(target: Json, patch: Json, rules: MergeRules, parent: string | undefined): Json {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return structuredClone(rest);
  }
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  // kube's mergeMap order (apimachinery strategicpatch/patch.go): the lists named by `$setElementOrder/` are
  // merged and put in that order first, then `$deleteFromPrimitiveList/` removes, then the other fields merge.
  const ordered = new Set<string>();
  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = k.slice(SET_ELEMENT_ORDER.length);
    if (!Array.isArray(order)) throw new PatchError(`invalid patch: ${k} must be a list`);
    ordered.add(field);
    const rule = listRule(field, parent, rules);
    const current = Array.isArray(out[field]) ? (out[field] as unknown[]) : undefined;
    const change = Array.isArray(patch[field]) ? (patch[field] as unknown[]) : undefined;
    if (change === undefined && current === undefined) continue;
    const key = rule !== undefined && 'key' in rule ? rule.key : undefined;
    if (change !== undefined) checkElementOrder(change, order, key, k);
    const merged = change === undefined ? current! : current !== undefined && rule !== undefined ? mergeListByRule(current, change, rule, rules) : change.map((v) => strategicMerge(undefined, v, rules, field));
    out[field] = kubeOrder(merged, identity(key), order.map(identity(key)), (current ?? []).map(identity(key)));
  }
  for (const [k, gone] of Object.entries(patch)) {
    if (!k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    const field = k.slice(DELETE_FROM_PRIMITIVE_LIST.length);
    if (!Array.isArray(gone)) throw new PatchError(`invalid patch: ${k} must be a list`);
    const current = out[field];
    // kube stores the deletion list itself when the field is absent (mergeMap: a key not in the original takes the
    // patch's value); a removal from a list that is not there then adds it.
    if (!Object.hasOwn(out, field)) out[field] = structuredClone(gone);
    else if (Array.isArray(current)) out[field] = current.filter((x) => !gone.some((d) => jsonEqual(d, x)));
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$') || ordered.has(k)) continue;
    const rule = Array.isArray(v) ? listRule(k, parent, rules) : undefined;
    if (v === null) delete out[k];
    else if (rule !== undefined && Array.isArray(out[k])) out[k] = mergeListByRule(out[k] as unknown[], v as unknown[], rule, rules);
    else out[k] = strategicMerge(out[k], v, rules, k);
  }
  return out;
}

/** An element's identity in a list: its merge key's value, or the scalar itself. */
function identity(key: string | undefined): (x: unknown) => unknown {
  return (x) => (key !== undefined && isObject(x) ? x[key] : x);
}

/** kube refuses a patch list whose elements are not in the `$setElementOrder` list, in its order (validatePatchWithSetOrderList). */
function checkElementOrder(change: unknown[], order: unknown[], key: string | undefined, directive: string): void {
  const id = identity(key);
  const wanted = order.map(id);
  let last = -1;
  for (const element of change) {
    if (isObject(element) && element.$patch !== undefined) continue;
    const at = wanted.findIndex((w) => jsonEqual(w, id(element)));
    if (at <= last) throw new PatchError(`invalid patch: the order in the patch list does not match the ${directive} list`);
    last = at;
  }
}

/**
 * kube's order for a merged list (normalizeElementOrder and mergeSortedSlice, strategicpatch/patch.go): the
 * elements the patch (or its `$setElementOrder`) names, in that order; the others in their live order; the two
 * interleaved so that a live element goes before a named one only when it was before it in the live list. A
 * new element (not live) therefore goes ahead of the live elements still to place.
 */
function kubeOrder(merged: unknown[], id: (x: unknown) => unknown, patchOrder: unknown[], liveOrder: unknown[]): unknown[] {
  const indexIn = (list: unknown[], x: unknown): number => list.findIndex((o) => jsonEqual(o, id(x)));
  const named = merged.filter((x) => indexIn(patchOrder, x) >= 0).sort((a, b) => indexIn(patchOrder, a) - indexIn(patchOrder, b));
  const others = merged.filter((x) => indexIn(patchOrder, x) < 0).sort((a, b) => indexIn(liveOrder, a) - indexIn(liveOrder, b));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < others.length && j < named.length) {
    const live = indexIn(liveOrder, others[i]);
    const patched = indexIn(liveOrder, named[j]);
    if (live >= 0 && patched >= 0 && live < patched) out.push(others[i++]);
    else out.push(named[j++]);
  }
  return [...out, ...others.slice(i), ...named.slice(j)];
}

/** A list of scalars merged as a set: no duplicates, in kube's order (or the live order, new ones after it). */
function mergeSet(current: unknown[], patch: unknown[], order: ListOrder): unknown[] {
  const merged: unknown[] = [];
  for (const x of [...current, ...patch]) if (!merged.some((m) => jsonEqual(m, x))) merged.push(structuredClone(x));
  return order === 'kube' ? kubeOrder(merged, (x) => x, patch, current) : merged;
}

function mergeList(current: unknown[], patch: unknown[], key: string, rules: MergeRules): unknown[] {
  // A `{"$patch": "replace"}` element: the list's other elements are the new list (mergeSliceWithSpecialElements).
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && (p.$patch === 'replace' || p.$patch === 'delete'))).map((p) => strategicMerge(undefined, p, rules, undefined));
  }
  let out = current.map((x) => x);
  for (const p of patch) if (isObject(p) && p.$patch === 'delete' && p[key] !== undefined) out = out.filter((x) => !(isObject(x) && x[key] === p[key]));
  const live = out.map((x) => (isObject(x) ? x[key] : undefined));
  const named: unknown[] = [];
  const keyless: unknown[] = [];
  for (const p of patch) {
    if (!isObject(p) || p[key] === undefined) {
      keyless.push(structuredClone(p));
      continue;
    }
    if (p.$patch === 'delete') continue;
    named.push(p[key]);
    const i = out.findIndex((x) => isObject(x) && x[key] === p[key]);
    if (i >= 0) out[i] = strategicMerge(out[i], p, rules, undefined);
    else out.push(strategicMerge(undefined, p, rules, undefined));
  }
  // Elements without their key (kube refuses them) are kept after the others, as they came.
  return [...(rules.order === 'kube' ? kubeOrder(out, identity(key), named, live) : out), ...keyless];
}

export type LocalPatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** Applies a patch of the given type to a copy of obj. */
export function applyPatch(obj: KubeObject, patch: unknown, type: LocalPatchType): KubeObject {
  switch (type) {
    case 'merge':
      return applyMergePatch(obj, patch) as KubeObject;
    case 'json':
      return applyJsonPatch(obj, patch) as KubeObject;
    case 'strategic':
      return applyStrategicMergePatch(obj, patch, obj.kind) as KubeObject;
    case 'apply':
      // Server-side apply, approximated locally: the applied configuration merged strategically over the live
      // object, the live order kept and new list elements after it.
      return strategicMerge(obj, patch, { keys: obj.kind === 'Service' ? SERVICE_MERGE_KEYS : MERGE_KEYS, order: 'append' }, undefined) as KubeObject;
  }
}
