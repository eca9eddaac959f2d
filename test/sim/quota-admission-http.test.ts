// The sim's ResourceQuota admission over HTTP, without kubectl (kubectl-quota.test.ts drives the common cases through
// kubectl): kube's messages name every resource in sorted order, its 403 carries kube's details, and a scoped quota
// counts only the pods in its scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, quotaSynced, until } from './sim-helpers.js';

let sim: SimServer;
// Quota admission is the controller manager's (as kube's ResourceQuota plugin needs the quota controller).
beforeAll(async () => { sim = await startSimServer({ nodes: 0, pods: 0, churn: 0, controllers: { podStartMs: 100 } }); });
afterAll(() => sim.close());

const post = (path: string, body: unknown) => http(sim.url, path, { method: 'POST', body });
async function namespaceWithQuota(ns: string, spec: Record<string, unknown>): Promise<void> {
  expect((await post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  expect((await post(`/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: 'q' }, spec })).status).toBe(201);
  // As a user must: kube's admission limits by status.hard, which the quota controller writes.
  await quotaSynced(sim.url, ns, 'q');
}
/** Writes a quota's status as a client would (kube's controller leaves it until a resync or a change of what it counts). */
async function writeStatus(ns: string, status: Record<string, unknown>): Promise<void> {
  const q = (await http(sim.url, `/api/v1/namespaces/${ns}/resourcequotas/q`)).json;
  expect((await http(sim.url, `/api/v1/namespaces/${ns}/resourcequotas/q/status`, { method: 'PUT', body: { ...q, status } })).status).toBe(200);
}
const pod = (ns: string, name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: containers.map((c) => ({ image: 'nginx', ...c })), ...extra } });

describe('ResourceQuota admission over HTTP', () => {
  it('"must specify" names each missing resource with its containers, sorted', async () => {
    await namespaceWithQuota('specify', { hard: { 'requests.memory': '1Gi', 'requests.cpu': '2' } });
    const r = await post('/api/v1/namespaces/specify/pods', pod('specify', 'p', [
      { name: 'zeta' },
      { name: 'alpha', resources: { requests: { memory: '10Mi' } } },
      { name: 'beta' },
    ]));
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('pods "p" is forbidden: failed quota: q: must specify requests.cpu for: alpha,beta,zeta; requests.memory for: beta,zeta');
  });

  it('"exceeded quota" lists every exceeded resource sorted by name, with kube\'s details', async () => {
    // spec.hard in an order that is not the sorted one.
    await namespaceWithQuota('exceed', { hard: { 'requests.memory': '100Mi', pods: '5', 'limits.cpu': '1' } });
    const r = await post('/api/v1/namespaces/exceed/pods', pod('exceed', 'big', [
      { name: 'c', resources: { requests: { memory: '200Mi', cpu: '100m' }, limits: { cpu: '2', memory: '200Mi' } } },
    ]));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      reason: 'Forbidden', code: 403, details: { name: 'big', kind: 'pods' },
      message: 'pods "big" is forbidden: exceeded quota: q, requested: limits.cpu=2,requests.memory=200Mi, used: limits.cpu=0,requests.memory=0, limited: limits.cpu=1,requests.memory=100Mi',
    });
    expect(r.json.details).not.toHaveProperty('group');
  });

  it('a request of an absurd size is refused at once, as over the limit (the sum is not built digit by digit)', async () => {
    await namespaceWithQuota('absurd', { hard: { 'requests.cpu': '10' } });
    // kube stores this request as sent (canonical already) and refuses it as over quota; building 10^300000000 in the
    // quota's sum froze the sim for seconds before (and a larger exponent for good).
    const r = await post('/api/v1/namespaces/absurd/pods', pod('absurd', 'huge', [{ name: 'c', resources: { requests: { cpu: '1e300000000' } } }]));
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('exceeded quota: q, requested: requests.cpu=');
    // Far below a nano-unit: admitted (before, the sim built 10^1000000000 to round it, for seconds, then failed).
    expect((await post('/api/v1/namespaces/absurd/pods', pod('absurd', 'tiny', [{ name: 'c', resources: { requests: { cpu: '1e-1000000000' } } }]))).status).toBe(201);
  });

  it('a quantity kube keeps as sent is counted as kube reads it: the exponent of `1e4294967296` wraps to 0, one cpu', async () => {
    // ParseQuantity keeps the int32 of the exponent (quantity.go) and stores the string as sent; the quota sums read
    // it the same way (quantity.ts through quantity-canonical.ts), not as 10^4294967296.
    await namespaceWithQuota('wrapped', { hard: { 'requests.cpu': '2' } });
    const r = await post('/api/v1/namespaces/wrapped/pods', pod('wrapped', 'one', [{ name: 'c', resources: { requests: { cpu: '1e4294967296' } } }]));
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.spec.containers[0].resources.requests.cpu).toBe('1e4294967296');
    await until(async () => (await http(sim.url, '/api/v1/namespaces/wrapped/resourcequotas/q')).json.status?.used?.['requests.cpu'] === '1', 10_000);
  });

  it('a quota scoped to Terminating pods does not count a pod without activeDeadlineSeconds', async () => {
    await namespaceWithQuota('scoped', { hard: { pods: '0' }, scopes: ['Terminating'] });
    expect((await post('/api/v1/namespaces/scoped/pods', pod('scoped', 'long-lived', [{ name: 'c' }]))).status).toBe(201);
    const bounded = await post('/api/v1/namespaces/scoped/pods', pod('scoped', 'bounded', [{ name: 'c' }], { activeDeadlineSeconds: 60 }));
    expect(bounded.status).toBe(403);
    expect(bounded.json.message).toContain('exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
  });

  it('a quota scoped to CrossNamespacePodAffinity refuses only the pods whose affinity reaches other namespaces', async () => {
    await namespaceWithQuota('cross', { hard: { pods: '0' }, scopes: ['CrossNamespacePodAffinity'] });
    const term = { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname', namespaces: ['shared'] };
    const reaching = await post('/api/v1/namespaces/cross/pods', pod('cross', 'reaching', [{ name: 'c' }], { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } }));
    expect(reaching.status).toBe(403);
    expect(reaching.json.message).toBe('pods "reaching" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
    expect((await post('/api/v1/namespaces/cross/pods', pod('cross', 'local', [{ name: 'c' }]))).status).toBe(201);
  });

  it('services.nodeports: a LoadBalancer without node ports fits a full quota; one that allocates them, or names one, does not', async () => {
    await namespaceWithQuota('ports', { hard: { 'services.nodeports': '0' } });
    const lb = (name: string, extra: Record<string, unknown>, ports: Record<string, unknown>[] = [{ name: 'a', port: 80 }]) =>
      post('/api/v1/namespaces/ports/services', { metadata: { name }, spec: { type: 'LoadBalancer', selector: { app: name }, ports, ...extra } });
    expect((await lb('direct', { allocateLoadBalancerNodePorts: false })).status).toBe(201);
    const allocating = await lb('allocating', {});
    expect(allocating.status).toBe(403);
    expect(allocating.json.message).toBe('services "allocating" is forbidden: exceeded quota: q, requested: services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0');
    const named = await lb('named', { allocateLoadBalancerNodePorts: false }, [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 30581 }]);
    expect(named.status).toBe(403);
    expect(named.json.message).toContain('requested: services.nodeports=1,');
  });

  it('a quota\'d non-core kind gets kube\'s whole 403, its group in the resource and the details', async () => {
    await namespaceWithQuota('apps', { hard: { 'count/deployments.apps': '0' } });
    const r = await post('/apis/apps/v1/namespaces/apps/deployments', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'deployments.apps "web" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    });
  });

  it('the requested quantity is printed in the format it was asked in (1024 stays 1024, not 1Ki)', async () => {
    await namespaceWithQuota('bytes', { hard: { 'requests.memory': '1000' } });
    const r = await post('/api/v1/namespaces/bytes/pods', pod('bytes', 'p', [{ name: 'c', resources: { requests: { memory: '1024' } } }]));
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('pods "p" is forbidden: exceeded quota: q, requested: requests.memory=1024, used: requests.memory=0, limited: requests.memory=1k');
  });

  it('a claim grown past its quota is refused with the increase as requested; a growth within it is charged the increase', async () => {
    await namespaceWithQuota('disks', { hard: { 'requests.storage': '3Gi' } });
    const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    expect((await post('/api/v1/namespaces/disks/persistentvolumeclaims', claim)).status).toBe(201);
    const grow = (storage: string) => http(sim.url, '/api/v1/namespaces/disks/persistentvolumeclaims/data', {
      method: 'PATCH', body: { spec: { resources: { requests: { storage } } } }, headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    const tooBig = await grow('5Gi');
    expect(tooBig.status).toBe(403);
    expect(tooBig.json.message).toBe('persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: requests.storage=4Gi, used: requests.storage=1Gi, limited: requests.storage=3Gi');
    expect((await grow('3Gi')).status).toBe(200);
    expect((await http(sim.url, '/api/v1/namespaces/disks/resourcequotas/q')).json.status.used).toEqual({ 'requests.storage': '3Gi' });
  });

  it('an in-place resize past the quota is refused with the increase as requested; one within it is charged', async () => {
    // kube's pod evaluator handles updates through pods/NAME/resize (pkg/quota/v1/evaluator/core/pods.go).
    await namespaceWithQuota('resize', { hard: { 'requests.cpu': '1' } });
    expect((await post('/api/v1/namespaces/resize/pods', pod('resize', 'web', [{ name: 'c', resources: { requests: { cpu: '500m' } } }]))).status).toBe(201);
    const resize = (cpu: string) => http(sim.url, '/api/v1/namespaces/resize/pods/web/resize', {
      method: 'PATCH', body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu } } }] } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    const tooBig = await resize('2');
    expect(tooBig.status).toBe(403);
    expect(tooBig.json.message).toBe('pods "web" is forbidden: exceeded quota: q, requested: requests.cpu=1500m, used: requests.cpu=500m, limited: requests.cpu=1');
    expect((await http(sim.url, '/api/v1/namespaces/resize/pods/web')).json.spec.containers[0].resources.requests.cpu).toBe('500m');
    expect((await resize('1')).status).toBe(200);
    expect((await http(sim.url, '/api/v1/namespaces/resize/resourcequotas/q')).json.status.used).toEqual({ 'requests.cpu': '1' });
  });

  it('a pod update that moves it into the Terminating scope is evaluated, as a create would be', async () => {
    await namespaceWithQuota('scope-move', { hard: { pods: '0' }, scopes: ['Terminating'] });
    expect((await post('/api/v1/namespaces/scope-move/pods', pod('scope-move', 'p', [{ name: 'c' }]))).status).toBe(201);
    const r = await http(sim.url, '/api/v1/namespaces/scope-move/pods/p', { method: 'PATCH', body: { spec: { activeDeadlineSeconds: 30 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
  });

  it('a ResourceQuota\'s own create counts toward `resourcequotas`, as kube\'s admission counts it', async () => {
    await namespaceWithQuota('quotas', { hard: { resourcequotas: '1' } });
    const r = await post('/api/v1/namespaces/quotas/resourcequotas', { metadata: { name: 'second' }, spec: { hard: { pods: '1' } } });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('resourcequotas "second" is forbidden: exceeded quota: q, requested: resourcequotas=1, used: resourcequotas=1, limited: resourcequotas=1');
  });

  it('limits by status.hard, not spec.hard: a limit set in spec binds only once the controller has copied it to status', async () => {
    // kube's CheckRequest reads status.hard (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).
    await namespaceWithQuota('lagging', { hard: { pods: '5' } });
    // status.hard still the old limit (the controller has not synced the spec): the old limit holds.
    await writeStatus('lagging', { hard: { pods: '1' }, used: { pods: '1' } });
    const r = await post('/api/v1/namespaces/lagging/pods', pod('lagging', 'p1', [{ name: 'c' }]));
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('pods "p1" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
    // Raised in spec and synced by the controller: the new limit admits.
    const q = (await http(sim.url, '/api/v1/namespaces/lagging/resourcequotas/q')).json;
    expect((await http(sim.url, '/api/v1/namespaces/lagging/resourcequotas/q', { method: 'PUT', body: { ...q, spec: { hard: { pods: '6' } } } })).status).toBe(200);
    await quotaSynced(sim.url, 'lagging', 'q');
    expect((await post('/api/v1/namespaces/lagging/pods', pod('lagging', 'p1', [{ name: 'c' }]))).status).toBe(201);
  });

  it('a write a quota limits while its status.used lacks a limited name gets kube\'s 403 "status unknown for quota", names sorted', async () => {
    await namespaceWithQuota('unknown', { hard: { pods: '5', 'requests.memory': '1Gi', 'count/configmaps': '5' } });
    await writeStatus('unknown', { hard: { pods: '5', 'requests.memory': '1Gi', 'count/configmaps': '5' }, used: { 'count/configmaps': '1' } });
    const r = await post('/api/v1/namespaces/unknown/pods', pod('unknown', 'p', [{ name: 'c', resources: { requests: { memory: '10Mi' } } }]));
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods "p" is forbidden: status unknown for quota: q, resources: pods,requests.memory',
      details: { name: 'p', kind: 'pods' },
    });
    // A kind whose limited names have usage passes.
    expect((await post('/api/v1/namespaces/unknown/configmaps', { metadata: { name: 'cm' } })).status).toBe(201);
  });

  it('a quota\'s status sent on create is dropped (it is the controller\'s), so admission cannot enforce a client\'s status.hard', async () => {
    expect((await post('/api/v1/namespaces', { metadata: { name: 'sent-status' } })).status).toBe(201);
    const r = await post('/api/v1/namespaces/sent-status/resourcequotas', { metadata: { name: 'q' }, spec: { hard: { pods: '5' } }, status: { hard: { pods: '0' }, used: { pods: '0' } } });
    expect(r.status).toBe(201);
    expect(r.json.status).toEqual({});
    await quotaSynced(sim.url, 'sent-status', 'q');
    expect((await post('/api/v1/namespaces/sent-status/pods', pod('sent-status', 'p', [{ name: 'c' }]))).status).toBe(201);
  });

  it('a quota on a custom resource made before its CRD counts the kind once the CRD is written (no "status unknown" for good), then enforces it', async () => {
    expect((await post('/api/v1/namespaces', { metadata: { name: 'crd-later' } })).status).toBe(201);
    expect((await post('/api/v1/namespaces/crd-later/resourcequotas', { metadata: { name: 'q' }, spec: { hard: { 'count/gizmos.example.com': '1' } } })).status).toBe(201);
    // status.hard written; no usage for a kind the API does not serve yet.
    await until(async () => (await http(sim.url, '/api/v1/namespaces/crd-later/resourcequotas/q')).json.status?.hard !== undefined);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    expect((await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const gizmo = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name } });
    // kube's controller counts a kind once it has discovered it; the sim's recounts on the CRD's write.
    await quotaSynced(sim.url, 'crd-later', 'q');
    expect((await post('/apis/example.com/v1/namespaces/crd-later/gizmos', gizmo('one'))).status).toBe(201);
    const over = await post('/apis/example.com/v1/namespaces/crd-later/gizmos', gizmo('two'));
    expect(over.status).toBe(403);
    expect(over.json.message).toBe('gizmos.example.com "two" is forbidden: exceeded quota: q, requested: count/gizmos.example.com=1, used: count/gizmos.example.com=1, limited: count/gizmos.example.com=1');
  });

  it('cluster-scoped kinds are not counted by any namespace\'s quota', async () => {
    await namespaceWithQuota('cluster', { hard: { 'count/persistentvolumes': '0' } });
    const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-cluster' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } } };
    expect((await post('/api/v1/persistentvolumes', pv)).status).toBe(201);
  });
});
