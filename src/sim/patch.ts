// PATCH bodies applied to stored JSON: RFC 7386 merge patch, RFC 6902 JSON patch, and strategic merge patch.

/**
 * A patch the server refuses. `message` is the Status message kube-apiserver sends and `code` its
 * HTTP status (400 BadRequest, 422 Invalid, 409 Conflict); `detail` says what exactly failed, where
 * kube's own message is generic.
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  constructor(
    message: string,
    readonly code: 400 | 422 | 409 = 400,
    readonly detail?: string,
  ) {
    super(message);
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep copy of plain JSON (faster than structuredClone for the object sizes we see). */
function clone<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = clone((v as Record<string, unknown>)[k]);
  return out as T;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as any)[k], (b as any)[k]));
}

// ---- RFC 7386 -----------------------------------------------------------------------------------

function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeInto(out[k], v);
  }
  return out;
}

/** RFC 7386 JSON merge patch: objects merge, `null` deletes, anything else (arrays too) replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return mergeInto(clone(target), patch);
}

// ---- RFC 6902 -----------------------------------------------------------------------------------

/** kube answers every failed JSON patch operation with this 422 (NewGenericServerResponse). */
const JSON_PATCH_REJECTED = 'the server rejected our request due to an error in our request';

const rejected = (detail: string): PatchError => new PatchError(JSON_PATCH_REJECTED, 422, detail);

function parsePointer(path: unknown, op: string): string[] {
  if (typeof path !== 'string') throw rejected(`${op} operation does not apply: missing path`);
  if (path === '') return [];
  if (!path.startsWith('/')) throw rejected(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  return path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, allowEnd: boolean): number | undefined {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const i = Number(token);
  return i < length || (allowEnd && i === length) ? i : undefined;
}

/** The container holding the last token of `tokens`, or undefined if any step is missing. */
function parentOf(doc: unknown, tokens: string[]): unknown {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(t, cur.length, false);
      if (i === undefined) return undefined;
      cur = cur[i];
    } else if (isObject(cur) && Object.hasOwn(cur, t)) {
      cur = cur[t];
    } else {
      return undefined;
    }
  }
  return cur;
}

function getAt(doc: unknown, tokens: string[]): { found: boolean; value?: unknown } {
  if (tokens.length === 0) return { found: true, value: doc };
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, false);
    return i === undefined ? { found: false } : { found: true, value: parent[i] };
  }
  if (isObject(parent) && Object.hasOwn(parent, last)) return { found: true, value: parent[last] };
  return { found: false };
}

/** Returns the new document (the root may be replaced by an op on path ""). */
function addAt(doc: unknown, tokens: string[], value: unknown, path: string): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, true);
    if (i === undefined) throw rejected(`add operation does not apply: doc is missing path: "${path}": missing value`);
    parent.splice(i, 0, value);
  } else if (isObject(parent)) {
    parent[last] = value as Json;
  } else {
    throw rejected(`add operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return doc;
}

function removeAt(doc: unknown, tokens: string[], op: string, path: string): void {
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, false);
    if (i !== undefined) {
      parent.splice(i, 1);
      return;
    }
  } else if (isObject(parent) && Object.hasOwn(parent, last)) {
    delete parent[last];
    return;
  }
  throw rejected(op === 'remove' ? `Unable to remove nonexistent key: ${last}: missing value` : `${op} operation does not apply: doc is missing from path: ${path}: missing value`);
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test), applied atomically to a copy. */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    const what = ops === null ? 'null' : typeof ops === 'object' ? 'object' : typeof ops;
    throw new PatchError(`json: cannot unmarshal ${what} into Go value of type jsonpatch.Patch`);
  }
  let doc = clone(target);
  for (const raw of ops) {
    if (!isObject(raw)) throw new PatchError('json: cannot unmarshal non-object into Go value of type jsonpatch.Operation');
    const op = typeof raw.op === 'string' ? raw.op : 'unknown';
    const path = raw.path;
    switch (op) {
      case 'add': {
        if (!Object.hasOwn(raw, 'value')) throw rejected('add operation does not apply: missing value');
        doc = addAt(doc, parsePointer(path, op), clone(raw.value), String(path));
        break;
      }
      case 'remove': {
        const tokens = parsePointer(path, op);
        if (tokens.length === 0) throw rejected('remove operation does not apply: doc is missing path: "": missing value');
        removeAt(doc, tokens, op, String(path));
        break;
      }
      case 'replace': {
        const tokens = parsePointer(path, op);
        if (!Object.hasOwn(raw, 'value')) throw rejected('replace operation does not apply: missing value');
        if (tokens.length === 0) {
          doc = clone(raw.value);
          break;
        }
        if (!getAt(doc, tokens).found) throw rejected(`replace operation does not apply: doc is missing key: ${String(path)}: missing value`);
        const parent = parentOf(doc, tokens) as any;
        const last = tokens[tokens.length - 1];
        parent[Array.isArray(parent) ? Number(last) : last] = clone(raw.value);
        break;
      }
      case 'move':
      case 'copy': {
        const fromTokens = parsePointer(raw.from, op);
        const got = getAt(doc, fromTokens);
        if (!got.found) throw rejected(`${op} operation does not apply: doc is missing from path: ${String(raw.from)}: missing value`);
        if (op === 'move') {
          if (fromTokens.length === 0) throw rejected('move operation does not apply: cannot move the document root');
          removeAt(doc, fromTokens, op, String(raw.from));
        }
        doc = addAt(doc, parsePointer(path, op), op === 'copy' ? clone(got.value) : got.value, String(path));
        break;
      }
      case 'test': {
        const got = getAt(doc, parsePointer(path, op));
        const expected = Object.hasOwn(raw, 'value') ? raw.value : null;
        if (!(got.found ? deepEqual(got.value, expected) : expected === null)) throw rejected(`testing value ${String(path)} failed: test failed`);
        break;
      }
      default:
        throw rejected(`Unexpected kind: ${op}`);
    }
  }
  return doc;
}

// ---- strategic merge patch ----------------------------------------------------------------------

/** How a list field merges: by a key, as a set of primitives, or (absent) replaced whole. */
interface ListStrategy {
  key?: string;
  primitive?: true;
  item?: Schema;
}

/** The patch strategy of a type: its mergeable lists and the schemas of its nested maps. */
interface Schema {
  lists?: Record<string, ListStrategy>;
  maps?: Record<string, Schema>;
}

// From the patchStrategy/patchMergeKey tags of k8s.io/api types (the fields that matter in practice).
const CONTAINER: Schema = {
  lists: { env: { key: 'name' }, ports: { key: 'containerPort' }, volumeMounts: { key: 'mountPath' }, volumeDevices: { key: 'devicePath' } },
};
const POD_SPEC: Schema = {
  lists: {
    containers: { key: 'name', item: CONTAINER },
    initContainers: { key: 'name', item: CONTAINER },
    ephemeralContainers: { key: 'name', item: CONTAINER },
    volumes: { key: 'name' },
    imagePullSecrets: { key: 'name' },
    hostAliases: { key: 'ip' },
    topologySpreadConstraints: { key: 'topologyKey' },
    resourceClaims: { key: 'name' },
    schedulingGates: { key: 'name' },
  },
};
const OBJECT_META: Schema = { lists: { ownerReferences: { key: 'uid' }, finalizers: { primitive: true } } };
const CONDITIONS: Schema = { lists: { conditions: { key: 'type' } } };
const TEMPLATE: Schema = { maps: { metadata: OBJECT_META, spec: POD_SPEC } };
const WORKLOAD: Schema = { maps: { metadata: OBJECT_META, spec: { maps: { template: TEMPLATE } }, status: CONDITIONS } };
const GENERIC: Schema = { maps: { metadata: OBJECT_META } };

const KIND_SCHEMAS: Record<string, Schema> = {
  Pod: { maps: { metadata: OBJECT_META, spec: POD_SPEC, status: { lists: { conditions: { key: 'type' }, podIPs: { key: 'ip' }, hostIPs: { key: 'ip' } } } } },
  PodTemplate: { maps: { metadata: OBJECT_META, template: TEMPLATE } },
  Deployment: WORKLOAD,
  ReplicaSet: WORKLOAD,
  StatefulSet: WORKLOAD,
  DaemonSet: WORKLOAD,
  ReplicationController: WORKLOAD,
  Job: WORKLOAD,
  CronJob: { maps: { metadata: OBJECT_META, spec: { maps: { jobTemplate: { maps: { spec: { maps: { template: TEMPLATE } } } } } } } },
  Service: { maps: { metadata: OBJECT_META, spec: { lists: { ports: { key: 'port' } } }, status: CONDITIONS } },
  Node: { maps: { metadata: OBJECT_META, status: { lists: { conditions: { key: 'type' }, addresses: { key: 'type' } } } } },
  Namespace: { maps: { metadata: OBJECT_META, status: CONDITIONS } },
};

// Groups served by kube-apiserver itself; everything else (CRDs, aggregated APIs) has no strategy.
const BUILT_IN_GROUPS = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'extensions', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'storage.k8s.io',
  'coordination.k8s.io', 'apiextensions.k8s.io', 'admissionregistration.k8s.io', 'scheduling.k8s.io', 'discovery.k8s.io',
  'events.k8s.io', 'certificates.k8s.io', 'node.k8s.io', 'flowcontrol.apiserver.k8s.io', 'apiregistration.k8s.io',
  'authentication.k8s.io', 'authorization.k8s.io', 'resource.k8s.io', 'internal.apiserver.k8s.io', 'storagemigration.k8s.io',
]);

/**
 * Whether kube-apiserver accepts application/strategic-merge-patch+json for this type: custom
 * resources have no Go struct tags, so kube answers 415 (acceptedPatchTypes leaves it out).
 */
export function strategicMergeSupported(group: string, _kind: string): boolean {
  return BUILT_IN_GROUPS.has(group);
}

/**
 * The patch media types kube-apiserver takes for a type, in its order (the 415's list): built-in kinds
 * (endpoints/installer.go) json-patch, merge-patch, strategic-merge-patch and apply-patch+yaml; custom resources
 * (apiextensions-apiserver customresource_handler.go) the same without strategic merge. With CBORServingAndStorage both
 * add application/apply-patch+cbor, the one CBOR patch type kube has (apimachinery types.PatchType): a strategic merge
 * or merge patch in CBOR is a 415 like any unknown type.
 */
export function acceptedPatchTypes(group: string, cbor: boolean): string[] {
  return [
    'application/json-patch+json', 'application/merge-patch+json',
    ...(BUILT_IN_GROUPS.has(group) ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
    ...(cbor ? ['application/apply-patch+cbor'] : []),
  ];
}

/**
 * Where a merged list puts its elements. `strategic`: kube's strategic merge patch order (see kubeElementOrder).
 * `structured`: server-side apply's, live elements in live order and new ones appended in the order given
 * (structured-merge-diff typed/merge.go, visitListItems).
 */
export type MergedListOrder = 'strategic' | 'structured';

const DELETE = Symbol('delete');
const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

const isDirectiveKey = (k: string): boolean =>
  k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(SET_ELEMENT_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE_LIST);

/** Merges `patch` into `base` (already a private copy) and returns it, or DELETE for `$patch: delete`. */
function mergeMap(base: JsonObject, patch: JsonObject, schema: Schema | undefined, order: MergedListOrder): JsonObject | typeof DELETE {
  const directive = patch[DIRECTIVE];
  if (directive === 'delete') return DELETE;
  if (directive === 'replace') return mergeMap({}, Object.fromEntries(Object.entries(patch).filter(([k]) => k !== DIRECTIVE)), schema, order) as JsonObject;
  if (directive !== undefined) throw new PatchError(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);

  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) throw new PatchError('invalid patch: $retainKeys must be a list of strings');
    const outside = Object.keys(patch).filter((k) => !isDirectiveKey(k) && !retain.includes(k));
    if (outside.length) throw new PatchError("doesn't match retainKeys list", 422, `keys ${outside.join(', ')} are not in $retainKeys`);
  }

  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const field = k.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      if (!Array.isArray(v)) throw new PatchError('invalid patch format for primitive list: $deleteFromPrimitiveList must be a list');
      const current = base[field];
      if (Array.isArray(current)) base[field] = current.filter((x) => !v.some((d) => deepEqual(d, x)));
      // kube's mergeMap (strategicpatch/patch.go) takes the patch value for a key the original lacks, and for this
      // directive the key is FIELD: so deleting from an absent list stores the deletion list itself as FIELD. When
      // the patch also sets FIELD, kube's result depends on Go's map order; the sim then keeps FIELD's merge.
      else if (!Object.hasOwn(patch, field)) base[field] = clone(v);
    }
  }

  // The live lists that `$setElementOrder` reorders, before this patch merges into them.
  const liveBeforeOrder = new Map<string, Json[]>();
  for (const k of Object.keys(patch)) {
    if (!k.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = k.slice(SET_ELEMENT_ORDER.length);
    const live = base[field];
    liveBeforeOrder.set(field, Array.isArray(live) ? [...live] : []);
  }

  for (const [k, v] of Object.entries(patch)) {
    if (isDirectiveKey(k)) continue;
    if (v === null) {
      delete base[k];
    } else if (isObject(v)) {
      const current = base[k];
      const merged = mergeMap(isObject(current) ? current : {}, v, schema?.maps?.[k], order);
      if (merged === DELETE) delete base[k];
      else base[k] = merged;
    } else if (Array.isArray(v)) {
      const strategy = schema?.lists?.[k];
      const current = base[k];
      base[k] = strategy ? mergeList(Array.isArray(current) ? current : [], v, strategy, order) : clone(v);
    } else {
      base[k] = v;
    }
  }

  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = k.slice(SET_ELEMENT_ORDER.length);
    const list = base[field];
    // strategicpatch/patch.go mergePatchIntoOriginal: the elements the order names, sorted by it, interleaved with
    // the server-only ones like any merged list.
    if (Array.isArray(order) && Array.isArray(list)) {
      base[field] = kubeElementOrder(list, order, liveBeforeOrder.get(field) ?? [], identityBy(schema?.lists?.[field]?.key));
    }
  }

  if (Array.isArray(retain)) {
    for (const k of Object.keys(base)) if (!retain.includes(k)) delete base[k];
  }
  return base;
}

function mergeList(base: Json[], patch: Json[], strategy: ListStrategy, order: MergedListOrder): Json[] {
  if (strategy.primitive) {
    const merged = [...base];
    for (const p of patch) if (!merged.some((x) => deepEqual(x, p))) merged.push(clone(p));
    return order === 'structured' ? merged : kubeElementOrder(merged, patch, base, identityBy(undefined));
  }
  const key = strategy.key!;
  // A `{"$patch": "replace"}` element means: the rest of the patch list is the new list.
  if (patch.some((p) => isObject(p) && p[DIRECTIVE] === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p[DIRECTIVE] === 'replace')).map((p) => (isObject(p) ? (mergeMap({}, p, strategy.item, order) as Json) : clone(p)));
  }
  for (const item of patch) {
    if (!isObject(item)) throw new PatchError(`merging an object in json but data type is not map, instead is: ${typeof item}`);
    if (!Object.hasOwn(item, key)) throw new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
  }
  // Like kube's mergeSliceWithSpecialElements: `$patch: delete` elements go first, and the list they leave is the
  // live order the merged list keeps.
  const isDelete = (p: Json): boolean => isObject(p) && p[DIRECTIVE] === 'delete';
  const live = base.filter((o) => !patch.some((p) => isDelete(p) && isObject(o) && deepEqual(o[key], (p as JsonObject)[key])));
  const merges = patch.filter((p) => !isDelete(p)) as JsonObject[];
  const merged = [...live];
  for (const item of merges) {
    const idx = merged.findIndex((o) => isObject(o) && deepEqual(o[key], item[key]));
    const result = mergeMap(idx >= 0 ? (merged[idx] as JsonObject) : {}, item, strategy.item, order);
    if (result === DELETE) {
      if (idx >= 0) merged.splice(idx, 1);
    } else if (idx >= 0) {
      merged[idx] = result;
    } else {
      merged.push(result);
    }
  }
  return order === 'structured' ? merged : kubeElementOrder(merged, merges, live, identityBy(key));
}

/** What kube's index() compares list elements by: the merge key's value, or the element itself for primitives. */
type Identity = (x: Json) => Json;
const identityBy = (key: string | undefined): Identity => (x) => (key !== undefined && isObject(x) ? (x[key] ?? null) : x);

function positionIn(list: Json[], x: Json, identity: Identity): number {
  const id = identity(x);
  return list.findIndex((o) => deepEqual(identity(o), id));
}

/**
 * kube's order for a merged list (strategicpatch/patch.go: normalizeElementOrder, then mergeSortedSlice). The
 * elements `patchOrder` names, in its order, interleave with the server-only ones, in live order: a server-only
 * element goes first only when it and the next named element are both live and it is the earlier there;
 * otherwise the named element goes first. So a new element lands ahead of the live ones: env [A] + [B] → [B, A].
 */
function kubeElementOrder(merged: Json[], patchOrder: Json[], liveOrder: Json[], identity: Identity): Json[] {
  const rank = (order: Json[]) => (x: Json): number => {
    const i = positionIn(order, x, identity);
    return i < 0 ? order.length : i;
  };
  const byPatch = rank(patchOrder);
  const byLive = rank(liveOrder);
  // Array.prototype.sort is stable, like the sort.SliceStable kube uses.
  const named = merged.filter((x) => positionIn(patchOrder, x, identity) >= 0).sort((a, b) => byPatch(a) - byPatch(b));
  const serverOnly = merged.filter((x) => positionIn(patchOrder, x, identity) < 0).sort((a, b) => byLive(a) - byLive(b));
  const earlierInLive = (a: Json, b: Json): boolean => {
    const ai = positionIn(liveOrder, a, identity);
    const bi = positionIn(liveOrder, b, identity);
    return ai >= 0 && bi >= 0 && ai < bi;
  };
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    const serverOnlyFirst = i < serverOnly.length && (j >= named.length || earlierInLive(serverOnly[i], named[j]));
    out.push(serverOnlyFirst ? serverOnly[i++] : named[j++]);
  }
  return out;
}

/**
 * Strategic merge patch for built-in kinds: lists with a merge key merge element-wise, `$patch`
 * (replace/delete), `$retainKeys`, `$setElementOrder/…` and `$deleteFromPrimitiveList/…` directives,
 * `null` deletes. Kinds without a known schema merge maps and replace lists, like a merge patch.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, kind: string, order: MergedListOrder = 'strategic'): unknown {
  if (!isObject(patch)) throw new PatchError(`couldn't get patch: json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch} into Go value of type map[string]interface {}`);
  const base = isObject(target) ? clone(target) : {};
  const merged = mergeMap(base, patch, KIND_SCHEMAS[kind] ?? GENERIC, order);
  return merged === DELETE ? {} : merged;
}
