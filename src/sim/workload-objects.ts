// Builders for the realistic objects the workload generator writes: nodes, leases, apps, pods, events.

import type { SimObject } from './api.js';
import { defaultToleration, NODE_PROBLEM_TAINTS, serviceAccountTokenMount, serviceAccountTokenVolume } from './defaults/pod.js';

/** An RFC 3339 timestamp with second precision, as kube serialises metav1.Time. */
export const kubeTime = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** What all pods of one Deployment share. */
export interface AppTemplate {
  app: string;
  tier: string;
  image: string;
  imageID: string;
  port: number;
  cpuRequest: string;
  memoryRequest: string;
  cpuLimit: string;
  memoryLimit: string;
  logLevel: string;
  configMap: string;
}

// ---- managedFields ------------------------------------------------------------------------------

type FieldsTree = { [k: string]: FieldsTree };

/** List fields that server-side apply tracks element by element, and their keys. */
const ASSOCIATIVE_LISTS: Record<string, string[]> = {
  containers: ['name'], initContainers: ['name'], env: ['name'], volumeMounts: ['mountPath'], volumes: ['name'],
  conditions: ['type'], podIPs: ['ip'], hostIPs: ['ip'], ownerReferences: ['uid'], addresses: ['type'],
};
/** Map-typed fields, which own themselves (".") besides their keys. */
const MAP_FIELDS = new Set(['labels', 'annotations', 'limits', 'requests', 'capacity', 'allocatable', 'matchLabels', 'data', 'nodeSelector']);

function listKey(field: string, item: Record<string, unknown>): string[] | undefined {
  if (field === 'ports') return 'containerPort' in item ? ['containerPort', 'protocol'] : ['port', 'protocol'];
  return ASSOCIATIVE_LISTS[field];
}

/** The FieldsV1 set of every field in `value`, shaped like the trees kube's field manager writes. */
export function fieldsV1(value: unknown, field = ''): FieldsTree {
  if (Array.isArray(value)) {
    const out: FieldsTree = {};
    for (const item of value) {
      if (typeof item !== 'object' || item === null) continue;
      const keys = listKey(field, item as Record<string, unknown>);
      if (!keys) return {}; // atomic list: owned as a whole
      const id = Object.fromEntries(keys.map((k) => [k, (item as Record<string, unknown>)[k]]));
      out[`k:${JSON.stringify(id)}`] = { '.': {}, ...fieldsV1(item) };
    }
    return out;
  }
  if (typeof value !== 'object' || value === null) return {};
  const out: FieldsTree = MAP_FIELDS.has(field) ? { '.': {} } : {};
  for (const [k, v] of Object.entries(value)) out[`f:${k}`] = fieldsV1(v, k);
  return out;
}

export function managedFieldsEntry(manager: string, apiVersion: string, time: string, fields: FieldsTree, subresource?: string): Record<string, unknown> {
  return { manager, operation: 'Update', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: fields, ...(subresource ? { subresource } : {}) };
}

// ---- cluster objects ----------------------------------------------------------------------------

export function namespaceObject(name: string): SimObject {
  return {
    apiVersion: 'v1', kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export interface NodeParams { name: string; zone: string; instanceType: string; internalIP: string; podCIDR: string; time: string; machineID: string }

export function nodeObject(p: NodeParams): SimObject {
  const condition = (type: string, status: string, reason: string, message: string): Record<string, string> => ({
    type, status, lastHeartbeatTime: p.time, lastTransitionTime: p.time, reason, message,
  });
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name: p.name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': p.name, 'kubernetes.io/os': 'linux', 'node.kubernetes.io/instance-type': p.instanceType,
        'topology.kubernetes.io/region': 'sim-region-1', 'topology.kubernetes.io/zone': p.zone,
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: { podCIDR: p.podCIDR, podCIDRs: [p.podCIDR], providerID: `sim://${p.name}` },
    status: {
      capacity: { cpu: '16', 'ephemeral-storage': '203056560Ki', 'hugepages-2Mi': '0', memory: '65842396Ki', pods: '110' },
      allocatable: { cpu: '15890m', 'ephemeral-storage': '187136242954', 'hugepages-2Mi': '0', memory: '64691420Ki', pods: '110' },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [{ address: p.internalIP, type: 'InternalIP' }, { address: p.name, type: 'Hostname' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64', bootID: p.machineID.slice(0, 8) + '-boot', containerRuntimeVersion: 'containerd://1.7.22',
        kernelVersion: '6.1.0-28-cloud-amd64', kubeProxyVersion: 'v1.32.0', kubeletVersion: 'v1.32.0', machineID: p.machineID,
        operatingSystem: 'linux', osImage: 'Debian GNU/Linux 12 (bookworm)', systemUUID: p.machineID,
      },
    },
  };
}

export function leaseObject(node: string, nodeUid: string | undefined, renewTime: string): SimObject {
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: {
      name: node, namespace: 'kube-node-lease',
      ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeUid }] } : {}),
    },
    spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime: renewTime.replace('Z', '.000000Z') },
  };
}

// ---- apps ---------------------------------------------------------------------------------------

function container(t: AppTemplate): Record<string, unknown> {
  const probe = (path: string, initialDelaySeconds: number): Record<string, unknown> => ({
    httpGet: { path, port: t.port, scheme: 'HTTP' }, initialDelaySeconds, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3,
  });
  const fieldRef = (fieldPath: string): Record<string, unknown> => ({ fieldRef: { apiVersion: 'v1', fieldPath } });
  return {
    name: t.app,
    image: t.image,
    ports: [{ name: 'http', containerPort: t.port, protocol: 'TCP' }],
    env: [
      { name: 'LOG_LEVEL', value: t.logLevel },
      { name: 'POD_NAME', valueFrom: fieldRef('metadata.name') },
      { name: 'POD_NAMESPACE', valueFrom: fieldRef('metadata.namespace') },
    ],
    resources: { limits: { cpu: t.cpuLimit, memory: t.memoryLimit }, requests: { cpu: t.cpuRequest, memory: t.memoryRequest } },
    volumeMounts: [{ name: 'config', mountPath: `/etc/${t.app}` }],
    livenessProbe: probe('/healthz', 10),
    readinessProbe: probe('/readyz', 5),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  };
}

const podSpecDefaults = {
  restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler',
};

function templateSpec(t: AppTemplate, hash: string | undefined): Record<string, unknown> {
  return {
    metadata: { labels: { app: t.app, tier: t.tier, ...(hash ? { 'pod-template-hash': hash } : {}) } },
    spec: { containers: [container(t)], volumes: [{ name: 'config', configMap: { name: t.configMap, defaultMode: 420 } }], ...podSpecDefaults },
  };
}

export interface AppParams { namespace: string; name: string; template: AppTemplate; replicas: number; time: string; generation?: number }

export function deploymentObject(p: AppParams): SimObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: p.name, namespace: p.namespace, labels: { app: p.template.app }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
    spec: {
      replicas: p.replicas,
      selector: { matchLabels: { app: p.template.app } },
      template: templateSpec(p.template, undefined),
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: appStatus(p.replicas, p.replicas, p.generation ?? 1, p.time, true),
  };
}

function appStatus(replicas: number, ready: number, generation: number, time: string, deployment: boolean): Record<string, unknown> {
  const status: Record<string, unknown> = { observedGeneration: generation, replicas, readyReplicas: ready, availableReplicas: ready };
  if (!deployment) return { ...status, fullyLabeledReplicas: replicas };
  return {
    ...status,
    updatedReplicas: replicas,
    conditions: [
      { type: 'Available', status: 'True', lastUpdateTime: time, lastTransitionTime: time, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
      { type: 'Progressing', status: 'True', lastUpdateTime: time, lastTransitionTime: time, reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.' },
    ],
  };
}

export interface ReplicaSetParams extends AppParams { hash: string; deploymentUid: string }

export function replicaSetObject(p: ReplicaSetParams): SimObject {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name: `${p.name}-${p.hash}`, namespace: p.namespace,
      labels: { app: p.template.app, 'pod-template-hash': p.hash },
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(p.replicas), 'deployment.kubernetes.io/max-replicas': String(p.replicas + Math.ceil(p.replicas / 4)),
        'deployment.kubernetes.io/revision': '1',
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: p.name, uid: p.deploymentUid, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: p.replicas,
      selector: { matchLabels: { app: p.template.app, 'pod-template-hash': p.hash } },
      template: templateSpec(p.template, p.hash),
    },
    status: appStatus(p.replicas, p.replicas, p.generation ?? 1, p.time, false),
  };
}

/** Replica counts changed: the object with new spec/status counts (a copy; the input is not touched). */
export function withReplicas(obj: SimObject, replicas: number, time: string): SimObject {
  const copy = structuredClone(obj) as any;
  copy.spec.replicas = replicas;
  copy.status = appStatus(replicas, replicas, (copy.metadata.generation ?? 1) + 1, time, copy.kind === 'Deployment');
  if (copy.kind === 'ReplicaSet') copy.metadata.annotations['deployment.kubernetes.io/desired-replicas'] = String(replicas);
  return copy;
}

export function serviceObject(namespace: string, name: string, app: string | undefined, clusterIP: string, port: number, targetPort: number): SimObject {
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name, namespace, labels: app ? { app } : { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      ...(app ? { selector: { app } } : {}),
      ports: [{ name: app ? 'http' : 'https', protocol: 'TCP', port, targetPort }],
      clusterIP, clusterIPs: [clusterIP], type: 'ClusterIP', sessionAffinity: 'None',
      ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  };
}

export function configMapObject(namespace: string, name: string, data: Record<string, string>): SimObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

// ---- pods ---------------------------------------------------------------------------------------

export interface PodParams {
  namespace: string;
  name: string;
  template: AppTemplate;
  hash: string;
  replicaSet: { name: string; uid: string };
  /** Unset: not scheduled yet. */
  node?: { name: string; ip: string };
  /** Nodes in the cluster: an unscheduled pod's PodScheduled message counts them (`0/20 nodes are available`). */
  nodeCount: number;
  podIP?: string;
  phase: 'Pending' | 'Running';
  time: string;
  containerID: string;
  tokenVolumeSuffix: string;
  restartCount?: number;
  managedFields: boolean;
  /** FieldsV1 trees shared between pods of the same shape (see PodFieldsCache); never mutated. */
  fieldsCache?: PodFieldsCache;
}

/**
 * managedFields are the slowest part of building a pod, and identical for pods of one app except for
 * their IP keys: the trees are computed once per app and status shape and shared (read-only).
 */
export interface PodFieldsCache {
  controller?: FieldsTree;
  status: Map<string, FieldsTree>;
}

/** The scheduler's words for a pod no node has room for, counting the cluster's real nodes (as kube-scheduler's FitError does). */
function unschedulableMessage(nodes: number): string {
  if (nodes === 0) return 'no nodes available to schedule pods';
  return `0/${nodes} nodes are available: ${nodes} Insufficient cpu. preemption: 0/${nodes} nodes are available: ${nodes} No preemption victims found for incoming pod.`;
}

function podConditions(p: PodParams): Record<string, unknown>[] {
  const c = (type: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    type, status, lastProbeTime: null, lastTransitionTime: p.time, ...extra,
  });
  if (!p.node) return [c('PodScheduled', 'False', { reason: 'Unschedulable', message: unschedulableMessage(p.nodeCount) })];
  if (p.phase === 'Pending') {
    const notReady = { reason: 'ContainersNotReady', message: `containers with unready status: [${p.template.app}]` };
    return [c('PodReadyToStartContainers', 'False'), c('Initialized', 'True'), c('Ready', 'False', notReady), c('ContainersReady', 'False', notReady), c('PodScheduled', 'True')];
  }
  return [c('PodReadyToStartContainers', 'True'), c('Initialized', 'True'), c('Ready', 'True'), c('ContainersReady', 'True'), c('PodScheduled', 'True')];
}

function podStatus(p: PodParams): Record<string, unknown> {
  const status: Record<string, unknown> = { phase: p.phase, conditions: podConditions(p) };
  if (p.node) {
    const t = p.template;
    const running = p.phase === 'Running';
    Object.assign(status, {
      hostIP: p.node.ip, hostIPs: [{ ip: p.node.ip }],
      ...(running && p.podIP ? { podIP: p.podIP, podIPs: [{ ip: p.podIP }] } : {}),
      startTime: p.time,
      containerStatuses: [{
        name: t.app,
        state: running ? { running: { startedAt: p.time } } : { waiting: { reason: 'ContainerCreating' } },
        lastState: (p.restartCount ?? 0) > 0 ? { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: p.time, finishedAt: p.time, containerID: `containerd://${p.containerID}` } } : {},
        ready: running, restartCount: p.restartCount ?? 0, image: t.image, imageID: running ? t.imageID : '', started: running,
        ...(running ? { containerID: `containerd://${p.containerID}` } : {}),
      }],
    });
  }
  status.qosClass = 'Burstable';
  return status;
}

export function podObject(p: PodParams): SimObject {
  const t = p.template;
  // What the API server's admission adds on create is written here already, by the same code: running the whole
  // defaulting per pod would double the cost of building one (the store's own pass then finds nothing to add).
  const tokenVolume = `kube-api-access-${p.tokenVolumeSuffix}`;
  const c = container(t);
  (c.volumeMounts as unknown[]).push(serviceAccountTokenMount(tokenVolume));
  const labels = { app: t.app, tier: t.tier, 'pod-template-hash': p.hash };
  const ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: p.replicaSet.name, uid: p.replicaSet.uid, controller: true, blockOwnerDeletion: true }];
  const spec: Record<string, unknown> = {
    volumes: [
      { name: 'config', configMap: { name: t.configMap, defaultMode: 420 } },
      serviceAccountTokenVolume(tokenVolume),
    ],
    containers: [c],
    ...podSpecDefaults,
    serviceAccountName: 'default',
    serviceAccount: 'default',
    ...(p.node ? { nodeName: p.node.name } : {}),
    tolerations: NODE_PROBLEM_TAINTS.map(defaultToleration),
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  };
  const status = podStatus(p);
  const metadata: SimObject['metadata'] = { name: p.name, generateName: `${p.replicaSet.name}-`, namespace: p.namespace, labels, ownerReferences };
  if (p.managedFields) {
    const cache: PodFieldsCache = p.fieldsCache ?? { status: new Map() };
    // The controller-manager owns what the ReplicaSet's template sets; admission adds the rest.
    cache.controller ??= { 'f:metadata': fieldsV1({ generateName: 1, labels, ownerReferences }), 'f:spec': fieldsV1(templateSpec(t, p.hash).spec) };
    metadata.managedFields = [
      managedFieldsEntry('kube-controller-manager', 'v1', p.time, cache.controller),
      managedFieldsEntry('kubelet', 'v1', p.time, { 'f:status': kubeletFields(status, cache.status) }, 'status'),
    ];
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status };
}

/** The kubelet's status tree: shared per status shape, with the per-pod IP keys filled in. */
function kubeletFields(status: Record<string, unknown>, cache: Map<string, FieldsTree>): FieldsTree {
  const { hostIPs, podIPs, ...rest } = status;
  const cs = (status.containerStatuses as { restartCount: number }[] | undefined)?.[0];
  const shape = `${String(status.phase)}|${hostIPs ? 1 : 0}|${podIPs ? 1 : 0}|${cs && cs.restartCount > 0 ? 1 : 0}`;
  let base = cache.get(shape);
  if (!base) cache.set(shape, (base = fieldsV1(rest)));
  const out: FieldsTree = { ...base };
  const ipKeys = (ips: unknown): FieldsTree =>
    Object.fromEntries((ips as { ip: string }[]).map(({ ip }) => [`k:{"ip":"${ip}"}`, { '.': {}, 'f:ip': {} }]));
  if (hostIPs) out['f:hostIPs'] = ipKeys(hostIPs);
  if (podIPs) out['f:podIPs'] = ipKeys(podIPs);
  return out;
}

// ---- events -------------------------------------------------------------------------------------

export interface EventParams {
  namespace: string;
  name: string;
  involved: { kind: string; apiVersion: string; namespace: string; name: string; uid?: string; resourceVersion?: string; fieldPath?: string };
  reason: string;
  message: string;
  type?: 'Normal' | 'Warning';
  component: string;
  host?: string;
  time: string;
}

/** A core/v1 Event as the kubelet and controllers record them (count 1, no series). */
export function eventObject(p: EventParams): SimObject {
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: p.name, namespace: p.namespace },
    involvedObject: { ...p.involved },
    reason: p.reason,
    message: p.message,
    source: { component: p.component, ...(p.host ? { host: p.host } : {}) },
    firstTimestamp: p.time,
    lastTimestamp: p.time,
    count: 1,
    type: p.type ?? 'Normal',
    eventTime: null,
    reportingComponent: p.component,
    reportingInstance: p.host ?? '',
  };
}
