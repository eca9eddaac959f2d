// The platform objects every 1.32 cluster has from its first second: the two system PriorityClasses, API priority
// and fairness's mandatory configuration (exempt and catch-all), and one APIService per served group version,
// `Local` and Available as kube-apiserver registers them — kept in step with the registry (CRDs add and remove
// group versions) by syncApiServices.
import type { SimObject } from '../api.js';
import { groupVersion, type ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { kubeTime } from '../object-meta.js';
import { SYSTEM_PRIORITY_CLASSES } from './platform-validation.js';

const AUTOMANAGED = 'kube-aggregator.kubernetes.io/automanaged';
/** kube-apiserver's APIService priorities (group minimum, version) for the built-in group versions of 1.32. */
const PRIORITIES: Record<string, [number, number]> = {
  v1: [18000, 1], 'apiregistration.k8s.io/v1': [18000, 15], 'apps/v1': [17800, 15], 'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15], 'authorization.k8s.io/v1': [17600, 15], 'autoscaling/v2': [17500, 30], 'autoscaling/v1': [17500, 15],
  'batch/v1': [17400, 15], 'certificates.k8s.io/v1': [17300, 15], 'networking.k8s.io/v1': [17200, 15], 'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15], 'storage.k8s.io/v1': [16800, 15], 'admissionregistration.k8s.io/v1': [16700, 15],
  'apiextensions.k8s.io/v1': [16700, 15], 'scheduling.k8s.io/v1': [16600, 15], 'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15], 'discovery.k8s.io/v1': [16200, 15], 'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};
/** A CRD's group versions sort after the built-ins (kube's crdregistration controller). */
const CRD_PRIORITY: [number, number] = [1000, 100];

const ref = (group: string, resource: string) => ({ group, version: 'v1', resource });

function apiService(group: string, version: string, builtin: boolean, now: string): SimObject {
  const [groupPriorityMinimum, versionPriority] = PRIORITIES[groupVersion({ group, version })] ?? CRD_PRIORITY;
  return {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [AUTOMANAGED]: builtin ? 'onstart' : 'true' } },
    spec: { ...(group ? { group } : {}), version, groupPriorityMinimum, versionPriority },
    status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' }] },
  };
}

/** Creates the APIService of every served group version that lacks one and removes those of group versions gone. */
export function syncApiServices(store: SimStore, now = new Date()): void {
  const type = store.resolve(ref('apiregistration.k8s.io', 'apiservices'));
  const served = new Map<string, { group: string; version: string; builtin: boolean }>();
  for (const t of store.registry.all()) served.set(`${t.version}.${t.group}`, { group: t.group, version: t.version, builtin: t.crd === undefined });
  const existing = new Map(store.storedIn(type).map((o) => [o.meta.name, o]));
  for (const [name, gv] of served) {
    if (!existing.has(name)) store.createObject(type, apiService(gv.group, gv.version, gv.builtin, kubeTime(now)));
  }
  for (const [name, o] of existing) {
    if (!served.has(name) && o.obj.metadata.labels?.[AUTOMANAGED] !== undefined) store.deleteObject(type, undefined, name);
  }
}

function flowControlObjects(): [ResourceType['resource'], SimObject][] {
  const meta = (name: string) => ({ name, annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } });
  const all = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
  const nonResource = { verbs: ['*'], nonResourceURLs: ['*'] };
  return [
    ['prioritylevelconfigurations', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta('exempt'), spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } }],
    ['prioritylevelconfigurations', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta('catch-all'), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } } }],
    ['flowschemas', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: meta('exempt'),
      spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], resourceRules: [all], nonResourceRules: [nonResource] }] } }],
    ['flowschemas', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: meta('catch-all'),
      spec: { priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: 10000, distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }], resourceRules: [all], nonResourceRules: [nonResource] }] } }],
  ];
}

/** What a new cluster holds before anyone writes: system PriorityClasses, APF's mandatory objects, APIServices. */
export function seedPlatformObjects(store: SimStore): void {
  for (const pc of SYSTEM_PRIORITY_CLASSES) {
    store.create(ref('scheduling.k8s.io', 'priorityclasses'), { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: pc.name }, value: pc.value, description: pc.description, preemptionPolicy: 'PreemptLowerPriority' } as SimObject);
  }
  for (const [resource, o] of flowControlObjects()) store.create(ref('flowcontrol.apiserver.k8s.io', resource), o);
  syncApiServices(store);
}
