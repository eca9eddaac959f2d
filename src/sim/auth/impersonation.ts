// kube-apiserver's impersonation (Impersonate-User, -Group, -Uid and -Extra-* headers, what `kubectl --as` sends):
// the requester must be allowed the `impersonate` verb on each thing it asks to be — users (or the service account,
// for system:serviceaccount:NS:NAME), groups, uids, userextras/KEY — and the request then runs as that user.
import type { IncomingMessage } from 'node:http';
import type { SimApiError } from '../api.js';
import { badRequest } from '../status.js';
import { AUTHENTICATED, type UserInfo } from './authenticate.js';
import { forbidden, type Authorizer, type RequestAttributes } from './authorize.js';

const ANONYMOUS = 'system:anonymous';
const UNAUTHENTICATED = 'system:unauthenticated';
const EXTRA_PREFIX = 'impersonate-extra-';

/** The user a request acts as: `user` itself without impersonation headers, else the impersonated one (or a 400/403). */
export function impersonate(req: IncomingMessage, user: UserInfo, authorizer: Authorizer): UserInfo | SimApiError {
  const lines = headerLines(req);
  const name = lines('impersonate-user')[0];
  const groups = lines('impersonate-group');
  const uid = lines('impersonate-uid')[0];
  const extra: Record<string, string[]> = {};
  for (const h of Object.keys(req.headers)) {
    if (!h.startsWith(EXTRA_PREFIX)) continue;
    const key = decodeURIComponent(h.slice(EXTRA_PREFIX.length));
    extra[key] = [...(extra[key] ?? []), ...lines(h)];
  }
  if (name === undefined) {
    if (groups.length || uid !== undefined || Object.keys(extra).length) return badRequest('requested impersonation of groups, uid or extra without impersonating a user');
    return user;
  }

  const checks: RequestAttributes[] = [];
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  checks.push(sa
    ? { resourceRequest: true, verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace: sa[1], name: sa[2] }
    : { resourceRequest: true, verb: 'impersonate', group: '', resource: 'users', name });
  for (const g of groups) checks.push({ resourceRequest: true, verb: 'impersonate', group: '', resource: 'groups', name: g });
  for (const [key, values] of Object.entries(extra)) {
    for (const v of values) checks.push({ resourceRequest: true, verb: 'impersonate', group: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
  }
  if (uid !== undefined) checks.push({ resourceRequest: true, verb: 'impersonate', group: 'authentication.k8s.io', resource: 'uids', name: uid });
  for (const a of checks) {
    const d = authorizer.authorize(user, a);
    if (!d.allowed) return forbidden(user, a, d.reason);
  }

  const asGroups = groups.length === 0 && sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`] : [...groups];
  // Everyone but the anonymous user is authenticated, unless the caller asked for the unauthenticated group.
  if (name !== ANONYMOUS && !asGroups.includes(AUTHENTICATED) && !asGroups.includes(UNAUTHENTICATED)) asGroups.push(AUTHENTICATED);
  return { name, groups: asGroups, ...(uid !== undefined ? { uid } : {}), ...(Object.keys(extra).length ? { extra } : {}) };
}

/**
 * A header's values, one per line as sent: kube-apiserver reads req.Header[name] line by line and never splits a line
 * on commas (a group may hold one: cn=ops,dc=example). Node joins repeated lines in `headers`, so they are read from
 * `headersDistinct` where the request has it.
 */
function headerLines(req: IncomingMessage): (name: string) => string[] {
  const distinct = (req as Partial<Pick<IncomingMessage, 'headersDistinct'>>).headersDistinct;
  return (name) => {
    const v = distinct?.[name] ?? req.headers[name];
    return (v === undefined ? [] : Array.isArray(v) ? v : [v]).filter(Boolean);
  };
}
