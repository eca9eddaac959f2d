// A kind's schema compiled once into a tree of declared fields, so a write can find (and drop) the fields its kind does
// not declare in one pass over the object: built-in kinds from kube's definitions, custom resources from their CRD's
// openAPIV3Schema (x-kubernetes-preserve-unknown-fields keeps what it covers; apiVersion, kind and metadata are always
// declared, metadata as ObjectMeta).
import type { ResourceType } from '../registry.js';
import { definitionNames, kubeDefinitions, QUANTITY_DEFINITION, REF_PREFIX, type Schema } from './definitions.js';
import { DEFAULT_KUBE_VERSION, type KubeVersion } from '../kube-version.js';

export type FieldNode =
  /** Anything goes (free-form JSON, RawExtension, preserved unknown fields, or a scalar). */
  | { k: 'any' }
  | { k: 'object'; fields: Map<string, FieldNode>; preserve: boolean }
  | { k: 'map'; values: FieldNode }
  | { k: 'list'; items: FieldNode };

const ANY: FieldNode = { k: 'any' };
/** A metav1.Time or MicroTime: anything goes, but its zero value prints as null (a struct, never omitted). */
export const TIME_NODE: FieldNode = { k: 'any' };
/** A resource.Quantity: a scalar to other walks, which kube's decoder rewrites in canonical form (see quantity-fields.ts). */
export const QUANTITY_NODE: FieldNode = { k: 'any' };
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const TIME_DEFINITIONS = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);

/** Compiled definitions per release, shared by every kind (recursive ones, e.g. JSONSchemaProps, are compiled once). */
const byRelease = new Map<KubeVersion, Map<string, FieldNode>>();

function definitionNode(name: string, release: KubeVersion = DEFAULT_KUBE_VERSION): FieldNode {
  let byDefinition = byRelease.get(release);
  if (!byDefinition) { byDefinition = new Map(); byRelease.set(release, byDefinition); }
  const cached = byDefinition.get(name);
  if (cached) return cached;
  if (TIME_DEFINITIONS.has(name)) return TIME_NODE;
  if (name === QUANTITY_DEFINITION) return QUANTITY_NODE;
  const def = kubeDefinitions(release).definitions[name];
  if (!def) return ANY;
  if (!def.properties) {
    const n = compile(def, release);
    byDefinition.set(name, n);
    return n;
  }
  // Registered before its fields are compiled, so a definition that refers to itself ends.
  const node: FieldNode = { k: 'object', fields: new Map(), preserve: false };
  byDefinition.set(name, node);
  for (const [f, s] of Object.entries(def.properties)) node.fields.set(f, compile(s, release));
  return node;
}

function compile(s: Schema, release: KubeVersion = DEFAULT_KUBE_VERSION): FieldNode {
  if (s.$ref) return definitionNode(s.$ref.slice(REF_PREFIX.length), release);
  if (s.allOf?.length === 1) return compile(s.allOf[0], release);
  if (s['x-kubernetes-int-or-string']) return ANY;
  if (s.format === 'date-time') return TIME_NODE;
  if (s.type === 'array') return s.items ? listOf(compile(s.items, release)) : ANY;
  if (s.properties || s['x-kubernetes-embedded-resource']) {
    const fields = new Map<string, FieldNode>();
    for (const [f, p] of Object.entries(s.properties ?? {})) fields.set(f, compile(p, release));
    if (s['x-kubernetes-embedded-resource']) {
      for (const f of ['apiVersion', 'kind']) if (!fields.has(f)) fields.set(f, ANY);
      if (!fields.has('metadata')) fields.set('metadata', definitionNode(OBJECT_META));
    }
    return { k: 'object', fields, preserve: s['x-kubernetes-preserve-unknown-fields'] === true };
  }
  if (typeof s.additionalProperties === 'object') return { k: 'map', values: compile(s.additionalProperties, release) };
  return ANY;
}

const listOf = (items: FieldNode): FieldNode => (items.k === 'any' && items !== QUANTITY_NODE ? ANY : { k: 'list', items });

const byType = new WeakMap<ResourceType, FieldNode>();

/** The ObjectMeta of every kind (custom resources' metadata is ObjectMeta too). */
export function objectMetaTree(): FieldNode {
  return definitionNode(OBJECT_META);
}

/** The declared fields of one of kube's definitions (a subresource's own kind, e.g. `io.k8s.api.autoscaling.v1.Scale`). */
export function definitionTree(name: string, release: KubeVersion = DEFAULT_KUBE_VERSION): FieldNode {
  return definitionNode(name, release);
}

/** The declared fields of a served type's objects (compiled on first use, then cached with the type). */
export function fieldTree(t: ResourceType): FieldNode {
  let n = byType.get(t);
  if (n) return n;
  if (t.crd) {
    const root = compile((t.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as Schema);
    const fields = new Map(root.k === 'object' ? root.fields : []);
    fields.set('apiVersion', ANY);
    fields.set('kind', ANY);
    fields.set('metadata', definitionNode(OBJECT_META));
    n = { k: 'object', fields, preserve: root.k === 'object' ? root.preserve : true };
  } else {
    const name = definitionNames(t, t.release).object;
    n = name ? definitionNode(name, t.release) : ANY;
  }
  byType.set(t, n);
  return n;
}

/**
 * The paths of the fields `value` has that `node` does not declare (kube's strict-decoding form: `spec.foo`,
 * `spec.containers[0].bar`), each removed from `value` when `prune` is set.
 */
export function unknownFields(value: unknown, node: FieldNode, prune: boolean): string[] {
  const out: string[] = [];
  walk(value, node, prune, [], (path) => out.push(path.join('').slice(1)));
  return out;
}

/** Like unknownFields without pruning, each path as its segments (`.name`, `[i]`), for callers that spell paths their own way. */
export function unknownFieldSegments(value: unknown, node: FieldNode): string[][] {
  const out: string[][] = [];
  walk(value, node, false, [], (path) => out.push([...path]));
  return out;
}

/** `path` is a stack of segments (`.name` or `[i]`), joined only for a field that is reported: most writes have none. */
function walk(value: unknown, node: FieldNode, prune: boolean, path: string[], report: (path: string[]) => void): void {
  if (value === null || typeof value !== 'object' || node.k === 'any') return;
  if (node.k === 'list') {
    if (!Array.isArray(value)) return;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v === null || typeof v !== 'object') continue;
      path.push(`[${i}]`);
      walk(v, node.items, prune, path, report);
      path.pop();
    }
    return;
  }
  if (Array.isArray(value)) return;
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    const child = node.k === 'map' ? node.values : node.fields.get(k);
    if (child) {
      const v = obj[k];
      if (v === null || typeof v !== 'object' || child.k === 'any') continue;
      path.push(`.${k}`);
      walk(v, child, prune, path, report);
      path.pop();
    } else if (node.k === 'object' && !node.preserve) {
      path.push(`.${k}`);
      report(path);
      path.pop();
      if (prune) delete obj[k];
    }
  }
}
