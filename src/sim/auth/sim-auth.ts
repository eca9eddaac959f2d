// Assembles one sim's authentication and authorization: without users every request is the admin's and everything is
// allowed; with users, requests are authenticated (client certificate, dev's token, service account tokens), may
// impersonate, and are authorized by system:masters and RBAC over the stored roles, seeded with kube's bootstrap policy.
import { timingSafeEqual } from 'node:crypto';
import type { SimStore } from '../store.js';
import { AccessControl } from './access-control.js';
import { AUTHENTICATED } from './authenticate.js';
import { ALLOW_ALL, SimAuthorizer, type Authorizer } from './authorize.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { RbacAuthorizer } from './rbac.js';
import type { AuthServices } from './review-handlers.js';
import { ServiceAccountAuthenticator } from './service-account-auth.js';
import { ServiceAccountTokens } from './service-account-tokens.js';
import { MASTERS_GROUP, type SimUsers } from './sim-credentials.js';

export interface SimAuth {
  services: AuthServices;
  /** Set with users. */
  access?: AccessControl;
}

export function createSimAuth(store: SimStore, users: SimUsers | undefined, now: () => number = Date.now): SimAuth {
  const tokens = new ServiceAccountTokens();
  const serviceAccounts = new ServiceAccountAuthenticator(tokens, store, now);
  let authorizer: Authorizer = ALLOW_ALL;
  let access: AccessControl | undefined;
  if (users) {
    authorizer = new SimAuthorizer([MASTERS_GROUP], new RbacAuthorizer(store));
    access = new AccessControl(users, authorizer, serviceAccounts.authenticate);
    for (const { resource, object } of bootstrapPolicy(users.dev)) {
      const ref = { group: 'rbac.authorization.k8s.io', version: 'v1', resource };
      if (!store.get(ref, object.metadata.namespace, object.metadata.name!)) store.create(ref, object);
    }
  }
  const reviewToken: AuthServices['reviewToken'] = (token, audiences) => {
    if (users && sameSecret(token, users.dev.token)) return { user: { name: users.dev.name, groups: [AUTHENTICATED] }, audiences: audiences ?? tokens.apiAudiences };
    return serviceAccounts.review(token, audiences);
  };
  return { services: { authorizer, tokens, now, reviewToken }, access };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a), y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
