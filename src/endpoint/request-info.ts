// What a request to the endpoint asks for, read from its path and query without knowing the cluster's kinds (kube's
// RequestInfoFactory rules): the API group/version/resource, namespace, name, subresource and verb.
import { goPathUnescape, splitPath } from '../wire/kube-path.js';
import { queryBool } from '../wire/query-bool.js';

export interface RequestInfo {
  /** True for /api/… and /apis/… paths that name a resource; false for discovery, OpenAPI, health and the rest. */
  isResource: boolean;
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'other';
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The segments past the subresource, joined (pods/NAME/proxy/SOME/PATH: "SOME/PATH"), as kube keeps them in Parts. */
  subpath?: string;
  path: string;
  query: URLSearchParams;
}

/** Subresources of a namespace itself: /api/v1/namespaces/NAME/status is the namespace, not a resource named "status". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * A request line's target in origin form: an absolute-form target (a proxy client's) loses its scheme and host, and
 * an empty path is "/" (RFC 9112 §3.2.1: `http://host?x=1` is `/?x=1`, not `?x=1`).
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const rest = target.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/, '');
  return rest.startsWith('?') ? `/${rest}` : rest || '/';
}

/** `target` as the request line has it (origin form, or absolute form: the scheme and host are dropped). */
export function requestInfo(method: string, target: string): RequestInfo {
  const origin = originForm(target);
  const q = origin.indexOf('?');
  const path = q < 0 ? origin : origin.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : origin.slice(q + 1));
  const none: RequestInfo = { isResource: false, verb: 'other', group: '', version: '', resource: '', path, query };
  // kube-apiserver reads req.URL.Path, which Go's server has already decoded (`%2F` is a slash there, so
  // `pods/web%2Fproxy` is pods/web/proxy), and splits it keeping empty inner segments (apiserver/pkg/endpoints/request/
  // requestinfo.go NewRequestInfo, splitPath). Reading it any other way lets a write pass as something else.
  const parts = splitPath(goPathUnescape(path));
  let rest: string[];
  let group: string, version: string;
  if (parts[0] === 'api' && parts.length >= 3) { group = ''; version = parts[1]; rest = parts.slice(2); }
  else if (parts[0] === 'apis' && parts.length >= 4) { group = parts[1]; version = parts[2]; rest = parts.slice(3); }
  else return none;
  let legacyWatch = false;
  if (rest[0] === 'watch') { legacyWatch = true; rest = rest.slice(1); }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    if (rest.length === 2 || NAMESPACE_SUBRESOURCES.has(rest[2])) {
      // The namespace object itself (…/namespaces/NAME[/status|finalize]).
    } else {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  if (rest.length === 0) return none;
  // kube's RequestInfoFactory: resource, name, subresource, and anything further (a proxy's path) in Parts.
  const [resource, name, subresource] = rest;
  const subpath = rest.length > 3 ? rest.slice(3).join('/') : undefined;
  const watching = legacyWatch || queryTrue(query.get('watch'));
  const verb = verbOf(method, name !== undefined, watching);
  return { isResource: true, verb, group, version, resource, namespace, name, subresource, ...(subpath !== undefined ? { subpath } : {}), path, query };
}

function verbOf(method: string, named: boolean, watching: boolean): RequestInfo['verb'] {
  switch (method) {
    case 'GET': case 'HEAD': return watching ? 'watch' : named ? 'get' : 'list';
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return named ? 'delete' : 'deletecollection';
    default: return 'other';
  }
}

/** A boolean query parameter is set, as kube decodes ListOptions (wire/query-bool.ts: `watch=yes` is true). */
export function queryTrue(v: string | null): boolean {
  return queryBool(v) === true;
}

/** "pods", "deployments.apps": kubectl's spelling of the resource. */
export function resourceName(i: Pick<RequestInfo, 'group' | 'resource'>): string {
  return i.group ? `${i.resource}.${i.group}` : i.resource;
}

/** namespace/name, or name for cluster-scoped objects. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Whether a request is a write (what the write modes decide about). Creates that store nothing — the built-in access
 * and token reviews, TokenRequests — are questions to the server, answered by the target as reads are.
 */
export const isWrite = (i: RequestInfo): boolean =>
  i.isResource && (i.verb === 'create' || i.verb === 'update' || i.verb === 'patch' || i.verb === 'delete' || i.verb === 'deletecollection') && !isQuestion(i);

/** The review kinds kube-apiserver answers without storing anything, by API group. */
const REVIEW_RESOURCES: Readonly<Record<string, ReadonlySet<string>>> = {
  'authentication.k8s.io': new Set(['tokenreviews', 'selfsubjectreviews']),
  'authorization.k8s.io': new Set(['subjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'localsubjectaccessreviews']),
};

/**
 * A create that stores nothing: the target answers it in every write mode. Only the built-in review kinds and a
 * ServiceAccount's `token` subresource (a TokenRequest): a custom resource named `codereviews` is stored like any other.
 */
export const isQuestion = (i: RequestInfo): boolean =>
  i.isResource && i.verb === 'create' && (
    (i.subresource === undefined && REVIEW_RESOURCES[i.group]?.has(i.resource) === true)
    || (i.group === '' && i.resource === 'serviceaccounts' && i.name !== undefined && i.subresource === 'token' && i.subpath === undefined));
