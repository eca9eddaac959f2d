// OpenAPI v3 discovery: the root index and a per-group-version document whose PATCH operations declare the fieldValidation parameter (what kubectl's validation checks). /openapi/v2 is not served (404): kubectl copes.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ResourceRegistry, type ResourceType } from './registry.js';
import { sendJson } from './respond.js';
import { VERSION_INFO } from './discovery.js';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'];

function operations(t: ResourceType): Record<string, object> {
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const base = `/${gvPath(t.group, t.version)}/${t.namespaced ? 'namespaces/{namespace}/' : ''}${t.resource}`;
  const ok = { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } } };
  const params = QUERY_PARAMS.map((name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string' }, uniqueItems: true }));
  const op = (action: string, extra: object = {}) => ({
    operationId: `${action}${t.kind}`, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, responses: ok, ...extra,
  });
  return {
    [base]: { get: op('list'), post: op('post', { parameters: params }) },
    [`${base}/{name}`]: {
      get: op('get'), put: op('put', { parameters: params }), delete: op('delete'),
      patch: op('patch', { parameters: params, requestBody: { content: { 'application/json-patch+json': {}, 'application/merge-patch+json': {}, 'application/strategic-merge-patch+json': {}, 'application/apply-patch+yaml': {} }, required: true } }),
    },
  };
}

function gvDocument(registry: ResourceRegistry, group: string, version: string): string {
  const paths: Record<string, object> = {};
  for (const t of registry.resourcesOf(group, version)) Object.assign(paths, operations(t));
  return JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes', version: VERSION_INFO.gitVersion }, paths, components: {} });
}

function hash(s: string): string {
  return createHash('sha512').update(s).digest('hex').toUpperCase();
}

/** Serves /openapi/v3 and /openapi/v3/{api/v1|apis/g/v}; returns false for other paths. */
export function handleOpenApi(_req: IncomingMessage, res: ServerResponse, path: string, registry: ResourceRegistry): boolean {
  if (path === '/openapi/v3' || path === '/openapi/v3/') {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const g of registry.groups()) {
      for (const v of g.versions) {
        const p = gvPath(g.name, v);
        paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash(gvDocument(registry, g.name, v))}` };
      }
    }
    sendJson(res, 200, JSON.stringify({ paths }));
    return true;
  }
  const m = /^\/openapi\/v3\/(?:api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!m) return false;
  const group = m[1] ? '' : m[2];
  const version = m[1] ?? m[3];
  if (registry.resourcesOf(group, version).length === 0) return false;
  const body = gvDocument(registry, group, version);
  sendJson(res, 200, body, { ETag: `"${hash(body)}"`, 'Cache-Control': 'public, immutable' });
  return true;
}
