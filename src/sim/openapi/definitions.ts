// kube's OpenAPI v2 definitions (generated data, decoded once on first use) and the subset a registry serves: the
// definitions of its built-in kinds and their lists, everything they refer to, and one definition per custom resource
// version built from its CRD's openAPIV3Schema, named and tagged as kube-apiserver names them.
import { gunzipSync } from 'node:zlib';
import { KUBE_DEFINITIONS_GZIP_BASE64 } from './kube-definitions.data.js';
import type { ResourceRegistry, ResourceType } from '../registry.js';

/** An OpenAPI schema object, as far as the sim reads it. */
export interface Schema {
  description?: string;
  type?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  $ref?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  [key: string]: unknown;
}

interface KubeDefinitions { source: string; definitions: Record<string, Schema> }

let decoded: KubeDefinitions | undefined;

/** All of kube's definitions (decoded on first call: ~1 MB of JSON). */
export function kubeDefinitions(): KubeDefinitions {
  decoded ??= JSON.parse(gunzipSync(Buffer.from(KUBE_DEFINITIONS_GZIP_BASE64, 'base64')).toString('utf8')) as KubeDefinitions;
  return decoded;
}

export const REF_PREFIX = '#/definitions/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** Definitions every served group-version's operations refer to. */
const COMMON = [`${META}.Status`, `${META}.DeleteOptions`, `${META}.WatchEvent`, `${META}.APIResourceList`];

let byGvk: Map<string, string> | undefined;

const gvkKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

/** The definition name of a built-in kind (e.g. apps/v1 Deployment → io.k8s.api.apps.v1.Deployment), if kube has one. */
export function builtinDefinitionName(group: string, version: string, kind: string): string | undefined {
  if (!byGvk) {
    byGvk = new Map();
    for (const [name, d] of Object.entries(kubeDefinitions().definitions)) {
      for (const g of d['x-kubernetes-group-version-kind'] ?? []) byGvk.set(gvkKey(g.group, g.version, g.kind), name);
    }
  }
  return byGvk.get(gvkKey(group, version, kind));
}

/** kube's definition name for a custom resource: the group's labels reversed, then version and kind (com.example.stable.v1.CronTab). */
export function crdDefinitionName(t: { group: string; version: string; kind: string }): string {
  return `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
}

/** The definition name of a served type's object and of its list. */
export function definitionNames(t: ResourceType): { object?: string; list?: string } {
  if (t.crd) return { object: crdDefinitionName(t), list: crdDefinitionName({ ...t, kind: t.listKind }) };
  return { object: builtinDefinitionName(t.group, t.version, t.kind), list: builtinDefinitionName(t.group, t.version, t.listKind) };
}

function refsIn(s: unknown, out: Set<string>): void {
  if (Array.isArray(s)) { for (const x of s) refsIn(x, out); return; }
  if (s === null || typeof s !== 'object') return;
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX)) out.add(v.slice(REF_PREFIX.length));
    else refsIn(v, out);
  }
}

/** The custom resource's definitions: its schema with apiVersion, kind and metadata as kube adds them, and its list. */
function crdDefinitions(t: ResourceType): Record<string, Schema> {
  const schema = (t.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as Schema;
  const gvk = (kind: string) => [{ group: t.group, version: t.version, kind }];
  const typeMeta = kubeDefinitions().definitions[`${META}.Status`].properties!;
  const names = definitionNames(t);
  return {
    [names.object!]: {
      ...schema, type: 'object',
      properties: { ...schema.properties, apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, metadata: { $ref: `${REF_PREFIX}${META}.ObjectMeta` } },
      'x-kubernetes-group-version-kind': gvk(t.kind),
    },
    [names.list!]: {
      description: `${t.listKind} is a list of ${t.kind}`, type: 'object', required: ['items'],
      properties: { apiVersion: typeMeta.apiVersion, items: { type: 'array', items: { $ref: `${REF_PREFIX}${names.object}` } }, kind: typeMeta.kind, metadata: { $ref: `${REF_PREFIX}${META}.ListMeta` } },
      'x-kubernetes-group-version-kind': gvk(t.listKind),
    },
  };
}

/** The definitions the given types need (their objects, lists, and everything those refer to), sorted by name. */
export function servedDefinitions(types: ResourceType[]): Record<string, Schema> {
  const all = kubeDefinitions().definitions;
  const out: Record<string, Schema> = {};
  const pending: string[] = [...COMMON];
  for (const t of types) {
    if (t.crd) { Object.assign(out, crdDefinitions(t)); continue; }
    const n = definitionNames(t);
    if (n.object) pending.push(n.object);
    if (n.list) pending.push(n.list);
    for (const s of t.subresources) {
      const sub = builtinDefinitionName(s.group ?? t.group, s.version ?? t.version, s.kind);
      if (sub) pending.push(sub);
    }
  }
  for (const d of Object.values(out)) { const refs = new Set<string>(); refsIn(d, refs); pending.push(...refs); }
  while (pending.length) {
    const name = pending.pop()!;
    if (out[name] || !all[name]) continue;
    out[name] = all[name];
    const refs = new Set<string>();
    refsIn(all[name], refs);
    for (const r of refs) if (!out[r]) pending.push(r);
  }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}

/** Every served type, for the v2 document (one for the whole server). */
export function allServedTypes(registry: ResourceRegistry): ResourceType[] {
  return registry.groups().flatMap((g) => g.versions.flatMap((v) => registry.resourcesOf(g.name, v)));
}
