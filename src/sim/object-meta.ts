// Object hygiene on write: key order like Go's structs, names, generateName, uid, timestamps, defaults.
import { randomUUID, randomInt } from 'node:crypto';
import type { SimObject } from './api.js';
import type { ResourceType } from './registry.js';
import { invalid } from './status.js';
import { applyKindCreateDefaults, applyKindWriteDefaults, GENERATION_KINDS } from './kinds/defaults.js';
import { applyPlatformCreateDefaults, applyPlatformWriteDefaults, PLATFORM_GENERATION_KINDS } from './kinds/platform-defaults.js';
import { admitOnCreate, defaultOnWrite, type DefaultsContext } from './defaults/index.js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from './label-validation.js';
import { pathSegmentNameErrors } from './request-path.js';

const META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];

/** Returns the object with kind/apiVersion/metadata first and metadata fields in Go struct order (so stored JSON looks like kube's and metadata.resourceVersion precedes any nested one). */
export function normalizeObject(type: ResourceType, obj: SimObject): SimObject {
  const meta: Record<string, unknown> = {};
  const src = obj.metadata ?? {};
  for (const k of META_ORDER) if (src[k] !== undefined) meta[k] = src[k];
  for (const k of Object.keys(src)) if (!(k in meta) && src[k] !== undefined) meta[k] = src[k];
  const out: SimObject = { kind: type.kind, apiVersion: type.group ? `${type.group}/${type.version}` : type.version, metadata: meta as SimObject['metadata'] };
  for (const k of Object.keys(obj)) if (k !== 'kind' && k !== 'apiVersion' && k !== 'metadata' && obj[k] !== undefined) out[k] = obj[k];
  if (type.group === '' && type.resource === 'secrets') foldStringData(out);
  return out;
}

/** kube-apiserver writes a Secret's stringData into data (base64; stringData wins) and never stores stringData. */
function foldStringData(secret: SimObject): void {
  const stringData = secret.stringData as Record<string, unknown> | undefined;
  if (stringData === undefined) return;
  const data: Record<string, unknown> = { ...((secret.data as Record<string, unknown> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(stringData ?? {})) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  delete secret.stringData;
  secret.data = data;
}

export { kubeTime } from '../wire/kube-time.js';

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName + 5 random characters from the alphabet kube uses (no vowels, no look-alikes). */
export function generateName(prefix: string): string {
  let s = prefix;
  for (let i = 0; i < 5; i++) s += NAME_CHARS[randomInt(NAME_CHARS.length)];
  return s;
}

export function newUid(): string { return randomUUID(); }

/** kube's name validator per resource: namespaces are DNS-1123 labels, services DNS-1035 labels, RBAC objects path segments (system:basic-user), the rest subdomains. */
function nameErrors(type: ResourceType, name: string): string[] {
  if (type.group === 'rbac.authorization.k8s.io') return pathSegmentNameErrors(name);
  if (type.group === '' && type.resource === 'namespaces') return isDNS1123Label(name);
  if (type.group === '' && type.resource === 'services') return isDNS1035Label(name);
  // An APIService is named version.group ("v1." for the core group): any valid path segment, the rest is its validation's.
  if (type.group === 'apiregistration.k8s.io' && type.resource === 'apiservices') return pathSegmentErrors(name);
  return isDNS1123Subdomain(name);
}

/** apimachinery's IsValidPathSegmentName. */
function pathSegmentErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const bad = ['/', '%'].find((c) => name.includes(c));
  return bad ? [`may not contain '${bad}'`] : [];
}

/** Validates metadata.name like kube's ValidateObjectMeta (one error per failed rule); throws 422. */
export function validateName(type: ResourceType, name: string | undefined, generate: string | undefined): void {
  const kind = type.kind, group = type.group;
  if (!name) {
    if (!generate) throw invalid(kind, group, '', [{ field: 'metadata.name', type: 'Required value', detail: 'name or generateName is required' }]);
    return;
  }
  const errs = nameErrors(type, name);
  if (errs.length) throw invalid(kind, group, name, errs.map((detail) => ({ field: 'metadata.name', type: 'Invalid value' as const, value: name, detail })));
}

/** Fills the defaults kube's decoding adds to every write of a kind (create and update): defaults/ and kinds/. */
export function applyWriteDefaults(type: ResourceType, obj: SimObject, prev?: SimObject, ctx?: DefaultsContext): void {
  defaultOnWrite(type, obj, prev, ctx);
  if (type.crd === undefined) { applyKindWriteDefaults(type, obj); applyPlatformWriteDefaults(type, obj); }
}

/** Fills the defaults the real API server adds on create for the fields clients commonly read. */
export function applyCreateDefaults(type: ResourceType, obj: SimObject, ctx?: DefaultsContext): void {
  // Defaults go into fresh copies: nested values may be shared with the caller's object.
  applyWriteDefaults(type, obj, undefined, ctx);
  if (type.crd === undefined) { applyKindCreateDefaults(type, obj); applyPlatformCreateDefaults(type, obj); }
  if (type.group !== '') return;
  if (type.resource === 'pods') {
    admitOnCreate(type, obj, () => generateName(''));
  } else if (type.resource === 'namespaces') {
    // namespaceStrategy.PrepareForCreate: the "kubernetes" finalizer is always there on create (appended if absent).
    const spec = (obj.spec = { ...(obj.spec ?? {}) }) as { finalizers?: string[] };
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    spec.finalizers = finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'];
    // namespaceStrategy.PrepareForCreate: a new namespace is Active whatever status it was sent with.
    obj.status = { phase: 'Active' };
    const labels = (obj.metadata.labels ??= {});
    labels['kubernetes.io/metadata.name'] ??= obj.metadata.name!;
  } else if (type.resource === 'services') {
    obj.status ??= { loadBalancer: {} };
  } else if (type.resource === 'secrets') {
    obj.type ??= 'Opaque';
  }
}

/** Whether the type keeps metadata.generation (bumped on spec changes). */
export function tracksGeneration(type: ResourceType): boolean {
  return type.crd !== undefined || ['deployments', 'replicasets', 'jobs', 'customresourcedefinitions', ...GENERATION_KINDS, ...PLATFORM_GENERATION_KINDS].includes(type.resource);
}

/** Structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** Deep copy of a JSON value. */
export function clone<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = clone(v[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = clone(x);
  }
  return out as T;
}
