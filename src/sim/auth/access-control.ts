// Authentication, impersonation, then authorization of one API request: the hook the request handler calls when the
// sim runs with users (without users the sim answers everyone, as before).
import type { IncomingMessage } from 'node:http';
import { SimApiError } from '../api.js';
import type { RequestVerb } from '../faults.js';
import type { ResourceRoute } from '../router.js';
import { authenticate, type TokenAuthenticator, type TokenUser, type UserInfo } from './authenticate.js';
import { forbidden, type Authorizer, type RequestAttributes } from './authorize.js';
import { impersonate } from './impersonation.js';
import type { SimUsers } from './sim-credentials.js';

export class AccessControl {
  private readonly tokens: TokenUser[];

  constructor(users: SimUsers, readonly authorizer: Authorizer, private readonly serviceAccounts?: TokenAuthenticator) {
    this.tokens = [{ name: users.dev.name, groups: [], token: users.dev.token }];
  }

  /** The user the request acts as when it may proceed, else the 401, 400 or 403 to answer with. */
  check(req: IncomingMessage, path: string, route: ResourceRoute | undefined, verb: RequestVerb): UserInfo | SimApiError {
    const authenticated = authenticate(req, this.tokens, this.serviceAccounts);
    if (authenticated instanceof SimApiError) return authenticated;
    const user = impersonate(req, authenticated, this.authorizer);
    if (user instanceof SimApiError) return user;
    const a = attributes(req, path, route, verb);
    const d = this.authorizer.authorize(user, a);
    return d.allowed ? user : forbidden(user, a, d.reason);
  }
}

function attributes(req: IncomingMessage, path: string, route: ResourceRoute | undefined, verb: RequestVerb): RequestAttributes {
  const method = (req.method ?? 'GET').toLowerCase();
  if (!route) return { resourceRequest: false, verb: method, path };
  const { type, name, subresource } = route;
  // As kube's RequestInfo: a namespace object is addressed "in" itself, so a namespace's user may read it.
  const namespace = type.group === '' && type.resource === 'namespaces' && name !== undefined ? name : route.namespace;
  return { resourceRequest: true, verb: verb === 'other' ? method : verb, group: type.group, resource: type.resource, subresource, namespace, name };
}
