// The RBAC objects a sim with users starts with: the bootstrap ClusterRoles and ClusterRoleBindings of kube-apiserver
// that every request leans on (cluster-admin for system:masters; discovery, public info and the self reviews for every
// authenticated user; the issuer's public key for service accounts), and the RoleBinding that makes user "dev" an administrator of its namespace. They are ordinary
// objects: `kubectl get clusterroles` lists them, and editing them changes what the users may do.
import type { SimObject } from '../api.js';
import type { PolicyRule } from './rbac.js';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';
const BOOTSTRAP_META = { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } };

export interface SeedObject { resource: 'clusterroles' | 'clusterrolebindings' | 'rolebindings'; object: SimObject }

function clusterRole(name: string, rules: PolicyRule[]): SeedObject {
  return { resource: 'clusterroles', object: { apiVersion: RBAC_V1, kind: 'ClusterRole', metadata: { name, ...BOOTSTRAP_META }, rules } };
}

function clusterRoleBinding(name: string, groups: string[]): SeedObject {
  return {
    resource: 'clusterrolebindings',
    object: {
      apiVersion: RBAC_V1, kind: 'ClusterRoleBinding', metadata: { name, ...BOOTSTRAP_META },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
    },
  };
}

const PUBLIC_INFO = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

export function bootstrapPolicy(dev: { name: string; namespace: string }): SeedObject[] {
  return [
    clusterRole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]),
    clusterRole('system:basic-user', [
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
    ]),
    clusterRole('system:discovery', [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] }]),
    clusterRole('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: PUBLIC_INFO }]),
    clusterRole('system:service-account-issuer-discovery', [{ verbs: ['get'], nonResourceURLs: ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'] }]),
    clusterRoleBinding('cluster-admin', ['system:masters']),
    clusterRoleBinding('system:basic-user', ['system:authenticated']),
    clusterRoleBinding('system:discovery', ['system:authenticated']),
    clusterRoleBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    clusterRoleBinding('system:service-account-issuer-discovery', ['system:serviceaccounts']),
    {
      resource: 'rolebindings',
      object: {
        apiVersion: RBAC_V1, kind: 'RoleBinding', metadata: { name: dev.name, namespace: dev.namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: dev.name }],
      },
    },
  ];
}
