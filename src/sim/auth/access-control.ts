// Authentication then authorization of one API request, the hook the request handler calls when the sim runs with
// users (without users the sim answers everyone, as before).
import type { IncomingMessage } from 'node:http';
import { SimApiError } from '../api.js';
import type { RequestVerb } from '../faults.js';
import type { ResourceRoute } from '../router.js';
import { authenticate, type TokenUser } from './authenticate.js';
import { authorize, type Policy, type RequestAttributes } from './authorize.js';
import { MASTERS_GROUP, type SimUsers } from './sim-credentials.js';

export class AccessControl {
  private readonly tokens: TokenUser[];
  private readonly policy: Policy;

  constructor(users: SimUsers) {
    this.tokens = [{ name: users.dev.name, groups: [], token: users.dev.token }];
    this.policy = { superGroups: [MASTERS_GROUP], namespaceOf: new Map([[users.dev.name, users.dev.namespace]]) };
  }

  /** undefined when the request may proceed, else the 401 or 403 to answer with. */
  check(req: IncomingMessage, path: string, route: ResourceRoute | undefined, verb: RequestVerb): SimApiError | undefined {
    const user = authenticate(req, this.tokens);
    if (user instanceof SimApiError) return user;
    return authorize(user, attributes(req, path, route, verb), this.policy);
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
