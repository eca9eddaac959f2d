// kube's OpenAPI v2 definitions (generated data, decoded once on first use) and the subset a registry serves: the
// definitions of its built-in kinds and their lists, everything they refer to, and one definition per custom resource
// version built from its CRD's openAPIV3Schema, named and tagged as kube-apiserver names them. Each release served has
// its own definitions: the base data (spec v1.34.0) with the release's generated changes over it (1.32 and 1.33 from
// their own specs); 1.35 serves the base's, as no client-node was generated from 1.35's spec (see
// scripts/generate-openapi.js).
import { gunzipSync } from 'node:zlib';
import { KUBE_DEFINITIONS_GZIP_BASE64 } from './kube-definitions.data.js';
import { KUBE_DEFINITION_CHANGES_GZIP_BASE64 } from './kube-definitions-releases.data.js';
import type { ResourceRegistry, ResourceType } from '../registry.js';
import { DEFAULT_KUBE_VERSION, type KubeVersion } from '../kube-version.js';

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

let base: KubeDefinitions | undefined;
const byRelease = new Map<KubeVersion, KubeDefinitions>();

const gunzipJson = <T>(b64: string): T => JSON.parse(gunzipSync(Buffer.from(b64, 'base64')).toString('utf8')) as T;

/** All of kube's definitions as `release` serves them (decoded on first call: ~1 MB of JSON, then the release's changes). */
export function kubeDefinitions(release: KubeVersion = DEFAULT_KUBE_VERSION): KubeDefinitions {
  base ??= gunzipJson<KubeDefinitions>(KUBE_DEFINITIONS_GZIP_BASE64);
  const changes = KUBE_DEFINITION_CHANGES_GZIP_BASE64[release];
  if (!changes) return base;
  let defs = byRelease.get(release);
  if (!defs) {
    const delta = gunzipJson<{ source: string; definitions: Record<string, Schema | null> }>(changes);
    const merged: Record<string, Schema> = { ...base.definitions };
    for (const [name, d] of Object.entries(delta.definitions)) {
      if (d === null) delete merged[name];
      else merged[name] = d;
    }
    defs = { source: delta.source, definitions: merged };
    byRelease.set(release, defs);
  }
  return defs;
}

export const REF_PREFIX = '#/definitions/';
/** resource.Quantity's definition: the fields it types are stored in canonical form (quantity-fields.ts). */
export const QUANTITY_DEFINITION = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** Definitions every served group-version's operations refer to. */
const COMMON = [`${META}.Status`, `${META}.DeleteOptions`, `${META}.WatchEvent`, `${META}.APIResourceList`];

const byGvk = new Map<KubeDefinitions, Map<string, string>>();

const gvkKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

/** The definition name of a built-in kind (e.g. apps/v1 Deployment → io.k8s.api.apps.v1.Deployment), if `release` has one. */
export function builtinDefinitionName(group: string, version: string, kind: string, release: KubeVersion = DEFAULT_KUBE_VERSION): string | undefined {
  const defs = kubeDefinitions(release);
  let names = byGvk.get(defs);
  if (!names) {
    names = new Map();
    for (const [name, d] of Object.entries(defs.definitions)) {
      for (const g of d['x-kubernetes-group-version-kind'] ?? []) names.set(gvkKey(g.group, g.version, g.kind), name);
    }
    byGvk.set(defs, names);
  }
  return names.get(gvkKey(group, version, kind));
}

/** kube's definition name for a custom resource: the group's labels reversed, then version and kind (com.example.stable.v1.CronTab). */
export function crdDefinitionName(t: { group: string; version: string; kind: string }): string {
  return `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
}

/** The definition name of a served type's object and of its list. */
export function definitionNames(t: ResourceType, release: KubeVersion = DEFAULT_KUBE_VERSION): { object?: string; list?: string } {
  if (t.crd) return { object: crdDefinitionName(t), list: crdDefinitionName({ ...t, kind: t.listKind }) };
  return { object: builtinDefinitionName(t.group, t.version, t.kind, release), list: builtinDefinitionName(t.group, t.version, t.listKind, release) };
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

/** The definitions the given types need as `release` defines them (their objects, lists, and everything those refer to), sorted by name. */
export function servedDefinitions(types: ResourceType[], release: KubeVersion = DEFAULT_KUBE_VERSION): Record<string, Schema> {
  const all = kubeDefinitions(release).definitions;
  const out: Record<string, Schema> = {};
  const pending: string[] = [...COMMON];
  for (const t of types) {
    if (t.crd) { Object.assign(out, crdDefinitions(t)); continue; }
    const n = definitionNames(t, release);
    if (n.object) pending.push(n.object);
    if (n.list) pending.push(n.list);
    for (const s of t.subresources) {
      const sub = builtinDefinitionName(s.group ?? t.group, s.version ?? t.version, s.kind, release);
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
