// The OpenAPI documents a registry serves, as kube-apiserver shapes them: v2 (one swagger document for the server) and
// v3 (one document per group-version), each with paths whose bodies $ref the served definitions and whose write
// operations declare the query parameters kubectl's validation looks for (fieldValidation above all).
import type { ResourceType } from '../registry.js';
import { DEFAULT_KUBE_VERSION, versionInfo, type KubeVersion } from '../kube-version.js';
import { definitionNames, QUANTITY_DEFINITION, REF_PREFIX, servedDefinitions, type Schema } from './definitions.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'];

/** One operation, independent of the OpenAPI version it is written in. */
interface Op {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  id: string;
  action: string;
  kind: string;
  /** Definition name of the request body, if any (`patch` for PATCH's free-form body). */
  body?: string;
  /** Definition name of the 200/201 response. */
  response?: string;
  query: string[];
}

interface PathEntry { path: string; params: ('name' | 'namespace')[]; ops: Op[] }

function gvPrefix(t: { group: string; version: string }): string {
  return t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`;
}

/** The operationId infix kube uses: group label(s) capitalised and version, e.g. AppsV1, CoreV1, NetworkingV1. */
function opInfix(t: ResourceType): string {
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const group = t.group ? t.group.split('.').filter((l) => l !== 'k8s' && l !== 'io').map(cap).join('') : 'Core';
  return `${group}${cap(t.version)}`;
}

function entries(t: ResourceType, release: KubeVersion): PathEntry[] {
  const names = definitionNames(t, release);
  const obj = names.object, list = names.list;
  const ns = t.namespaced ? 'Namespaced' : '';
  const infix = opInfix(t);
  const base = `${gvPrefix(t)}/${t.namespaced ? 'namespaces/{namespace}/' : ''}${t.resource}`;
  const scope: ('name' | 'namespace')[] = t.namespaced ? ['namespace'] : [];
  const op = (method: Op['method'], verb: string, action: string, extra: Partial<Op> = {}): Op =>
    ({ method, id: `${verb}${infix}${ns}${t.kind}`, action, kind: t.kind, query: [], ...extra });
  const out: PathEntry[] = [
    { path: base, params: scope, ops: [
      op('get', 'list', 'list', { response: list, query: ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch'] }),
      op('post', 'create', 'post', { body: obj, response: obj, query: WRITE_PARAMS }),
      op('delete', 'deleteCollection', 'deletecollection', { body: `${META}.DeleteOptions`, response: `${META}.Status`, query: ['dryRun'] }),
    ] },
    { path: `${base}/{name}`, params: ['name', ...scope], ops: [
      op('get', 'read', 'get', { response: obj }),
      op('put', 'replace', 'put', { body: obj, response: obj, query: WRITE_PARAMS }),
      op('patch', 'patch', 'patch', { body: 'patch', response: obj, query: [...WRITE_PARAMS, 'force'] }),
      op('delete', 'delete', 'delete', { body: `${META}.DeleteOptions`, response: `${META}.Status`, query: ['dryRun', 'gracePeriodSeconds', 'propagationPolicy'] }),
    ] },
  ];
  if (t.namespaced) {
    out.push({ path: `${gvPrefix(t)}/${t.resource}`, params: [], ops: [{ method: 'get', id: `list${infix}${t.kind}ForAllNamespaces`, action: 'list', kind: t.kind, response: list, query: ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch'] }] });
  }
  for (const s of t.subresources) {
    if (s.name !== 'status' && s.name !== 'scale') continue;
    const sub = s.name === 'status' ? obj : `io.k8s.api.autoscaling.v1.Scale`;
    const suffix = s.name === 'status' ? 'Status' : 'Scale';
    out.push({ path: `${base}/{name}/${s.name}`, params: ['name', ...scope], ops: [
      op('get', 'read', 'get', { id: `read${infix}${ns}${t.kind}${suffix}`, response: sub }),
      op('put', 'replace', 'put', { id: `replace${infix}${ns}${t.kind}${suffix}`, body: sub, response: sub, query: WRITE_PARAMS }),
      op('patch', 'patch', 'patch', { id: `patch${infix}${ns}${t.kind}${suffix}`, body: 'patch', response: sub, query: [...WRITE_PARAMS, 'force'] }),
    ] });
  }
  return out;
}

const QUERY_TYPES: Record<string, string> = { limit: 'integer', watch: 'boolean', force: 'boolean', gracePeriodSeconds: 'integer' };

function gvk(t: ResourceType, kind: string) {
  return { group: t.group, version: t.version, kind };
}

// --- v3 ------------------------------------------------------------------------------------------------------------

const V3_REF = '#/components/schemas/';

/** A v2 schema in v3 form: refs point into components, and a property that is a $ref is wrapped in allOf as kube does. */
function toV3(s: Schema, property = false): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$ref' && typeof v === 'string') {
      const ref = { $ref: V3_REF + v.slice(REF_PREFIX.length) };
      if (property) out.allOf = [ref];
      else Object.assign(out, ref);
    } else if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([p, ps]) => [p, toV3(ps, true)]));
    } else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object') {
      out[k] = toV3(v as Schema);
    } else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) {
      out[k] = v.map((x) => toV3(x as Schema));
    } else out[k] = v;
  }
  return out;
}

/** The v3 document of one group-version's types. */
export function v3Document(types: ResourceType[], release: KubeVersion = DEFAULT_KUBE_VERSION): object {
  const paths: Record<string, object> = {};
  for (const t of types) {
    for (const e of entries(t, release)) {
      const item: Record<string, unknown> = {
        parameters: [...e.params.map((p) => ({ name: p, in: 'path', description: p === 'name' ? `name of the ${t.kind}` : 'object name and auth scope, such as for teams and projects', required: true, schema: { type: 'string', uniqueItems: true } })),
          { name: 'pretty', in: 'query', description: "If 'true', then the output is pretty printed.", schema: { type: 'string', uniqueItems: true } }],
      };
      for (const o of e.ops) {
        const json = (name: string) => ({ 'application/json': { schema: { $ref: V3_REF + name } } });
        const op: Record<string, unknown> = {
          tags: [opTag(t)], operationId: o.id,
          parameters: o.query.map((q) => ({ name: q, in: 'query', schema: { type: QUERY_TYPES[q] ?? 'string', uniqueItems: true } })),
          responses: { 200: { description: 'OK', ...(o.response ? { content: json(o.response) } : {}) }, ...(o.method === 'post' ? { 201: { description: 'Created', content: json(o.response!) } } : {}), 401: { description: 'Unauthorized' } },
          'x-kubernetes-action': o.action, 'x-kubernetes-group-version-kind': gvk(t, o.kind),
        };
        if (o.body === 'patch') op.requestBody = { content: Object.fromEntries(PATCH_TYPES.map((c) => [c, { schema: { $ref: `${V3_REF}${META}.Patch` } }])), required: true };
        else if (o.body && o.method !== 'delete') op.requestBody = { content: json(o.body), required: true };
        else if (o.body) op.requestBody = { content: json(o.body) };
        if (op.parameters && (op.parameters as unknown[]).length === 0) delete op.parameters;
        item[o.method] = op;
      }
      paths[e.path] = item;
    }
  }
  const defs = servedDefinitions(types, release);
  const schemas: Record<string, Schema> = { [`${META}.Patch`]: PATCH_SCHEMA };
  for (const [name, d] of Object.entries(defs)) schemas[name] = name === QUANTITY_DEFINITION ? quantityV3(d) : toV3(d);
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: versionInfo(release).gitVersion }, paths, components: { schemas: sortKeys(schemas) } };
}

/** Quantity in v3 is a string or a number, as kube-openapi builds it from Quantity.OpenAPIV3OneOfTypes (quantity.go). */
const quantityV3 = (d: Schema): Schema => ({ ...(d.description ? { description: d.description } : {}), oneOf: [{ type: 'string' }, { type: 'number' }] });

const PATCH_SCHEMA: Schema = { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' };

function opTag(t: ResourceType): string {
  return t.group ? `${t.group.split('.')[0]}_${t.version}` : `core_${t.version}`;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

// --- v2 ------------------------------------------------------------------------------------------------------------

/** The server's v2 (swagger 2.0) document: every served type's paths and definitions. */
export function v2Document(types: ResourceType[], release: KubeVersion = DEFAULT_KUBE_VERSION): V2Document {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const t of types) {
    for (const e of entries(t, release)) {
      const item: Record<string, unknown> = {
        parameters: [...e.params.map((p) => ({ uniqueItems: true, type: 'string', description: p === 'name' ? `name of the ${t.kind}` : 'object name and auth scope, such as for teams and projects', name: p, in: 'path', required: true })),
          { uniqueItems: true, type: 'string', description: "If 'true', then the output is pretty printed.", name: 'pretty', in: 'query' }],
      };
      for (const o of e.ops) {
        const params: Record<string, unknown>[] = [];
        if (o.body) params.push({ name: 'body', in: 'body', required: o.method !== 'delete', schema: { $ref: REF_PREFIX + (o.body === 'patch' ? `${META}.Patch` : o.body) } });
        for (const q of o.query) params.push({ uniqueItems: true, type: QUERY_TYPES[q] ?? 'string', name: q, in: 'query' });
        const op: Record<string, unknown> = {
          description: `${o.action} ${t.kind}`, consumes: o.method === 'patch' ? PATCH_TYPES : ['*/*'], produces: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
          schemes: ['https'], tags: [opTag(t)], operationId: o.id,
          ...(params.length ? { parameters: params } : {}),
          responses: { 200: { description: 'OK', ...(o.response ? { schema: { $ref: REF_PREFIX + o.response } } : {}) }, 401: { description: 'Unauthorized' } },
          'x-kubernetes-action': o.action, 'x-kubernetes-group-version-kind': gvk(t, o.kind),
        };
        item[o.method] = op;
      }
      paths[e.path] = item;
    }
  }
  const definitions = { ...servedDefinitions(types, release), [`${META}.Patch`]: PATCH_SCHEMA };
  return { swagger: '2.0', info: { title: 'Kubernetes', version: versionInfo(release).gitVersion }, paths: sortKeys(paths), definitions: sortKeys(definitions) };
}

export interface V2Document {
  swagger: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, Schema>;
}
