// Namespace lifecycle and pod garbage collection with the controllers on, in-process: a deleted namespace turns
// Terminating, is emptied (pods gracefully) and goes; a deleted node's pods are collected and replaced elsewhere.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { SimApiError } from '../../src/sim/api.js';
import { ControllerManager } from '../../src/sim/controllers/controller-manager.js';
import { SimStore } from '../../src/sim/store.js';
import { WorkloadGenerator } from '../../src/sim/workload.js';
import { nodeObject } from '../../src/sim/workload-objects.js';
import { DEPLOYMENTS, NAMESPACES, pod, PODS, until } from './sim-helpers.js';

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

interface Seen { type: string; resource: string; key: string; obj: any }

const running: ControllerManager[] = [];
afterEach(() => { for (const cm of running.splice(0)) cm.stop(); });

function node(i: number): SimObject {
  return nodeObject({ name: `node-${i}`, zone: 'z', instanceType: 'm', internalIP: `10.0.0.${i}`, podCIDR: `10.64.${i}.0/24`, time: '2026-01-01T00:00:00Z', machineID: 'm'.repeat(32) });
}

/** Controllers on a store with default + demo namespaces and `nodes` nodes; 30 s of grace take 60 ms. */
function cluster(nodes = 2): { store: SimStore; cm: ControllerManager; seen: Seen[] } {
  const store = new SimStore();
  for (const name of ['default', 'kube-system', 'kube-public', 'demo']) store.create(NAMESPACES, { metadata: { name } });
  for (let i = 1; i <= nodes; i++) store.create(NODES, node(i));
  const cm = new ControllerManager(store, { graceScale: 0.002, podStartMs: 10 });
  running.push(cm);
  cm.start();
  const seen: Seen[] = [];
  store.onCommit((c, t) => seen.push({ type: c.type, resource: t.resource, key: c.key, obj: JSON.parse(c.cur.json) }));
  return { store, cm, seen };
}

function deployment(name: string, replicas: number, namespace = 'demo'): SimObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } } },
  };
}

const running1 = (store: SimStore, ns: string): any[] => store.list(PODS, ns).filter((p: any) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
const status = (err: unknown): any => (err as SimApiError).status;

describe('namespace lifecycle', () => {
  it('namespaces get spec.finalizers ["kubernetes"] and phase Active on create', () => {
    const { store } = cluster(0);
    const ns = store.get(NAMESPACES, undefined, 'demo')!;
    expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.status).toEqual({ phase: 'Active' });
  });

  it('DELETE marks the namespace Terminating, empties it (pods gracefully) and then it goes', async () => {
    const { store, cm, seen } = cluster();
    store.create(DEPLOYMENTS, deployment('web', 3));
    store.create(CONFIGMAPS, { metadata: { name: 'cfg', namespace: 'demo' }, data: { a: '1' } });
    await until(() => running1(store, 'demo').length === 3);
    const podNames = store.list(PODS, 'demo').map((p) => p.metadata.name!);
    const out = cm.delete(store.resolve(NAMESPACES), undefined, 'demo', { propagationPolicy: 'Background' });
    expect(out.code).toBe(200);
    expect(out.deleted).toBe(false);
    const marked = JSON.parse(out.body);
    expect(marked.status.phase).toBe('Terminating');
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    expect(marked.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect(marked.spec.finalizers).toEqual(['kubernetes']);
    // A second DELETE answers the namespace unchanged.
    const again = cm.delete(store.resolve(NAMESPACES), undefined, 'demo', {});
    expect(JSON.parse(again.body).metadata.resourceVersion).toBe(marked.metadata.resourceVersion);
    // No new content while it terminates.
    let err: unknown;
    try { store.create(CONFIGMAPS, { metadata: { name: 'late', namespace: 'demo' } }); } catch (e) { err = e; }
    expect(status(err)).toMatchObject({ code: 403, reason: 'Forbidden', message: 'configmaps "late" is forbidden: unable to create new content in namespace demo because it is being terminated' });

    await until(() => store.get(NAMESPACES, undefined, 'demo') === undefined, 10_000);
    const nsEvents = seen.filter((s) => s.resource === 'namespaces' && s.key === 'demo');
    expect(nsEvents[0]).toMatchObject({ type: 'MODIFIED', obj: { status: { phase: 'Terminating' } } });
    expect(nsEvents.at(-1)!.type).toBe('DELETED');
    // Conditions were reported while content remained.
    const conds = nsEvents.flatMap((e) => e.obj.status.conditions ?? []);
    expect(conds.some((c: any) => c.type === 'NamespaceContentRemaining' && c.status === 'True' && /^Some resources are remaining: .*pods\. has \d resource instances/.test(c.message))).toBe(true);
    const last = nsEvents.at(-1)!.obj;
    // Finalizing deleted it in the same write: the DELETED event carries the last stored state, as etcd's does.
    expect(last.metadata.deletionTimestamp).toBeDefined();
    expect(last.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'False', 'ContentRemoved'],
      ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers'],
    ]);
    // Every pod went gracefully: marked (MODIFIED with deletionTimestamp) before DELETED; nothing is left anywhere.
    for (const name of podNames) {
      const evs = seen.filter((s) => s.resource === 'pods' && s.key === `demo/${name}`);
      const marked = evs.findIndex((e) => e.type === 'MODIFIED' && e.obj.metadata.deletionGracePeriodSeconds === 30);
      expect(marked).toBeGreaterThanOrEqual(0);
      expect(evs.at(-1)!.type).toBe('DELETED');
    }
    for (const t of store.registry.all()) if (t.namespaced) expect(store.storedIn(t, 'demo')).toHaveLength(0);
    // The namespace's name is free again.
    store.create(NAMESPACES, { metadata: { name: 'demo' } });
    expect(store.get(NAMESPACES, undefined, 'demo')!.status).toEqual({ phase: 'Active' });
  });

  it('content with a finalizer holds the namespace (NamespaceFinalizersRemaining) until the finalizer is removed', async () => {
    const { store, cm } = cluster(0);
    store.create(CONFIGMAPS, { metadata: { name: 'held', namespace: 'demo', finalizers: ['example.com/hold'] } });
    cm.delete(store.resolve(NAMESPACES), undefined, 'demo', {});
    await until(() => {
      const c = (store.get(NAMESPACES, undefined, 'demo')!.status as any).conditions ?? [];
      return c.some((x: any) => x.type === 'NamespaceFinalizersRemaining' && x.status === 'True');
    });
    const conds = (store.get(NAMESPACES, undefined, 'demo')!.status as any).conditions;
    expect(conds.find((c: any) => c.type === 'NamespaceFinalizersRemaining')).toMatchObject({ reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances' });
    expect(conds.find((c: any) => c.type === 'NamespaceContentRemaining')).toMatchObject({ reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' });
    expect(store.get(CONFIGMAPS, 'demo', 'held')!.metadata.deletionTimestamp).toBeDefined();
    const held = store.get(CONFIGMAPS, 'demo', 'held')!;
    store.update(CONFIGMAPS, { ...held, metadata: { ...held.metadata, finalizers: undefined } });
    await until(() => store.get(NAMESPACES, undefined, 'demo') === undefined, 10_000);
  });

  it('default, kube-system and kube-public may not be deleted', () => {
    const { store, cm } = cluster(0);
    for (const name of ['default', 'kube-system', 'kube-public']) {
      let err: unknown;
      try { cm.delete(store.resolve(NAMESPACES), undefined, name, {}); } catch (e) { err = e; }
      expect(status(err)).toMatchObject({ code: 403, reason: 'Forbidden', message: `namespaces "${name}" is forbidden: this namespace may not be deleted` });
    }
  });

  it('a client update keeps spec.finalizers; only the finalize subresource changes them', () => {
    const { store } = cluster(0);
    const type = store.resolve(NAMESPACES);
    const ns = store.get(NAMESPACES, undefined, 'demo')!;
    const kept = store.updateObject(type, { ...ns, metadata: { ...ns.metadata, labels: { a: 'b' } }, spec: {} }, { subresource: 'main' });
    expect(kept.spec).toEqual({ finalizers: ['kubernetes'] });
    const finalized = store.updateObject(type, { ...kept, spec: { finalizers: [] }, status: { phase: 'Terminating' } }, { subresource: 'finalize' });
    expect(finalized.spec).toEqual({ finalizers: [] });
    expect(finalized.status).toEqual({ phase: 'Active' });
  });

  it('the workload generator survives the deletion of one of its namespaces and does not refill it', async () => {
    const store = new SimStore();
    const cm = new ControllerManager(store, { graceScale: 0.002, podStartMs: 10 });
    running.push(cm);
    let t = Date.now();
    const gen = new WorkloadGenerator(cm.generatorApi(store), { seed: 3, nodes: 2, pods: 30, churn: 400, managedFields: false }, { now: () => t, setInterval: () => 0, clearInterval: () => undefined });
    gen.populate();
    gen.start();
    cm.start();
    const churn = (ticks: number): void => { for (let i = 0; i < ticks; i++) { t += 100; gen.tick(); } };
    const ns = store.list(PODS).map((p) => p.metadata.namespace!).find((n) => !['default', 'kube-system'].includes(n))!;
    expect(ns).toBeDefined();
    cm.delete(store.resolve(NAMESPACES), undefined, ns, {});
    churn(50);
    await until(() => store.get(NAMESPACES, undefined, ns) === undefined, 10_000);
    churn(50);
    expect(store.list(PODS, ns)).toHaveLength(0);
    expect(store.list(PODS).length).toBeGreaterThan(0);
  });
});

describe('pod garbage collection', () => {
  it('pods on a deleted node are marked Failed (DeletionByPodGC), force-deleted and replaced on another node', async () => {
    const { store, seen } = cluster(2);
    store.create(DEPLOYMENTS, deployment('web', 4, 'default'));
    await until(() => running1(store, 'default').length === 4);
    const onNode1 = store.list(PODS, 'default').filter((p: any) => p.spec.nodeName === 'node-1').map((p) => p.metadata.name!);
    expect(onNode1.length).toBeGreaterThan(0);
    store.delete(NODES, undefined, 'node-1');
    await until(() => running1(store, 'default').length === 4 && store.list(PODS, 'default').every((p: any) => p.spec.nodeName === 'node-2'), 10_000);
    for (const name of onNode1) {
      const evs = seen.filter((s) => s.resource === 'pods' && s.key === `default/${name}`);
      const failed = evs.find((e) => e.obj.status.phase === 'Failed')!;
      expect(failed.obj.status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' }));
      expect(evs.at(-1)!.type).toBe('DELETED');
      expect(evs.at(-1)!.obj.metadata.deletionGracePeriodSeconds).toBe(0);
    }
  });

  it('a node that comes back within the quarantine keeps its pods', async () => {
    const { store } = cluster(1);
    store.create(PODS, pod('p', { node: 'node-1' }));
    await until(() => running1(store, 'default').length === 1);
    store.delete(NODES, undefined, 'node-1');
    store.create(NODES, node(1));
    await new Promise((r) => setTimeout(r, 200)); // quarantine is 80 ms here
    expect(store.get(PODS, 'default', 'p')).toBeDefined();
  });
});
