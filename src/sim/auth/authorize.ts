// What an authenticated user may do, a small RBAC: system:masters may do everything; a user bound to a namespace may
// use every verb on every resource inside it; every authenticated user may read discovery (kube's system:discovery
// role). Anything else is refused with kube-apiserver's exact 403 wording.
import { SimApiError } from '../api.js';
import type { UserInfo } from './authenticate.js';

/** A request as RBAC sees it (kube's authorizer.Attributes). */
export type RequestAttributes =
  | { resourceRequest: true; verb: string; group: string; resource: string; subresource?: string; namespace?: string; name?: string }
  | { resourceRequest: false; verb: string; path: string };

export interface Policy {
  /** The groups allowed everything. */
  superGroups: readonly string[];
  /** user name → the one namespace it may use. */
  namespaceOf: ReadonlyMap<string, string>;
}

/** Non-resource paths every authenticated user may GET (system:discovery, system:public-info-viewer). */
const DISCOVERY = [/^\/api\/?$/, /^\/api\/v1\/?$/, /^\/apis\/?$/, /^\/apis\/[^/]+\/?$/, /^\/apis\/[^/]+\/[^/]+\/?$/, /^\/openapi(\/.*)?$/, /^\/version\/?$/, /^\/(healthz|livez|readyz)(\/.*)?$/];

/** undefined when allowed, else the 403 Status to answer with. */
export function authorize(user: UserInfo, a: RequestAttributes, policy: Policy): SimApiError | undefined {
  if (user.groups.some((g) => policy.superGroups.includes(g))) return undefined;
  if (!a.resourceRequest) {
    if ((a.verb === 'get' || a.verb === 'head') && DISCOVERY.some((re) => re.test(a.path))) return undefined;
    return forbidden(user, a);
  }
  const bound = policy.namespaceOf.get(user.name);
  if (bound !== undefined && a.namespace === bound) return undefined;
  return forbidden(user, a);
}

function forbidden(user: UserInfo, a: RequestAttributes): SimApiError {
  const status: SimApiError['status'] = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: '', reason: 'Forbidden', details: {}, code: 403 };
  if (!a.resourceRequest) {
    status.message = `forbidden: User ${JSON.stringify(user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
    return new SimApiError(status);
  }
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const why = `User ${JSON.stringify(user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${scope}`;
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  status.message = a.name ? `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  status.details = { ...(a.name ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: a.resource };
  return new SimApiError(status);
}
