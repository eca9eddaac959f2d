// Maps request paths onto resource collections and objects: /api/v1/…, /apis/{g}/{v}/…, namespaced forms, subresources and the deprecated /watch/ paths.
import type { ResourceRegistry, ResourceType } from './registry.js';
import type { RequestVerb } from './faults.js';
import { queryBool } from './list-options.js';
import { splitPath } from '../wire/kube-path.js';

export interface ResourceRoute {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Reached through the deprecated /watch/ prefix. */
  legacyWatch: boolean;
}

/**
 * Resolves a resource path as kube-apiserver does: `decodedPath` is Go's req.URL.Path (wire/kube-path.ts goPathUnescape), so an
 * escaped slash splits segments as a slash does (`configmaps/a%2fkeep` is configmaps `a`, subresource `keep`), and an
 * empty inner segment is kept (`namespaces//configmaps` is the namespace ""). undefined when no resource handler serves it.
 */
export function parseResourcePath(decodedPath: string, registry: ResourceRegistry): ResourceRoute | undefined {
  // kube's director (apiserver/pkg/server/handler.go) hands a path to go-restful only when it starts with a web
  // service's root (/api/v1, /apis/GROUP/VERSION): `//api/v1/…` reaches no resource handler.
  if (decodedPath.startsWith('//')) return undefined;
  const segs = splitPath(decodedPath);
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

/**
 * Whether kube-apiserver's director hands `decodedPath` to go-restful (apiserver/pkg/server/handler.go): a path under a
 * built-in group/version's web service root. CRD kinds are served by apiextensions' own handler, not go-restful.
 */
export function underBuiltinGroupVersion(decodedPath: string, registry: ResourceRegistry): boolean {
  return registry.all().some((t) => t.crd === undefined && decodedPath.startsWith(`${t.group ? `/apis/${t.group}` : '/api'}/${t.version}/`));
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
