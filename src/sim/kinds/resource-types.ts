// The kinds served beside the first set (registry.ts): stateful and daemon workloads, RBAC, networking, storage
// claims, quotas, endpoints and disruption budgets, with kube-apiserver 1.32's discovery values. Only the subresources
// the sim serves are listed.
import type { ResourceType, SubresourceType } from '../registry.js';

// registry.ts's ALL_VERBS (not imported: registry.ts imports this file).
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];
const status = (kind: string): SubresourceType => ({ name: 'status', kind, verbs: STATUS_VERBS });
const scale: SubresourceType = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: STATUS_VERBS };
const template = { metadata: { creationTimestamp: null }, spec: { containers: null } };

type Entry = Omit<ResourceType, 'listKind' | 'subresources' | 'hasStatusSubresource' | 'verbs'> & { subresources?: SubresourceType[]; verbs?: string[] };

function kind(t: Entry): ResourceType {
  const subresources = t.subresources ?? [];
  return { ...t, verbs: t.verbs ?? ALL_VERBS, listKind: `${t.kind}List`, subresources, hasStatusSubresource: subresources.some((s) => s.name === 'status') };
}

export function moreResourceTypes(): ResourceType[] {
  return [
    kind({ group: 'apps', version: 'v1', resource: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'],
      subresources: [scale, status('StatefulSet')], emptyFields: { spec: { selector: null, template, serviceName: '', updateStrategy: {} }, status: { replicas: 0, availableReplicas: 0 } } }),
    kind({ group: 'apps', version: 'v1', resource: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'],
      subresources: [status('DaemonSet')], emptyFields: { spec: { selector: null, template, updateStrategy: {} }, status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 } } }),
    kind({ group: '', version: 'v1', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'],
      subresources: [{ name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] }] }),
    kind({ group: '', version: 'v1', resource: 'endpoints', singular: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] }),
    kind({ group: '', version: 'v1', resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'],
      subresources: [status('PersistentVolumeClaim')], emptyFields: { spec: { resources: {} }, status: {} } }),
    kind({ group: '', version: 'v1', resource: 'persistentvolumes', singular: 'persistentvolume', kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'],
      subresources: [status('PersistentVolume')], emptyFields: { spec: {}, status: {} } }),
    kind({ group: '', version: 'v1', resource: 'replicationcontrollers', singular: 'replicationcontroller', kind: 'ReplicationController', namespaced: true, shortNames: ['rc'], categories: ['all'],
      subresources: [scale, status('ReplicationController')], emptyFields: { spec: {}, status: { replicas: 0 } } }),
    kind({ group: '', version: 'v1', resource: 'resourcequotas', singular: 'resourcequota', kind: 'ResourceQuota', namespaced: true, shortNames: ['quota'],
      subresources: [status('ResourceQuota')], emptyFields: { spec: {}, status: {} } }),
    kind({ group: '', version: 'v1', resource: 'limitranges', singular: 'limitrange', kind: 'LimitRange', namespaced: true, shortNames: ['limits'], emptyFields: { spec: { limits: null } } }),
    kind({ group: 'batch', version: 'v1', resource: 'cronjobs', singular: 'cronjob', kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'],
      subresources: [status('CronJob')], emptyFields: { spec: { schedule: '', jobTemplate: { spec: { template } } }, status: {} } }),
    kind({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice', namespaced: true, emptyFields: { addressType: '', endpoints: null, ports: null } }),
    kind({ group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', singular: 'ingress', kind: 'Ingress', namespaced: true, shortNames: ['ing'],
      subresources: [status('Ingress')], emptyFields: { spec: {}, status: { loadBalancer: {} } } }),
    kind({ group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', singular: 'ingressclass', kind: 'IngressClass', namespaced: false, emptyFields: { spec: {} } }),
    kind({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'],
      subresources: [status('PodDisruptionBudget')], emptyFields: { spec: {}, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } } }),
    kind({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', singular: 'role', kind: 'Role', namespaced: true, emptyFields: { rules: null } }),
    kind({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true, emptyFields: { roleRef: { apiGroup: '', kind: '', name: '' } } }),
    kind({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false, emptyFields: { rules: null } }),
    kind({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, emptyFields: { roleRef: { apiGroup: '', kind: '', name: '' } } }),
  ];
}
