// The sim's StatefulSet, DaemonSet, endpoints, disruption, resource quota and serviceaccount controllers in-process,
// judged by the objects and the order of the changes the store emits.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { ControllerManager } from '../../src/sim/controllers/controller-manager.js';
import { budgetStatus } from '../../src/sim/controllers/disruption-controller.js';
import { formatQuantity, parseQuantity } from '../../src/sim/kinds/quantity.js';
import { SimStore } from '../../src/sim/store.js';
import { nodeObject } from '../../src/sim/workload-objects.js';
import { NAMESPACES, PODS, until } from './sim-helpers.js';

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const STATEFULSETS = { group: 'apps', version: 'v1', resource: 'statefulsets' };
const DAEMONSETS = { group: 'apps', version: 'v1', resource: 'daemonsets' };
const SERVICES = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints' };
const SLICES = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
const SERVICEACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

const running: ControllerManager[] = [];
afterEach(() => { for (const cm of running.splice(0)) cm.stop(); });

function node(i: number): SimObject {
  return nodeObject({ name: `node-${i}`, zone: 'z', instanceType: 'm', internalIP: `10.0.0.${i}`, podCIDR: `10.64.${i}.0/24`, time: '2026-01-01T00:00:00Z', machineID: 'm'.repeat(32) });
}

function cluster(nodes = 2, opts: { podStartMs?: number } = {}): { store: SimStore; cm: ControllerManager; added: string[] } {
  const store = new SimStore();
  store.create(NAMESPACES, { metadata: { name: 'default' } });
  for (let i = 1; i <= nodes; i++) store.create(NODES, node(i));
  const cm = new ControllerManager(store, { graceScale: 0.002, podStartMs: opts.podStartMs ?? 10 });
  running.push(cm);
  const added: string[] = [];
  store.onCommit((c, t) => { if (c.type === 'ADDED' && t.resource === 'pods') added.push(c.key); });
  cm.start();
  return { store, cm, added };
}

const template = (app: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }], ...spec } });
const pods = (store: SimStore, app: string): any[] => store.list(PODS, 'default').filter((p) => p.metadata.labels?.app === app);
const isRunning = (p: any): boolean => p.status?.phase === 'Running' && p.metadata.deletionTimestamp === undefined;

describe('StatefulSet controller', () => {
  it('creates <name>-0, -1, -2 one at a time (each once the previous is ready), then reports the revision', async () => {
    const { store, cm, added } = cluster(2, { podStartMs: 30 });
    store.create(STATEFULSETS, { metadata: { name: 'db', namespace: 'default' }, spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db') } });
    await until(() => pods(store, 'db').filter(isRunning).length === 3 && cm.pending() === 0, 5000);
    expect(added).toEqual(['default/db-0', 'default/db-1', 'default/db-2']);
    const p1 = pods(store, 'db').find((p) => p.metadata.name === 'db-1');
    expect(p1.spec).toMatchObject({ hostname: 'db-1', subdomain: 'db' });
    const sts = store.get(STATEFULSETS, 'default', 'db') as any;
    expect(sts.status).toMatchObject({ observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: p1.metadata.labels['controller-revision-hash'] });
    expect(sts.status.updateRevision).toBe(sts.status.currentRevision);
    // kube's defaults on the stored spec.
    expect(sts.spec).toMatchObject({ podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, revisionHistoryLimit: 10, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' } });
  });

  it('scales down from the highest ordinal and rolls a new template out from the highest ordinal', async () => {
    const { store, cm } = cluster(2);
    store.create(STATEFULSETS, { metadata: { name: 'db', namespace: 'default' }, spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db') } });
    await until(() => pods(store, 'db').filter(isRunning).length === 3 && cm.pending() === 0, 5000);
    const sts = store.get(STATEFULSETS, 'default', 'db') as any;
    store.update(STATEFULSETS, { ...sts, spec: { ...sts.spec, replicas: 2 } });
    await until(() => pods(store, 'db').length === 2, 5000);
    expect(pods(store, 'db').map((p) => p.metadata.name).sort()).toEqual(['db-0', 'db-1']);
    const old = (store.get(STATEFULSETS, 'default', 'db') as any);
    const deleted: string[] = [];
    store.onCommit((c, t) => { if (t.resource === 'pods' && c.type === 'DELETED') deleted.push(c.key); });
    store.update(STATEFULSETS, { ...old, spec: { ...old.spec, template: template('db', { containers: [{ name: 'c', image: 'nginx:2' }] }) } });
    await until(() => {
      const s = (store.get(STATEFULSETS, 'default', 'db') as any).status;
      return s.updatedReplicas === 2 && s.readyReplicas === 2 && s.currentRevision === s.updateRevision && s.currentRevision !== old.status.currentRevision;
    }, 5000);
    expect(deleted).toEqual(['default/db-1', 'default/db-0']);
    expect(pods(store, 'db').every((p) => p.spec.containers[0].image === 'nginx:2')).toBe(true);
  });

  it('gives each pod its claims from volumeClaimTemplates', async () => {
    const { store, cm } = cluster(1);
    store.create(STATEFULSETS, { metadata: { name: 'db', namespace: 'default' }, spec: { replicas: 1, serviceName: 'db', podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'db' } }, template: template('db'), volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } });
    await until(() => pods(store, 'db').length === 1 && cm.pending() === 0, 5000);
    const pvc = store.get({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }, 'default', 'data-db-0') as any;
    expect(pvc.spec.resources.requests.storage).toBe('1Gi');
    // The claim's volume, beside the service account token volume admission adds to every pod.
    const volumes = pods(store, 'db')[0].spec.volumes;
    expect(volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } });
    expect(volumes.map((v: { name: string }) => v.name).filter((n: string) => !n.startsWith('kube-api-access-'))).toEqual(['data']);
  });
});

describe('DaemonSet controller', () => {
  it('runs one pod per node, pinned by node affinity, follows nodes that come, and skips nodes whose taints it does not tolerate', async () => {
    const { store, cm } = cluster(2);
    store.create(DAEMONSETS, { metadata: { name: 'agent', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') } });
    await until(() => pods(store, 'agent').filter(isRunning).length === 2 && cm.pending() === 0, 5000);
    for (const p of pods(store, 'agent')) {
      expect(p.metadata.name).toMatch(/^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      const pinned = p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0];
      expect(pinned).toEqual({ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] });
      expect(p.spec.tolerations).toContainEqual({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' });
    }
    store.create(NODES, node(3));
    const tainted = node(4);
    (tainted.spec as any).taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }];
    store.create(NODES, tainted);
    await until(() => pods(store, 'agent').filter(isRunning).length === 3 && cm.pending() === 0, 5000);
    expect(pods(store, 'agent').map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    const ds = store.get(DAEMONSETS, 'default', 'agent') as any;
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberMisscheduled: 0 });
    expect(ds.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  });
});

describe('DaemonSet rolling update', () => {
  it('replaces the pods of a changed template one node at a time', async () => {
    const { store, cm } = cluster(3);
    store.create(DAEMONSETS, { metadata: { name: 'agent', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') } });
    await until(() => pods(store, 'agent').filter(isRunning).length === 3 && cm.pending() === 0, 5000);
    let live = 0, maxDown = 0;
    store.onCommit(() => {
      live = pods(store, 'agent').filter((p) => isRunning(p) && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')).length;
      maxDown = Math.max(maxDown, 3 - live);
    });
    const ds = store.get(DAEMONSETS, 'default', 'agent') as any;
    store.update(DAEMONSETS, { ...ds, spec: { ...ds.spec, template: template('agent', { containers: [{ name: 'c', image: 'nginx:2' }] }) } });
    await until(() => {
      const s = (store.get(DAEMONSETS, 'default', 'agent') as any).status;
      return s.observedGeneration === 2 && s.updatedNumberScheduled === 3 && s.numberAvailable === 3;
    }, 10_000);
    expect(pods(store, 'agent').map((p) => p.spec.containers[0].image)).toEqual(['nginx:2', 'nginx:2', 'nginx:2']);
    expect(maxDown).toBe(1);
  });
});

describe('endpoints controller', () => {
  it('lists ready pods as addresses and the others as notReadyAddresses, on the named target port; the slice carries conditions', async () => {
    const { store, cm } = cluster(1, { podStartMs: 10 });
    store.create(SERVICES, { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    store.create(PODS, { metadata: { name: 'web-a', namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] } });
    await until(() => ((store.get(ENDPOINTS, 'default', 'web') as any)?.subsets?.[0]?.addresses ?? []).length === 1 && cm.pending() === 0, 5000);
    const pod = store.get(PODS, 'default', 'web-a') as any;
    const ep = store.get(ENDPOINTS, 'default', 'web') as any;
    expect(ep.subsets).toEqual([{ addresses: [{ ip: pod.status.podIP, nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a', uid: pod.metadata.uid } }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]);
    const [slice] = store.list(SLICES, 'default') as any[];
    expect(slice.metadata.labels).toMatchObject({ 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    expect(slice.metadata.ownerReferences[0]).toMatchObject({ kind: 'Service', name: 'web', controller: true });
    expect(slice.endpoints[0].conditions).toEqual({ ready: true, serving: true, terminating: false });
    // A pod whose Ready condition turns False moves to notReadyAddresses.
    store.update(PODS, { ...pod, status: { ...pod.status, conditions: pod.status.conditions.map((c: any) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } });
    await until(() => (store.get(ENDPOINTS, 'default', 'web') as any).subsets[0].notReadyAddresses?.length === 1, 5000);
    expect((store.get(ENDPOINTS, 'default', 'web') as any).subsets[0].addresses).toBeUndefined();
    // Deleting the service removes its Endpoints; the slice goes with its owner.
    store.delete(SERVICES, 'default', 'web');
    await until(() => !store.get(ENDPOINTS, 'default', 'web') && store.list(SLICES, 'default').length === 0, 5000);
  });
});

describe('disruption budgets, quotas and namespace defaults', () => {
  const readyPod = (name: string): SimObject => ({ metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: {}, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });

  it('a budget allows healthy - desired disruptions (minAvailable, maxUnavailable, percentages rounded up)', () => {
    const three = [readyPod('a'), readyPod('b'), readyPod('c')];
    const pdb = (spec: Record<string, unknown>): SimObject => ({ metadata: { name: 'p', generation: 1 }, spec });
    expect(budgetStatus(pdb({ minAvailable: 2 }), three, 0)).toMatchObject({ disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 });
    expect(budgetStatus(pdb({ maxUnavailable: 1 }), three, 0)).toMatchObject({ disruptionsAllowed: 1, desiredHealthy: 2 });
    expect(budgetStatus(pdb({ minAvailable: '50%' }), three, 0)).toMatchObject({ disruptionsAllowed: 1, desiredHealthy: 2 });
    expect(budgetStatus(pdb({ minAvailable: 3 }), three, 0)).toMatchObject({ disruptionsAllowed: 0, conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }] });
    // A pod evicted a moment ago no longer counts as healthy.
    const evicted = { ...pdb({ minAvailable: 1 }), status: { disruptedPods: { a: new Date(1000).toISOString() } } };
    expect(budgetStatus(evicted, three, 2000)).toMatchObject({ disruptionsAllowed: 1, currentHealthy: 2, disruptedPods: { a: new Date(1000).toISOString() } });
  });

  it('quota usage counts objects and sums cpu/memory requests of pods that have not finished', async () => {
    const { store } = cluster(0);
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'default' }, spec: { hard: { pods: '10', configmaps: '5', 'requests.cpu': '2', 'requests.memory': '1Gi', 'limits.memory': '2Gi', 'count/deployments.apps': '3' } } });
    const res = (cpu: string, mem: string) => ({ requests: { cpu, memory: mem }, limits: { memory: mem } });
    store.create(PODS, { metadata: { name: 'a', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x', resources: res('250m', '128Mi') }, { name: 'd', image: 'x', resources: res('500m', '128Mi') }] } });
    store.create(PODS, { metadata: { name: 'b', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x', resources: res('1', '256Mi') }] } });
    store.create(PODS, { metadata: { name: 'done', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x', resources: res('4', '4Gi') }] }, status: { phase: 'Succeeded' } });
    await until(() => (store.get(QUOTAS, 'default', 'q') as any).status?.used?.pods === '2', 5000);
    await until(() => (store.get(CONFIGMAPS, 'default', 'kube-root-ca.crt') !== undefined && (store.get(QUOTAS, 'default', 'q') as any).status.used.configmaps === '1'), 5000);
    expect((store.get(QUOTAS, 'default', 'q') as any).status).toEqual({
      hard: { pods: '10', configmaps: '5', 'requests.cpu': '2', 'requests.memory': '1Gi', 'limits.memory': '2Gi', 'count/deployments.apps': '3' },
      used: { pods: '2', configmaps: '1', 'requests.cpu': '1750m', 'requests.memory': '512Mi', 'limits.memory': '512Mi', 'count/deployments.apps': '0' },
    });
  });

  it('an admitted dry-run create leaves the ResourceQuota untouched (its resourceVersion, not only status.used)', async () => {
    const { store } = cluster(0);
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'default' }, spec: { hard: { pods: '10', 'requests.cpu': '2' } } });
    await until(() => (store.get(QUOTAS, 'default', 'q') as any).status?.used?.pods === '0', 5000);
    const before = store.get(QUOTAS, 'default', 'q')!;
    const pod = { metadata: { name: 'dry', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '500m' } } }] } };
    // Admitted (within the quota), not stored; checked at once, before the quota controller could recount.
    store.createObject(store.resolve(PODS), pod, { dryRun: true });
    const after = store.get(QUOTAS, 'default', 'q')!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((after as any).status.used).toEqual({ pods: '0', 'requests.cpu': '0' });
    expect(store.get(PODS, 'default', 'dry')).toBeUndefined();
    // The same create for real counts once admission's status write (batched per turn; the API answers after it) is stored.
    store.create(PODS, pod);
    await store.admissionWrites?.();
    expect((store.get(QUOTAS, 'default', 'q') as any).status.used).toEqual({ pods: '1', 'requests.cpu': '500m' });
  });

  it('quantities parse and print as kube prints sums', () => {
    const sum = (a: string, b: string): string => formatQuantity({ milli: parseQuantity(a)!.milli + parseQuantity(b)!.milli, binary: parseQuantity(a)!.binary });
    expect(sum('250m', '750m')).toBe('1');
    expect(sum('0.5', '100m')).toBe('600m');
    expect(sum('512Mi', '512Mi')).toBe('1Gi');
    expect(sum('1G', '500M')).toBe('1500M');
    expect(parseQuantity('1e3')!.milli).toBe(1_000_000n);
    expect(parseQuantity('abc')).toBeUndefined();
  });

  it('every namespace gets the default ServiceAccount and kube-root-ca.crt, and gets them back when deleted', async () => {
    const { store } = cluster(0);
    store.create(NAMESPACES, { metadata: { name: 'team' } });
    await until(() => store.get(SERVICEACCOUNTS, 'team', 'default') !== undefined && store.get(CONFIGMAPS, 'team', 'kube-root-ca.crt') !== undefined, 5000);
    expect(store.get(SERVICEACCOUNTS, 'default', 'default')).toBeDefined();
    expect((store.get(CONFIGMAPS, 'team', 'kube-root-ca.crt') as any).data['ca.crt']).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    store.delete(SERVICEACCOUNTS, 'team', 'default');
    await until(() => store.get(SERVICEACCOUNTS, 'team', 'default') !== undefined, 5000);
  });
});
