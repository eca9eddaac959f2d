// Maps request paths onto resource collections and objects: /api/v1/…, /apis/{g}/{v}/…, namespaced forms, subresources and the deprecated /watch/ paths.
import type { ResourceRegistry, ResourceType } from './registry.js';
import type { RequestVerb } from './faults.js';
import { queryBool } from './list-options.js';
import { decodePathSegment } from './request-path.js';

export interface ResourceRoute {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Reached through the deprecated /watch/ prefix. */
  legacyWatch: boolean;
}

/** Resolves a resource path as sent (still percent-encoded: each segment is decoded on its own, so `%2F` stays inside its segment); undefined when no resource handler serves it (answered with a plain-text 404). */
export function parseResourcePath(path: string, registry: ResourceRegistry): ResourceRoute | undefined {
  const segs = path.split('/').filter(Boolean).map(decodePathSegment);
  let group: string, version: string, rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) { group = ''; version = segs[1]; rest = segs.slice(2); }
  else if (segs[0] === 'apis' && segs.length >= 4) { group = segs[1]; version = segs[2]; rest = segs.slice(3); }
  else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') { legacyWatch = true; rest = rest.slice(1); }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && registry.lookup(group, version, rest[2])?.namespaced) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const type = registry.lookup(group, version, rest[0]);
  if (!type) return undefined;
  const [, name, subresource] = rest;
  // A namespaced object is only addressable inside its namespace.
  if (type.namespaced && name !== undefined && namespace === undefined) return undefined;
  if (subresource !== undefined && !type.subresources.some((s) => s.name === subresource)) return undefined;
  if (legacyWatch && subresource !== undefined) return undefined;
  return { type, namespace, name, subresource, legacyWatch };
}

/** The API verb of a request on a route (kube's RequestInfo verb). */
export function requestVerb(method: string, route: ResourceRoute, q: URLSearchParams): RequestVerb {
  switch (method) {
    case 'GET': case 'HEAD':
      if (route.legacyWatch || queryBool(q.get('watch')) === true) return 'watch';
      return route.name === undefined ? 'list' : 'get';
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return route.name === undefined ? 'deletecollection' : 'delete';
    default: return 'other';
  }
}
