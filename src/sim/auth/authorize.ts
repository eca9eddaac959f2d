// What an authenticated user may do, decided as kube-apiserver's authorizer chain with --authorization-mode=RBAC does:
// the system:masters group may do everything; everyone else gets what the stored RBAC objects grant (the sim seeds
// kube's bootstrap roles: bootstrap-policy.ts). Refusals carry kube-apiserver's exact 403 wording.
import { SimApiError } from '../api.js';
import type { UserInfo } from './authenticate.js';
import type { Decision, PolicyRule, RbacAuthorizer, RulesResult } from './rbac.js';

/** A request as RBAC sees it (kube's authorizer.Attributes). */
export type RequestAttributes =
  | { resourceRequest: true; verb: string; group: string; resource: string; subresource?: string; namespace?: string; name?: string }
  | { resourceRequest: false; verb: string; path: string };

export interface Authorizer {
  authorize(user: UserInfo, a: RequestAttributes): Decision;
  /** The rules that apply to `user` in `namespace` (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string | undefined): RulesResult;
}

/** What kube's AlwaysAllow lists as everyone's rules: everything. */
const EVERYTHING: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];

/** The sim without users: every request is allowed (kube's AlwaysAllow). */
export const ALLOW_ALL: Authorizer = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => ({ rules: EVERYTHING, errors: [] }),
};

/** kube's union of the privileged-group authorizer (system:masters) and RBAC. */
export class SimAuthorizer implements Authorizer {
  constructor(private readonly superGroups: readonly string[], private readonly rbac: RbacAuthorizer) {}

  authorize(user: UserInfo, a: RequestAttributes): Decision {
    if (this.isSuper(user)) return { allowed: true, reason: '' };
    return this.rbac.authorize(user, a);
  }

  /** RBAC's rules only: as in kube, the privileged group is an authorizer but not a rule resolver. */
  rulesFor(user: UserInfo, namespace: string | undefined): RulesResult {
    return this.rbac.rulesFor(user, namespace);
  }

  private isSuper(user: UserInfo): boolean {
    return user.groups.some((g) => this.superGroups.includes(g));
  }
}

/** kube-apiserver's 403 for a request the authorizer did not allow (the reason, when there is one, after a colon). */
export function forbidden(user: UserInfo, a: RequestAttributes, reason = ''): SimApiError {
  const status: SimApiError['status'] = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: '', reason: 'Forbidden', details: {}, code: 403 };
  const suffix = reason ? `: ${reason}` : '';
  if (!a.resourceRequest) {
    status.message = `forbidden: User ${JSON.stringify(user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}${suffix}`;
    return new SimApiError(status);
  }
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const why = `User ${JSON.stringify(user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${scope}${suffix}`;
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  status.message = a.name ? `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  status.details = { ...(a.name ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: a.resource };
  return new SimApiError(status);
}
