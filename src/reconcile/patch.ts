// Patches applied locally, as the API server would apply them: what an intercepted or overlaid write
// would have stored. JSON merge patch (RFC 7386), JSON patch (RFC 6902), and strategic merge patch
// for the lists kube merges by key (containers, env, ports, volumes, conditions, …).
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
 * Strategic merge patch as kube applies it to built-in types: maps merge, null deletes, lists named in
 * MERGE_KEYS merge element by element on their key (`$patch: delete` removes one), other lists replace.
 * Directives beyond `$patch: delete|replace` ($retainKeys, $setElementOrder, $deleteFromPrimitiveList)
 * are not applied.
 */
export function applyStrategicMergePatch(target: Json, patch: Json, kind?: string): Json {
  return strategicMerge(target, patch, kind === 'Service' ? SERVICE_MERGE_KEYS : MERGE_KEYS);
}

function strategicMerge(target: Json, patch: Json, keys: Record<string, string>): Json {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return structuredClone(rest);
  }
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) delete out[k];
    else if (Array.isArray(v) && Object.hasOwn(keys, k) && Array.isArray(out[k])) out[k] = mergeList(out[k] as unknown[], v, keys[k], keys);
    else out[k] = strategicMerge(out[k], v, keys);
  }
  return out;
}

function mergeList(current: unknown[], patch: unknown[], key: string, keys: Record<string, string>): unknown[] {
  const out = current.map((x) => x);
  for (const p of patch) {
    if (!isObject(p) || p[key] === undefined) {
      out.push(structuredClone(p));
      continue;
    }
    const i = out.findIndex((x) => isObject(x) && x[key] === p[key]);
    if (p.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
    } else if (i >= 0) out[i] = strategicMerge(out[i], p, keys);
    else out.push(strategicMerge(undefined, p, keys));
  }
  return out;
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
      // Server-side apply, approximated locally: the applied configuration merged strategically over the live object.
      return applyStrategicMergePatch(obj, patch, obj.kind) as KubeObject;
  }
}
