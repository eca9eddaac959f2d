// RBAC's rule matching and the service account token authenticator, as pure steps over a store (the kubectl judge is
// test/sim/kubectl-auth.test.ts): subresources, `*/sub`, resourceNames, non-resource wildcards, subjects, and tokens
// bound to a pod that die with it.
import { describe, expect, it } from 'vitest';
import { RbacAuthorizer, ruleAllows } from '../../src/sim/auth/rbac.js';
import type { RequestAttributes } from '../../src/sim/auth/authorize.js';
import { ServiceAccountAuthenticator } from '../../src/sim/auth/service-account-auth.js';
import { ServiceAccountTokens } from '../../src/sim/auth/service-account-tokens.js';
import { SimStore } from '../../src/sim/store.js';

const res = (verb: string, resource: string, extra: Partial<Extract<RequestAttributes, { resourceRequest: true }>> = {}): RequestAttributes => ({ resourceRequest: true, verb, group: '', resource, ...extra });
const path = (verb: string, p: string): RequestAttributes => ({ resourceRequest: false, verb, path: p });

describe('ruleAllows', () => {
  it('matches verbs, groups, resources with subresources, and resource names as kube does', () => {
    const logs = { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] };
    expect(ruleAllows(logs, res('get', 'pods', { subresource: 'log' }))).toBe(true);
    expect(ruleAllows(logs, res('get', 'pods'))).toBe(false);
    const scale = { verbs: ['*'], apiGroups: ['apps'], resources: ['*/scale'] };
    expect(ruleAllows(scale, res('update', 'deployments', { group: 'apps', subresource: 'scale' }))).toBe(true);
    expect(ruleAllows(scale, res('update', 'deployments', { group: 'apps' }))).toBe(false);
    const named = { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] };
    expect(ruleAllows(named, res('get', 'configmaps', { name: 'a' }))).toBe(true);
    expect(ruleAllows(named, res('get', 'configmaps', { name: 'b' }))).toBe(false);
    expect(ruleAllows(named, res('get', 'configmaps'))).toBe(false);
    expect(ruleAllows({ verbs: ['get'], apiGroups: ['apps'], resources: ['*'] }, res('get', 'pods'))).toBe(false);
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const rule = { verbs: ['get'], nonResourceURLs: ['/api', '/apis/*'] };
    expect(ruleAllows(rule, path('get', '/api'))).toBe(true);
    expect(ruleAllows(rule, path('get', '/api/v1'))).toBe(false);
    expect(ruleAllows(rule, path('get', '/apis/apps/v1'))).toBe(true);
    expect(ruleAllows(rule, path('post', '/api'))).toBe(false);
    expect(ruleAllows({ verbs: ['get'], resources: ['*'], apiGroups: ['*'] }, path('get', '/api'))).toBe(false);
  });
});

describe('RbacAuthorizer', () => {
  const RB = { group: 'rbac.authorization.k8s.io', version: 'v1' };
  it('binds service accounts by namespace (defaulted to the binding\'s), groups by membership, and names its reason', () => {
    const store = new SimStore();
    store.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'a' } });
    store.create({ ...RB, resource: 'roles' }, { metadata: { name: 'r', namespace: 'a' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] });
    store.create({ ...RB, resource: 'rolebindings' }, { metadata: { name: 'b', namespace: 'a' }, roleRef: { apiGroup: RB.group, kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa' }, { kind: 'Group', apiGroup: RB.group, name: 'team' }] });
    const rbac = new RbacAuthorizer(store);
    const list = res('list', 'pods', { namespace: 'a' });
    expect(rbac.authorize({ name: 'system:serviceaccount:a:sa', groups: [] }, list)).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "b/a" of Role "r" to ServiceAccount "a/sa"' });
    expect(rbac.authorize({ name: 'system:serviceaccount:b:sa', groups: [] }, list).allowed).toBe(false);
    expect(rbac.authorize({ name: 'x', groups: ['team'] }, list).reason).toBe('RBAC: allowed by RoleBinding "b/a" of Role "r" to Group "team"');
    expect(rbac.authorize({ name: 'x', groups: ['team'] }, res('list', 'pods', { namespace: 'other' })).allowed).toBe(false);
    expect(rbac.rulesFor({ name: 'x', groups: ['team'] }, 'a')).toEqual({ rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }], errors: [] });
  });
});

describe('service account tokens', () => {
  it('are valid while their service account and bound pod exist with the same uid, until they expire', () => {
    const store = new SimStore();
    store.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'ns' } });
    const sa = store.create({ group: '', version: 'v1', resource: 'serviceaccounts' }, { metadata: { name: 'sa', namespace: 'ns' } });
    const pod = store.create({ group: '', version: 'v1', resource: 'pods' }, { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    let now = Date.UTC(2030, 0, 1);
    const tokens = new ServiceAccountTokens();
    const auth = new ServiceAccountAuthenticator(tokens, store, () => now);
    const { token } = tokens.issue({ namespace: 'ns', name: 'sa', uid: sa.metadata.uid!, boundObject: { kind: 'Pod', name: 'p', uid: pod.metadata.uid! } }, tokens.apiAudiences, 600, now);
    const ok = auth.review(token);
    expect(ok && 'user' in ok ? ok.user : ok).toMatchObject({ name: 'system:serviceaccount:ns:sa', uid: sa.metadata.uid,
      extra: { 'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': [pod.metadata.uid] } });
    expect(auth.review(token, ['other'])).toEqual({ error: 'token audiences does not match API server audiences' });
    now += 600_000;
    expect(auth.review(token)).toEqual({ error: 'service account token has expired' });
    now -= 1000;
    expect(auth.authenticate(token)?.name).toBe('system:serviceaccount:ns:sa');
    store.delete({ group: '', version: 'v1', resource: 'pods' }, 'ns', 'p');
    expect(auth.review(token)).toEqual({ error: 'service account token has been invalidated' });
    expect(auth.review('not.a.jwt')).toBeUndefined();
    expect(new ServiceAccountAuthenticator(new ServiceAccountTokens(), store, () => now).review(token)).toEqual({ error: 'invalid signature' });
  });
});
