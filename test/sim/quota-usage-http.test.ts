// What the sim's quota controller counts, read as a user reads it (a quota's status.used over HTTP, what `kubectl
// describe quota` prints): each resource name as kube's evaluators count it (pkg/quota/v1/evaluator/core, and the
// generic object count), pods' compute from containers and init containers, services by type, claims per storage
// class, the pod scopes, custom resources at any version, and names no evaluator matches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, quotaSynced, until } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer({ nodes: 0, pods: 0, churn: 0, controllers: { podStartMs: 100 } }); });
afterAll(() => sim.close());

const post = async (path: string, body: unknown): Promise<any> => {
  const r = await http(sim.url, path, { method: 'POST', body });
  expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(201);
  return r.json;
};
const namespace = (ns: string) => post('/api/v1/namespaces', { metadata: { name: ns } });
const quota = (ns: string, name: string, spec: Record<string, unknown>) => post(`/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name }, spec });
const used = async (ns: string, name: string): Promise<Record<string, string> | undefined> =>
  (await http(sim.url, `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status?.used;
/** Waits until the quota's status.used is `want` (the controller writes it within milliseconds of a change). */
async function usedBecomes(ns: string, name: string, want: Record<string, string>): Promise<void> {
  await until(async () => JSON.stringify(await used(ns, name)) === JSON.stringify(want), 10_000).catch(() => undefined);
  expect(await used(ns, name)).toEqual(want);
}
const pod = (ns: string, name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: containers.map((c) => ({ image: 'nginx', ...c })), ...extra } });

describe('status.used as kube\'s quota evaluators count it', () => {
  it('pod compute: containers summed, the largest init container when bigger, requests from limits, bare cpu/memory as requests, extended and hugepages requests; a Failed pod counts for count/pods only', async () => {
    await namespace('compute');
    const hard = {
      cpu: '10', memory: '10Gi', 'limits.cpu': '10', 'limits.memory': '10Gi',
      'ephemeral-storage': '10Gi', 'requests.ephemeral-storage': '10Gi', 'limits.ephemeral-storage': '10Gi',
      'hugepages-2Mi': '1Gi', 'requests.hugepages-2Mi': '1Gi', 'requests.example.com/gpu': '4', pods: '10', 'count/pods': '10',
    };
    await quota('compute', 'q', { hard });
    await quotaSynced(sim.url, 'compute', 'q');
    const containers = [
      {
        name: 'main',
        resources: {
          requests: { cpu: '100m', memory: '64Mi', 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' },
          limits: { cpu: '200m', memory: '128Mi', 'ephemeral-storage': '2Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' },
        },
      },
      // Limits only: kube defaults its requests from them. No ephemeral storage: it adds nothing there.
      { name: 'side', resources: { limits: { cpu: '300m', memory: '256Mi' } } },
    ];
    // The init container asks more cpu than the containers together (it wins) and less memory (they win).
    const initContainers = [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } } }];
    await post('/api/v1/namespaces/compute/pods', pod('compute', 'web', containers, { initContainers }));
    const one = {
      cpu: '1', memory: '320Mi', 'limits.cpu': '1', 'limits.memory': '384Mi',
      'ephemeral-storage': '1Gi', 'requests.ephemeral-storage': '1Gi', 'limits.ephemeral-storage': '2Gi',
      'hugepages-2Mi': '4Mi', 'requests.hugepages-2Mi': '4Mi', 'requests.example.com/gpu': '1', pods: '1', 'count/pods': '1',
    };
    await usedBecomes('compute', 'q', one);

    // A second pod that fails: its compute and `pods` are given back, `count/pods` keeps it (it is still stored).
    await post('/api/v1/namespaces/compute/pods', pod('compute', 'job', containers, { initContainers }));
    const r = await http(sim.url, '/api/v1/namespaces/compute/pods/job/status', {
      method: 'PATCH', body: { status: { phase: 'Failed' } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    await usedBecomes('compute', 'q', { ...one, 'count/pods': '2' });
  });

  it('a container without resources adds nothing to a compute name that need not be specified (ephemeral storage)', async () => {
    await namespace('bare');
    await quota('bare', 'q', { hard: { 'requests.ephemeral-storage': '10Gi', pods: '5' } });
    await quotaSynced(sim.url, 'bare', 'q');
    await post('/api/v1/namespaces/bare/pods', pod('bare', 'p', [{ name: 'c' }, { name: 'd', resources: { requests: { 'ephemeral-storage': '1Gi' } } }]));
    await usedBecomes('bare', 'q', { 'requests.ephemeral-storage': '1Gi', pods: '1' });
  });

  it('a name no evaluator matches (an extended resource without `requests.`) is neither counted nor enforced, as kube\'s pod evaluator matches only requests.<name>', async () => {
    await namespace('unmatched');
    await quota('unmatched', 'q', { hard: { pods: '5', 'example.com/gpu': '0' } });
    await until(async () => (await used('unmatched', 'q'))?.pods !== undefined, 10_000);
    await post('/api/v1/namespaces/unmatched/pods', pod('unmatched', 'p', [{ name: 'c', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }]));
    await usedBecomes('unmatched', 'q', { pods: '1' });
  });

  it('services by type: every one counts for services, a LoadBalancer for services.loadbalancers, each port of a NodePort or LoadBalancer for services.nodeports', async () => {
    await namespace('svc');
    await quota('svc', 'q', { hard: { services: '10', 'services.loadbalancers': '5', 'services.nodeports': '10', 'count/services': '10' } });
    await quotaSynced(sim.url, 'svc', 'q');
    const service = (name: string, type: string, ports: number) =>
      post('/api/v1/namespaces/svc/services', { metadata: { name }, spec: { type, selector: { app: name }, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) } });
    await service('internal', 'ClusterIP', 1);
    await service('node', 'NodePort', 2);
    await service('public', 'LoadBalancer', 3);
    await usedBecomes('svc', 'q', { services: '3', 'services.loadbalancers': '1', 'services.nodeports': '5', 'count/services': '3' });
  });

  it('services.nodeports: a LoadBalancer that allocates no node ports counts only the ports given one, and gets none allocated', async () => {
    // kube's serviceEvaluator.Usage (pkg/quota/v1/evaluator/core/services.go: portsWithNodePorts) and its allocator,
    // which leaves a port without a nodePort alone when allocateLoadBalancerNodePorts is false (pkg/registry/core/service/storage/alloc.go).
    await namespace('lb');
    await quota('lb', 'q', { hard: { 'services.nodeports': '10', 'services.loadbalancers': '5' } });
    await quotaSynced(sim.url, 'lb', 'q');
    const made = await post('/api/v1/namespaces/lb/services', {
      metadata: { name: 'direct' },
      spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, selector: { app: 'direct' }, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 30481 }, { name: 'c', port: 82 }] },
    });
    expect(made.spec.ports.map((p: { nodePort?: number }) => p.nodePort)).toEqual([undefined, 30481, undefined]);
    await post('/api/v1/namespaces/lb/services', { metadata: { name: 'allocated' }, spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } });
    await usedBecomes('lb', 'q', { 'services.nodeports': '3', 'services.loadbalancers': '2' });
  });

  it('claims: storage and count in all, and per storage class for <class>.storageclass.storage.k8s.io/ names', async () => {
    await namespace('claims');
    const gold = 'gold.storageclass.storage.k8s.io';
    await quota('claims', 'q', { hard: { persistentvolumeclaims: '10', 'requests.storage': '100Gi', [`${gold}/requests.storage`]: '10Gi', [`${gold}/persistentvolumeclaims`]: '5' } });
    await quotaSynced(sim.url, 'claims', 'q');
    const claim = (name: string, storage: string, storageClassName?: string) => post('/api/v1/namespaces/claims/persistentvolumeclaims', {
      metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...(storageClassName ? { storageClassName } : {}) },
    });
    await claim('fast', '1Gi', 'gold');
    await claim('slow', '2Gi', 'silver');
    await claim('plain', '4Gi');
    await usedBecomes('claims', 'q', { persistentvolumeclaims: '3', 'requests.storage': '7Gi', [`${gold}/requests.storage`]: '1Gi', [`${gold}/persistentvolumeclaims`]: '1' });
  });

  it('pod scopes, counted in full over pods made before the quotas and then followed: Terminating, BestEffort, their negations, several scopes at once, and PriorityClass by each operator', async () => {
    await namespace('scopes');
    await post('/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 });
    const cpu = (request: string) => ({ name: 'c', resources: { requests: { cpu: request } } });
    // idle: BestEffort, not terminating, no class; batch: terminating, not BestEffort; urgent: class high, not BestEffort.
    await post('/api/v1/namespaces/scopes/pods', pod('scopes', 'idle', [{ name: 'c' }]));
    await post('/api/v1/namespaces/scopes/pods', pod('scopes', 'batch', [cpu('100m')], { activeDeadlineSeconds: 60 }));
    await post('/api/v1/namespaces/scopes/pods', pod('scopes', 'urgent', [cpu('200m')], { priorityClassName: 'high' }));
    const priority = (operator: string, values?: string[]) => ({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator, ...(values ? { values } : {}) }] } });
    const quotas: Record<string, Record<string, unknown>> = {
      terminating: { hard: { pods: '10', 'requests.cpu': '10' }, scopes: ['Terminating'] },
      'not-terminating': { hard: { pods: '10' }, scopes: ['NotTerminating'] },
      'best-effort': { hard: { pods: '10' }, scopes: ['BestEffort'] },
      'not-best-effort': { hard: { pods: '10', 'requests.cpu': '10' }, scopes: ['NotBestEffort'] },
      'terminating-not-best-effort': { hard: { pods: '10' }, scopes: ['Terminating', 'NotBestEffort'] },
      'class-in': { hard: { pods: '10' }, ...priority('In', ['high']) },
      'class-not-in': { hard: { pods: '10' }, ...priority('NotIn', ['high']) },
      'class-exists': { hard: { pods: '10' }, ...priority('Exists') },
      'class-does-not-exist': { hard: { pods: '10' }, ...priority('DoesNotExist') },
    };
    for (const [name, spec] of Object.entries(quotas)) await quota('scopes', name, spec);
    const expectUsed = async (want: Record<string, Record<string, string>>) => {
      for (const [name, usage] of Object.entries(want)) await usedBecomes('scopes', name, usage);
    };
    await expectUsed({
      terminating: { pods: '1', 'requests.cpu': '100m' },
      'not-terminating': { pods: '2' },
      'best-effort': { pods: '1' },
      'not-best-effort': { pods: '2', 'requests.cpu': '300m' },
      'terminating-not-best-effort': { pods: '1' },
      'class-in': { pods: '1' },
      'class-not-in': { pods: '2' },
      'class-exists': { pods: '1' },
      'class-does-not-exist': { pods: '2' },
    });
    // A pod made after the quotas: terminating, not BestEffort, class high.
    await post('/api/v1/namespaces/scopes/pods', pod('scopes', 'late', [cpu('50m')], { activeDeadlineSeconds: 30, priorityClassName: 'high' }));
    await expectUsed({
      terminating: { pods: '2', 'requests.cpu': '150m' },
      'not-terminating': { pods: '2' },
      'best-effort': { pods: '1' },
      'not-best-effort': { pods: '3', 'requests.cpu': '350m' },
      'terminating-not-best-effort': { pods: '2' },
      'class-in': { pods: '2' },
      'class-not-in': { pods: '2' },
      'class-exists': { pods: '2' },
      'class-does-not-exist': { pods: '2' },
    });
  });

  it('BestEffort is the pod\'s QoS class: only positive cpu and memory requests or limits make a pod not BestEffort', async () => {
    // kube's scope check is qos.GetPodQOS (pkg/quota/v1/evaluator/core/pods.go isBestEffort), which reads cpu and memory
    // only, and only quantities above zero (pkg/apis/core/v1/helper/qos/qos.go): a pod asking only ephemeral storage, or
    // cpu 0, is BestEffort, and its status.qosClass says so.
    await namespace('qos');
    await quota('qos', 'best-effort', { hard: { pods: '10' }, scopes: ['BestEffort'] });
    await quota('qos', 'not-best-effort', { hard: { pods: '10' }, scopes: ['NotBestEffort'] });
    await quotaSynced(sim.url, 'qos', 'best-effort');
    await quotaSynced(sim.url, 'qos', 'not-best-effort');
    const made = [
      await post('/api/v1/namespaces/qos/pods', pod('qos', 'disk', [{ name: 'c', resources: { requests: { 'ephemeral-storage': '1Gi' } } }])),
      await post('/api/v1/namespaces/qos/pods', pod('qos', 'zero', [{ name: 'c', resources: { requests: { cpu: '0' } } }])),
      await post('/api/v1/namespaces/qos/pods', pod('qos', 'cpu', [{ name: 'c', resources: { requests: { cpu: '100m' } } }])),
    ];
    expect(made.map((p) => p.status.qosClass)).toEqual(['BestEffort', 'BestEffort', 'Burstable']);
    await usedBecomes('qos', 'best-effort', { pods: '2' });
    await usedBecomes('qos', 'not-best-effort', { pods: '1' });
  });

  it('CrossNamespacePodAffinity counts the pods with a pod (anti-)affinity term that names namespaces or has a namespace selector, required or preferred', async () => {
    // kube's podMatchesScopeFunc: usesCrossNamespacePodAffinity (pkg/quota/v1/evaluator/core/pods.go).
    await namespace('affinity');
    await quota('affinity', 'q', { hard: { pods: '10' }, scopes: ['CrossNamespacePodAffinity'] });
    await quotaSynced(sim.url, 'affinity', 'q');
    const term = (extra: Record<string, unknown> = {}) => ({ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname', ...extra });
    const withAffinity = (name: string, affinity: Record<string, unknown>) => post('/api/v1/namespaces/affinity/pods', pod('affinity', name, [{ name: 'c' }], { affinity }));
    await withAffinity('same-namespace', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term()] } });
    await withAffinity('named', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ namespaces: ['other'] })] } });
    await withAffinity('selected', { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ namespaceSelector: {} }) }] } });
    await post('/api/v1/namespaces/affinity/pods', pod('affinity', 'plain', [{ name: 'c' }]));
    await usedBecomes('affinity', 'q', { pods: '2' });
  });

  it('PriorityClass In counts the listed classes only: a pod of another class is not counted', async () => {
    await namespace('classes');
    for (const name of ['gold', 'bronze']) {
      await http(sim.url, '/apis/scheduling.k8s.io/v1/priorityclasses', { method: 'POST', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: 10 } });
    }
    await quota('classes', 'q', { hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['gold'] }] } });
    await quotaSynced(sim.url, 'classes', 'q');
    await post('/api/v1/namespaces/classes/pods', pod('classes', 'g', [{ name: 'c' }], { priorityClassName: 'gold' }));
    await post('/api/v1/namespaces/classes/pods', pod('classes', 'b', [{ name: 'c' }], { priorityClassName: 'bronze' }));
    await usedBecomes('classes', 'q', { pods: '1' });
  });

  it('count/<plural>.<group> counts that group\'s kind only, whatever version it is served at', async () => {
    await namespace('gadgets');
    const crd = (group: string, version: string) => post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [{ name: version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    // The same plural in two groups; the limited one is served at v1beta1 only.
    await crd('two.example.com', 'v1');
    await crd('one.example.com', 'v1beta1');
    const gadget = (group: string, version: string, name: string) =>
      http(sim.url, `/apis/${group}/${version}/namespaces/gadgets/gadgets`, { method: 'POST', body: { apiVersion: `${group}/${version}`, kind: 'Gadget', metadata: { name } } });
    // One of the other group's made before the quota (counted in full) and one after (followed): neither counts.
    expect((await gadget('two.example.com', 'v1', 'before')).status).toBe(201);
    await quota('gadgets', 'q', { hard: { 'count/gadgets.one.example.com': '1' } });
    await quotaSynced(sim.url, 'gadgets', 'q');
    expect(await used('gadgets', 'q')).toEqual({ 'count/gadgets.one.example.com': '0' });
    expect((await gadget('one.example.com', 'v1beta1', 'a')).status).toBe(201);
    expect((await gadget('two.example.com', 'v1', 'b')).status).toBe(201);
    await usedBecomes('gadgets', 'q', { 'count/gadgets.one.example.com': '1' });
    const over = await gadget('one.example.com', 'v1beta1', 'c');
    expect(over.status).toBe(403);
    expect(over.json.message).toBe('gadgets.one.example.com "c" is forbidden: exceeded quota: q, requested: count/gadgets.one.example.com=1, used: count/gadgets.one.example.com=1, limited: count/gadgets.one.example.com=1');
  });

  it('a quota on pods and a custom kind, made before the kind\'s CRD, counts the kind once the CRD is written', async () => {
    await namespace('mixed');
    await quota('mixed', 'q', { hard: { pods: '5', 'count/doohickeys.example.com': '2' } });
    await until(async () => (await used('mixed', 'q'))?.pods !== undefined, 10_000);
    expect(await used('mixed', 'q')).toEqual({ pods: '0' });
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'doohickeys.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'doohickeys', singular: 'doohickey', kind: 'Doohickey', listKind: 'DoohickeyList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    await usedBecomes('mixed', 'q', { pods: '0', 'count/doohickeys.example.com': '0' });
  });
});
