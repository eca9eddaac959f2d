// Quota admission without the quota controller: what admission itself reads from a quota's status.used and writes
// back, made deterministic by doing the controller's part (its recount) by hand. With the controller running, its
// recount lands within milliseconds and hides most of what admission wrote (quota-admission-batch.test.ts).
import { describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { QuotaAdmission } from '../../src/sim/controllers/quota-admission.js';
import { SimStore } from '../../src/sim/store.js';
import { NAMESPACES, PODS } from './sim-helpers.js';

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
const SERVICES = { group: '', version: 'v1', resource: 'services' };

/** A store whose writes go through quota admission, as the controller manager wires it, and nothing else. */
function admittingStore(namespace: string): SimStore {
  const store = new SimStore();
  const admission = new QuotaAdmission(store);
  store.admitStored = (type, next, prev, dryRun) => admission.admit(type, next, prev, dryRun);
  store.admissionWrites = () => admission.pendingWrites();
  store.create(NAMESPACES, { metadata: { name: namespace } });
  return store;
}

/** The quota controller's part: status.used as its recount of the stored objects writes it. */
function recount(store: SimStore, namespace: string, used: Record<string, string>): void {
  const q = store.get(QUOTAS, namespace, 'q') as any;
  store.updateObject(store.resolve(QUOTAS), { ...q, status: { hard: q.spec.hard, used } }, { subresource: 'status' });
}
const quota = (store: SimStore, namespace: string) => store.get(QUOTAS, namespace, 'q') as any;
const pod = (name: string, namespace: string): SimObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'x' }] } });
const finish = (store: SimStore, namespace: string, name: string): void => {
  const p = store.get(PODS, namespace, name)!;
  store.updateObject(store.resolve(PODS), { ...p, status: { phase: 'Succeeded' } }, { subresource: 'status' });
};
const nodePortService = (name: string, namespace: string): SimObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 + name.length }] } });

describe('quota admission alone', () => {
  it('writes only status.used: status.hard and the usage it does not count stay as the controller last wrote them', async () => {
    const store = admittingStore('keep');
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'keep' }, spec: { hard: { pods: '5', 'count/configmaps': '3' } } });
    recount(store, 'keep', { pods: '0', 'count/configmaps': '2' });
    store.createObject(store.resolve(PODS), pod('p', 'keep'));
    await store.admissionWrites?.();
    const q = quota(store, 'keep');
    expect(q.status).toEqual({ hard: { pods: '5', 'count/configmaps': '3' }, used: { pods: '1', 'count/configmaps': '2' } });
    expect(q.metadata.managedFields.at(-1)).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update', subresource: 'status' });
  });

  it('an update that lowers usage is not charged: status.used stays until the controller recounts (kube charges increases only)', async () => {
    const store = admittingStore('ports');
    const services = store.resolve(SERVICES);
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'ports' }, spec: { hard: { 'services.nodeports': '1' } } });
    recount(store, 'ports', { 'services.nodeports': '0' });
    const a = store.createObject(services, nodePortService('a', 'ports')) as any;
    await store.admissionWrites?.();
    expect(quota(store, 'ports').status.used).toEqual({ 'services.nodeports': '1' });
    const counted = quota(store, 'ports').metadata.resourceVersion;

    // NodePort → ClusterIP frees a node port; kube's admission writes nothing for it and its controller recounts.
    store.updateObject(services, { ...a, spec: { ...a.spec, type: 'ClusterIP', ports: [{ port: 80 }] } });
    await store.admissionWrites?.();
    expect(quota(store, 'ports').metadata.resourceVersion).toBe(counted);
    expect(() => store.createObject(services, nodePortService('b', 'ports')))
      .toThrow('services "b" is forbidden: exceeded quota: q, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1');
    recount(store, 'ports', { 'services.nodeports': '0' });
    store.createObject(services, nodePortService('b', 'ports'));
  });

  it('an update that changes no usage passes even when the quota is already over (lowered below what is used)', async () => {
    const store = admittingStore('over');
    const services = store.resolve(SERVICES);
    const a = store.createObject(services, nodePortService('a', 'over')) as any;
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'over' }, spec: { hard: { 'services.nodeports': '0' } } });
    recount(store, 'over', { 'services.nodeports': '1' });
    // kube drops zero deltas (quota.RemoveZeros) before comparing with status.hard: a label change is no request.
    store.updateObject(services, { ...a, metadata: { ...a.metadata, labels: { team: 'x' } } });
    expect((store.get(SERVICES, 'over', 'a') as any).metadata.labels).toEqual({ team: 'x' });
  });

  it('usage admitted before the controller\'s recount is dropped for the recount, which counted it: not added twice', async () => {
    const store = admittingStore('stale');
    const pods = store.resolve(PODS);
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'stale' }, spec: { hard: { pods: '3' } } });
    recount(store, 'stale', { pods: '0' });
    store.createObject(pods, pod('old1', 'stale'));
    store.createObject(pods, pod('old2', 'stale'));
    await store.admissionWrites?.();
    // In one turn: p1 is admitted (pending: pods=3), the old pods complete, and the controller's recount (p1 only) lands.
    store.createObject(pods, pod('p1', 'stale'));
    finish(store, 'stale', 'old1');
    finish(store, 'stale', 'old2');
    recount(store, 'stale', { pods: '1' });
    // Read from the recount, not from the pending usage it superseded (3, which would refuse p2).
    store.createObject(pods, pod('p2', 'stale'));
    await store.admissionWrites?.();
    expect(quota(store, 'stale').status.used).toEqual({ pods: '2' });
  });

  it('a pending usage the controller\'s recount superseded is not written over it', async () => {
    const store = admittingStore('flush');
    const pods = store.resolve(PODS);
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'flush' }, spec: { hard: { pods: '5' } } });
    recount(store, 'flush', { pods: '0' });
    store.createObject(pods, pod('old1', 'flush'));
    store.createObject(pods, pod('old2', 'flush'));
    await store.admissionWrites?.();
    // In one turn: p is admitted (pending: pods=3), the old pods complete, and the recount (p only) lands.
    store.createObject(pods, pod('p', 'flush'));
    finish(store, 'flush', 'old1');
    finish(store, 'flush', 'old2');
    recount(store, 'flush', { pods: '1' });
    const counted = quota(store, 'flush').metadata.resourceVersion;
    await store.admissionWrites?.();
    expect(quota(store, 'flush').metadata.resourceVersion).toBe(counted);
    expect(quota(store, 'flush').status.used).toEqual({ pods: '1' });
  });
});
