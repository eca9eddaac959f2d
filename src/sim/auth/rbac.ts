// kube's RBAC authorizer over the sim's stored Roles, ClusterRoles and their bindings: ClusterRoleBindings first, then
// the RoleBindings of the request's namespace; the first rule that allows the request wins, with kube's reason text.
// A binding to a role that does not exist is an evaluation error (reported, as kube does, in the reason).
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import type { UserInfo } from './authenticate.js';
import type { RequestAttributes } from './authorize.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Decision {
  allowed: boolean;
  /** Why it was allowed (`RBAC: allowed by …`), or the evaluation errors met on the way to a refusal. */
  reason: string;
}

export interface RulesResult {
  rules: PolicyRule[];
  errors: string[];
}

interface Subject { kind?: string; name?: string; namespace?: string }
interface RoleRef { kind?: string; name?: string }
interface Binding { name: string; namespace?: string; roleRef: RoleRef; subjects: Subject[] }

const RBAC = 'rbac.authorization.k8s.io';

export class RbacAuthorizer {
  constructor(private readonly store: SimStore) {}

  authorize(user: UserInfo, a: RequestAttributes): Decision {
    const errors: string[] = [];
    const namespace = a.resourceRequest ? a.namespace : undefined;
    for (const binding of this.bindings(namespace)) {
      const subject = binding.subjects.find((s) => appliesTo(s, user, binding.namespace));
      if (!subject) continue;
      const rules = this.roleRules(binding, errors);
      if (rules?.some((r) => ruleAllows(r, a))) return { allowed: true, reason: `RBAC: allowed by ${describe(binding, subject)}` };
    }
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  /** Every rule that applies to `user` in `namespace` (kube's RulesFor, what SelfSubjectRulesReview lists). */
  rulesFor(user: UserInfo, namespace: string | undefined): RulesResult {
    const errors: string[] = [];
    const rules: PolicyRule[] = [];
    for (const binding of this.bindings(namespace)) {
      if (!binding.subjects.some((s) => appliesTo(s, user, binding.namespace))) continue;
      rules.push(...(this.roleRules(binding, errors) ?? []));
    }
    return { rules, errors };
  }

  private *bindings(namespace: string | undefined): Iterable<Binding> {
    yield* this.objects('clusterrolebindings').map((o) => binding(o));
    if (namespace) yield* this.objects('rolebindings', namespace).map((o) => binding(o));
  }

  private roleRules(b: Binding, errors: string[]): PolicyRule[] | undefined {
    const kind = b.roleRef.kind;
    const name = b.roleRef.name ?? '';
    const role = kind === 'ClusterRole' ? this.object('clusterroles', undefined, name) : kind === 'Role' && b.namespace ? this.object('roles', b.namespace, name) : undefined;
    if (!role) {
      errors.push(`${kind === 'Role' ? 'role' : 'clusterrole'}.${RBAC} ${JSON.stringify(name)} not found`);
      return undefined;
    }
    return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
  }

  private type(resource: string): ResourceType | undefined {
    return this.store.registry.lookup(RBAC, 'v1', resource);
  }

  private objects(resource: string, namespace?: string): SimObject[] {
    const type = this.type(resource);
    return type ? this.store.storedIn(type, namespace).map((o) => o.obj) : [];
  }

  private object(resource: string, namespace: string | undefined, name: string): SimObject | undefined {
    const type = this.type(resource);
    return type ? this.store.getStored(type, namespace, name)?.obj : undefined;
  }
}

function binding(o: SimObject): Binding {
  return { name: o.metadata.name ?? '', namespace: o.metadata.namespace, roleRef: (o.roleRef ?? {}) as RoleRef, subjects: Array.isArray(o.subjects) ? (o.subjects as Subject[]) : [] };
}

/** kube's appliesToUser: a User by name, a Group by membership, a ServiceAccount by its username. */
function appliesTo(s: Subject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (s.kind) {
    case 'User': return s.name === user.name;
    case 'Group': return s.name !== undefined && user.groups.includes(s.name);
    case 'ServiceAccount': {
      const namespace = s.namespace || bindingNamespace;
      return namespace !== undefined && user.name === `system:serviceaccount:${namespace}:${s.name}`;
    }
    default: return false;
  }
}

function describe(b: Binding, s: Subject): string {
  const who = s.kind === 'ServiceAccount' ? `ServiceAccount ${JSON.stringify(`${s.namespace || b.namespace}/${s.name}`)}` : `${s.kind} ${JSON.stringify(s.name)}`;
  const binding = b.namespace === undefined ? `ClusterRoleBinding ${JSON.stringify(b.name)}` : `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)}`;
  return `${binding} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${who}`;
}

/** utilerrors.NewAggregate's text: one error as is, several in brackets. */
function aggregate(errors: string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

const has = (list: readonly string[] | undefined, value: string): boolean => Array.isArray(list) && (list.includes('*') || list.includes(value));

/** kube's RuleAllows. */
export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
  if (!has(rule.apiGroups, a.group)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = rule.resources ?? [];
  if (!resources.some((r) => r === '*' || r === combined || (a.subresource !== undefined && a.subresource !== '' && r === `*/${a.subresource}`))) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (a.name !== undefined && names.includes(a.name));
}
