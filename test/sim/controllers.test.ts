// The sim's controllers in-process: deployments → replicasets → pods, scheduling and the kubelet, graceful deletion,
// finalizers and garbage collection, each judged by the objects and the change stream the store emits.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { SimApiError } from '../../src/sim/api.js';
import { ControllerManager, type ControllerOptions } from '../../src/sim/controllers/controller-manager.js';
import { podTemplateHash } from '../../src/sim/controllers/pod-template-hash.js';
import { SimStore } from '../../src/sim/store.js';
import { WorkloadGenerator } from '../../src/sim/workload.js';
import { nodeObject } from '../../src/sim/workload-objects.js';
import { DEPLOYMENTS, NAMESPACES, pod, PODS, until } from './sim-helpers.js';

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const REPLICASETS = { group: 'apps', version: 'v1', resource: 'replicasets' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const EVENTS = { group: '', version: 'v1', resource: 'events' };

interface Seen { type: string; resource: string; key: string; obj: any }

interface Cluster {
  store: SimStore;
  cm: ControllerManager;
  seen: Seen[];
  of(resource: string, key?: string): Seen[];
  del(ref: typeof PODS, name: string, req?: Parameters<ControllerManager['delete']>[3], namespace?: string): ReturnType<ControllerManager['delete']>;
}

const running: ControllerManager[] = [];
afterEach(() => { for (const cm of running.splice(0)) cm.stop(); });

function node(i: number): SimObject {
  return nodeObject({ name: `node-${i}`, zone: 'z', instanceType: 'm', internalIP: `10.0.0.${i}`, podCIDR: `10.64.${i}.0/24`, time: '2026-01-01T00:00:00Z', machineID: 'm'.repeat(32) });
}

/** A store with `nodes` nodes and running controllers; 30 s of grace take 60 ms, pods start after 10 ms. */
function cluster(nodes = 3, opts: ControllerOptions = {}): Cluster {
  const store = new SimStore();
  store.create(NAMESPACES, { metadata: { name: 'default' } });
  for (let i = 1; i <= nodes; i++) store.create(NODES, node(i));
  const cm = new ControllerManager(store, { graceScale: 0.002, podStartMs: 10, ...opts });
  running.push(cm);
  cm.start();
  const seen: Seen[] = [];
  store.onCommit((c, t) => seen.push({ type: c.type, resource: t.resource, key: c.key, obj: JSON.parse(c.cur.json) }));
  return {
    store, cm, seen,
    of: (resource, key) => seen.filter((s) => s.resource === resource && (key === undefined || s.key === key)),
    del: (ref, name, req = {}, namespace = 'default') => cm.delete(store.resolve(ref), namespace, name, req),
  };
}

function deployment(name: string, replicas: number, image = 'nginx', spec: Record<string, unknown> = {}): SimObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } }, ...spec },
  };
}

const podsOf = (store: SimStore, app: string): any[] => store.list(PODS, 'default').filter((p) => p.metadata.labels?.app === app);
const runningPods = (store: SimStore, app: string): any[] => podsOf(store, app).filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
const rsOf = (store: SimStore, app: string): any[] => store.list(REPLICASETS, 'default').filter((r) => r.metadata.labels?.app === app);
const cond = (obj: any, type: string): any => obj.status?.conditions?.find((c: any) => c.type === type);

/** Waits until the deployment reports every replica updated and available (what `kubectl rollout status` waits for). */
async function rolledOut(store: SimStore, name: string, ms = 3000): Promise<any> {
  await until(() => {
    const d: any = store.get(DEPLOYMENTS, 'default', name);
    const s = d?.status ?? {};
    return (s.observedGeneration ?? 0) >= d.metadata.generation && s.updatedReplicas === (d.spec.replicas || undefined) && s.replicas === s.updatedReplicas && s.availableReplicas === s.updatedReplicas
      && cond(d, 'Progressing')?.reason === 'NewReplicaSetAvailable';
  }, ms);
  return store.get(DEPLOYMENTS, 'default', name);
}

describe('Deployment and ReplicaSet controllers', () => {
  it('create: one ReplicaSet <name>-<pod-template-hash> owned by the Deployment, its pods Running, READY n/n', async () => {
    const c = cluster();
    const d = c.store.create(DEPLOYMENTS, deployment('web', 3)) as any;
    const done = await rolledOut(c.store, 'web');
    const [rs] = rsOf(c.store, 'web') as any[];
    const hash = podTemplateHash(d.spec.template);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(rs.metadata.annotations).toEqual({ 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4', 'deployment.kubernetes.io/revision': '1' });
    expect(rs.spec.selector).toEqual({ matchLabels: { app: 'web', 'pod-template-hash': hash } });
    expect(rs.status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    const pods = runningPods(c.store, 'web');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(p.metadata.generateName).toBe(`web-${hash}-`);
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    expect(done.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    expect(done.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(done.status.unavailableReplicas).toBeUndefined();
    expect(done.status.conditions.map((x: any) => [x.type, x.status, x.reason, x.message])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
    ]);
    // The first status write says which ReplicaSet was created, as kube's does.
    const firstStatus = c.of('deployments').find((s) => s.obj.status?.conditions)!.obj;
    expect(cond(firstStatus, 'Progressing')).toMatchObject({ reason: 'NewReplicaSetCreated', message: `Created new replica set "web-${hash}"` });
    const events = c.store.list(EVENTS, 'default').map((e: any) => `${e.source.component} ${e.reason} ${e.message}`);
    expect(events).toContain(`deployment-controller ScalingReplicaSet Scaled up replica set web-${hash} from 0 to 3`);
    expect(events.filter((e) => e.startsWith('replicaset-controller SuccessfulCreate Created pod: web-'))).toHaveLength(3);
    await until(() => c.cm.pending() === 0);
    expect(c.cm.errors).toBe(0);
  });

  it('scales up and down; scale-down pods terminate gracefully and the counts settle', async () => {
    const c = cluster();
    c.store.create(DEPLOYMENTS, deployment('web', 2));
    await rolledOut(c.store, 'web');
    const scale = (n: number) => { const d: any = c.store.get(DEPLOYMENTS, 'default', 'web'); d.spec.replicas = n; c.store.update(DEPLOYMENTS, d); };
    scale(5);
    let d = await rolledOut(c.store, 'web');
    expect(d.status).toMatchObject({ replicas: 5, updatedReplicas: 5, readyReplicas: 5, availableReplicas: 5, observedGeneration: 2 });
    expect(rsOf(c.store, 'web')).toHaveLength(1);
    scale(1);
    // Four pods are marked for deletion first (Terminating), then removed by the kubelet.
    await until(() => podsOf(c.store, 'web').filter((p) => p.metadata.deletionTimestamp).length === 4 || podsOf(c.store, 'web').length === 1);
    d = await rolledOut(c.store, 'web');
    await until(() => podsOf(c.store, 'web').length === 1);
    expect(d.status).toMatchObject({ replicas: 1, updatedReplicas: 1, availableReplicas: 1 });
    const rs = rsOf(c.store, 'web')[0];
    expect(rs.spec.replicas).toBe(1);
    expect(rs.metadata.annotations['deployment.kubernetes.io/desired-replicas']).toBe('1');
    const deletedPods = c.of('pods').filter((s) => s.type === 'DELETED');
    expect(deletedPods).toHaveLength(4);
    for (const s of deletedPods) expect(s.obj.metadata.deletionGracePeriodSeconds).toBe(0);
    scale(0);
    await until(() => podsOf(c.store, 'web').length === 0 && (c.store.get(DEPLOYMENTS, 'default', 'web') as any).status.replicas === undefined);
    // Zero counts are omitted, as Go's omitempty does; the conditions stay.
    const zero: any = c.store.get(DEPLOYMENTS, 'default', 'web');
    expect(Object.keys(zero.status).sort()).toEqual(['conditions', 'observedGeneration']);
    expect(cond(zero, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
  });

  it('a template change rolls to a new ReplicaSet within maxSurge, and the old one ends at 0', async () => {
    const c = cluster();
    c.store.create(DEPLOYMENTS, deployment('web', 4));
    await rolledOut(c.store, 'web');
    const before = c.seen.length;
    const d: any = c.store.get(DEPLOYMENTS, 'default', 'web');
    d.spec.template.spec.containers[0].image = 'nginx:1.27';
    c.store.update(DEPLOYMENTS, d);
    const done = await rolledOut(c.store, 'web');
    await until(() => podsOf(c.store, 'web').length === 4);
    const rss = rsOf(c.store, 'web').sort((a, b) => Number(a.metadata.annotations['deployment.kubernetes.io/revision']) - Number(b.metadata.annotations['deployment.kubernetes.io/revision']));
    expect(rss.map((r) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r.spec.replicas])).toEqual([['1', 0], ['2', 4]]);
    expect(rss[1].metadata.name).toBe(`web-${podTemplateHash(d.spec.template)}`);
    expect(done.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
    expect(done.metadata.generation).toBe(2);
    expect(podsOf(c.store, 'web').every((p) => p.spec.containers[0].image === 'nginx:1.27')).toBe(true);
    // 25% of 4: at most 5 pods exist at once (maxSurge 1) and at least 3 stay ready (maxUnavailable 1).
    const alive = new Map<string, any>();
    for (const p of c.seen.slice(0, before).filter((x) => x.resource === 'pods')) {
      if (p.type === 'DELETED' || p.obj.metadata.deletionTimestamp) alive.delete(p.key); else alive.set(p.key, p.obj);
    }
    let most = 0, fewestReady = Infinity;
    for (const s of c.seen.slice(before).filter((x) => x.resource === 'pods')) {
      if (s.type === 'DELETED' || s.obj.metadata.deletionTimestamp) alive.delete(s.key); else alive.set(s.key, s.obj);
      most = Math.max(most, alive.size);
      fewestReady = Math.min(fewestReady, [...alive.values()].filter((p) => cond(p, 'Ready')?.status === 'True').length);
    }
    expect(most).toBeLessThanOrEqual(5);
    expect(fewestReady).toBeGreaterThanOrEqual(3);
    const scaled = c.store.list(EVENTS, 'default').filter((e: any) => e.reason === 'ScalingReplicaSet').map((e: any) => e.message as string);
    expect(scaled.some((m) => /^Scaled down replica set web-\w+ from 4 to 3$/.test(m))).toBe(true);
  });

  it('Recreate: every old pod is gone before a new one is created', async () => {
    const c = cluster();
    c.store.create(DEPLOYMENTS, deployment('db', 2, 'postgres', { strategy: { type: 'Recreate' } }));
    await rolledOut(c.store, 'db');
    const before = c.seen.length;
    const d: any = c.store.get(DEPLOYMENTS, 'default', 'db');
    d.spec.template.spec.containers[0].image = 'postgres:17';
    c.store.update(DEPLOYMENTS, d);
    await rolledOut(c.store, 'db');
    const pods = c.seen.slice(before).filter((s) => s.resource === 'pods');
    const lastOldGone = pods.map((s, i) => (s.type === 'DELETED' ? i : -1)).reduce((a, b) => Math.max(a, b));
    const firstNew = pods.findIndex((s) => s.type === 'ADDED');
    expect(pods.filter((s) => s.type === 'DELETED')).toHaveLength(2);
    expect(firstNew).toBeGreaterThan(lastOldGone);
  });

  it('rollout undo (the old template again) reuses the old ReplicaSet under a new revision', async () => {
    const c = cluster();
    c.store.create(DEPLOYMENTS, deployment('web', 2));
    await rolledOut(c.store, 'web');
    const setImage = (image: string) => { const d: any = c.store.get(DEPLOYMENTS, 'default', 'web'); d.spec.template.spec.containers[0].image = image; c.store.update(DEPLOYMENTS, d); };
    setImage('nginx:2');
    await rolledOut(c.store, 'web');
    setImage('nginx');
    await rolledOut(c.store, 'web');
    const rss = rsOf(c.store, 'web');
    expect(rss).toHaveLength(2);
    const first = rss.find((r) => r.spec.template.spec.containers[0].image === 'nginx')!;
    expect(first.metadata.annotations['deployment.kubernetes.io/revision']).toBe('3');
    expect(first.spec.replicas).toBe(2);
  });

  it('a ReplicaSet replaces a deleted pod and releases a pod whose labels stop matching', async () => {
    const c = cluster();
    c.store.create(DEPLOYMENTS, deployment('web', 2));
    await rolledOut(c.store, 'web');
    const [victim, relabeled] = runningPods(c.store, 'web');
    c.del(PODS, victim.metadata.name);
    relabeled.metadata.labels = { app: 'elsewhere' };
    c.store.update(PODS, relabeled);
    await until(() => runningPods(c.store, 'web').length === 2 && !podsOf(c.store, 'web').some((p) => p.metadata.name === victim.metadata.name));
    const released: any = c.store.get(PODS, 'default', relabeled.metadata.name);
    expect(released.metadata.ownerReferences).toBeUndefined();
    expect(podsOf(c.store, 'web').map((p) => p.metadata.name)).not.toContain(relabeled.metadata.name);
  });
});

describe('scheduler and kubelet', () => {
  it('binds pods spread over the nodes, then ContainerCreating, then Running with an IP from the node', async () => {
    const c = cluster(3);
    c.store.create(DEPLOYMENTS, deployment('web', 3));
    await rolledOut(c.store, 'web');
    const pods = runningPods(c.store, 'web');
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    for (const p of pods) {
      const i = p.spec.nodeName.slice(-1);
      expect(p.status.hostIP).toBe(`10.0.0.${i}`);
      expect(p.status.podIP).toMatch(new RegExp(`^10\\.64\\.${i}\\.\\d+$`));
      expect(p.status.podIPs).toEqual([{ ip: p.status.podIP }]);
      expect(p.status.conditions.map((x: any) => `${x.type}=${x.status}`)).toEqual(['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
      expect(p.status.containerStatuses).toEqual([expect.objectContaining({ name: 'main', ready: true, started: true, restartCount: 0, image: 'docker.io/library/nginx:latest', state: { running: { startedAt: expect.any(String) } } })]);
      expect(p.status.containerStatuses[0].containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
      expect(p.status.startTime).toEqual(expect.any(String));
    }
    // Each pod: created, bound, ContainerCreating, Running — four writes.
    const one = c.of('pods', `default/${pods[0].metadata.name}`);
    expect(one.map((s) => [s.type, s.obj.spec.nodeName ?? '', s.obj.status.phase, s.obj.status.containerStatuses?.[0]?.state ? Object.keys(s.obj.status.containerStatuses[0].state)[0] : ''])).toEqual([
      ['ADDED', '', 'Pending', ''],
      ['MODIFIED', pods[0].spec.nodeName, 'Pending', ''],
      ['MODIFIED', pods[0].spec.nodeName, 'Pending', 'waiting'],
      ['MODIFIED', pods[0].spec.nodeName, 'Running', 'running'],
    ]);
    expect(one[2].obj.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    const reasons = c.store.list(EVENTS, 'default').filter((e: any) => e.involvedObject.name === pods[0].metadata.name).map((e: any) => e.reason);
    expect(reasons).toEqual(['Scheduled', 'Pulled', 'Created', 'Started']);
  });

  it('with no nodes a pod stays Pending with PodScheduled=False, and is scheduled once a node appears', async () => {
    const c = cluster(0);
    c.store.create(PODS, pod('lonely'));
    await until(() => cond(c.store.get(PODS, 'default', 'lonely'), 'PodScheduled') !== undefined);
    const p: any = c.store.get(PODS, 'default', 'lonely');
    expect(p.status.phase).toBe('Pending');
    expect(cond(p, 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable', message: 'no nodes available to schedule pods', lastProbeTime: null });
    expect(c.store.list(EVENTS, 'default').map((e: any) => `${e.type} ${e.reason}`)).toEqual(['Warning FailedScheduling']);
    c.store.create(NODES, node(7));
    await until(() => (c.store.get(PODS, 'default', 'lonely') as any).status.phase === 'Running');
    expect((c.store.get(PODS, 'default', 'lonely') as any).spec.nodeName).toBe('node-7');
  });

  it('an unschedulable node is skipped, with kube\'s FitError message when none is left', async () => {
    const c = cluster(1);
    const n: any = c.store.get(NODES, undefined, 'node-1');
    n.spec.unschedulable = true;
    c.store.update(NODES, n);
    c.store.create(PODS, pod('p'));
    await until(() => cond(c.store.get(PODS, 'default', 'p'), 'PodScheduled') !== undefined);
    expect(cond(c.store.get(PODS, 'default', 'p'), 'PodScheduled').message).toBe('0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  });

  it('leaves pods bound to a node that does not exist alone (no kubelet runs them)', async () => {
    const c = cluster(1);
    c.store.create(PODS, pod('ghost', { node: 'nowhere' }));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.of('pods').map((s) => s.type)).toEqual(['ADDED']);
  });
});

describe('graceful deletion and finalizers', () => {
  it('DELETE of a running pod: MODIFIED (deletionTimestamp, grace 30), then the kubelet stops it and it is DELETED', async () => {
    const c = cluster(1);
    c.store.create(PODS, pod('p'));
    await until(() => (c.store.get(PODS, 'default', 'p') as any).status.phase === 'Running');
    const before = c.of('pods').length;
    const t0 = Date.now();
    const out = c.del(PODS, 'p');
    expect(out.deleted).toBe(false);
    expect(out.code).toBe(200);
    const answered = JSON.parse(out.body);
    expect(answered.metadata.deletionGracePeriodSeconds).toBe(30);
    const due = Date.parse(answered.metadata.deletionTimestamp);
    expect(due).toBeGreaterThanOrEqual(Math.floor(t0 / 1000) * 1000 + 29_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 31_000);
    await until(() => !c.store.get(PODS, 'default', 'p'));
    const tail = c.of('pods').slice(before);
    expect(tail.map((s) => s.type)).toEqual(['MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(tail[0].obj.metadata).toMatchObject({ deletionTimestamp: answered.metadata.deletionTimestamp, deletionGracePeriodSeconds: 30 });
    // The kubelet reports the containers stopped, then deletes with grace 0 (kube shortens the deletion first).
    expect(tail[1].obj.status.phase).toBe('Succeeded');
    expect(tail[1].obj.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(tail[2].obj.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(Date.parse(tail[2].obj.metadata.deletionTimestamp)).toBe(due - 30_000);
    expect(Number(tail[3].obj.metadata.resourceVersion)).toBeGreaterThan(Number(tail[2].obj.metadata.resourceVersion));
    expect(c.store.list(EVENTS, 'default').map((e: any) => e.reason)).toContain('Killing');
  });

  it('the DeleteOptions grace period wins, may only shorten a pending one, and 0 deletes at once', async () => {
    const c = cluster(1, { graceScale: 1 });
    c.store.create(PODS, pod('p', { node: 'node-1' }));
    expect(JSON.parse(c.del(PODS, 'p', { gracePeriodSeconds: 60 }).body).metadata.deletionGracePeriodSeconds).toBe(60);
    const rv = c.store.currentRevision();
    // Longer or equal: nothing to do, no write.
    expect(JSON.parse(c.del(PODS, 'p', { gracePeriodSeconds: 90 }).body).metadata.deletionGracePeriodSeconds).toBe(60);
    expect(c.del(PODS, 'p').deleted).toBe(false);
    expect(c.store.currentRevision()).toBe(rv);
    expect(JSON.parse(c.del(PODS, 'p', { gracePeriodSeconds: 10 }).body).metadata.deletionGracePeriodSeconds).toBe(10);
    const forced = c.del(PODS, 'p', { gracePeriodSeconds: 0 });
    expect(forced.deleted).toBe(true);
    expect(c.of('pods', 'default/p').map((s) => [s.type, s.obj.metadata.deletionGracePeriodSeconds])).toEqual([['ADDED', undefined], ['MODIFIED', 60], ['MODIFIED', 10], ['MODIFIED', 0], ['DELETED', 0]]);
  });

  it('an unscheduled pod is deleted at once (grace 0: a MODIFIED, then DELETED), as kube does', () => {
    const c = cluster(0);
    c.store.create(PODS, pod('p'));
    const out = c.del(PODS, 'p');
    expect(out.deleted).toBe(true);
    expect(c.of('pods', 'default/p').map((s) => s.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('finalizers hold any object: marked (grace 0), updates may drop but not add finalizers, the last one out deletes it', () => {
    const c = cluster(0);
    c.store.create(CONFIGMAPS, { metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/a', 'example.com/b'] }, data: { x: '1' } });
    const out = c.del(CONFIGMAPS, 'held');
    expect(out.deleted).toBe(false);
    const marked = JSON.parse(out.body);
    expect(marked.metadata).toMatchObject({ deletionGracePeriodSeconds: 0, finalizers: ['example.com/a', 'example.com/b'] });
    // A second delete changes nothing.
    const rv = c.store.currentRevision();
    c.del(CONFIGMAPS, 'held');
    expect(c.store.currentRevision()).toBe(rv);
    const cur: any = c.store.get(CONFIGMAPS, 'default', 'held');
    expect(() => c.store.update(CONFIGMAPS, { ...cur, metadata: { ...cur.metadata, finalizers: [...cur.metadata.finalizers, 'example.com/c'] } })).toThrow(/no new finalizers can be added if the object is being deleted/);
    const again = (() => { try { c.store.create(CONFIGMAPS, { metadata: { name: 'held', namespace: 'default' } }); return undefined; } catch (e) { return (e as SimApiError).status; } })();
    expect(again).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'object is being deleted: configmaps "held" already exists' });
    c.store.update(CONFIGMAPS, { ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/b'] } });
    expect(c.store.get(CONFIGMAPS, 'default', 'held')).toBeDefined();
    const last: any = c.store.get(CONFIGMAPS, 'default', 'held');
    c.store.update(CONFIGMAPS, { ...last, metadata: { ...last.metadata, finalizers: [] } });
    expect(c.store.get(CONFIGMAPS, 'default', 'held')).toBeUndefined();
    const trail = c.of('configmaps', 'default/held');
    expect(trail.map((s) => s.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    // The DELETED event carries the last stored state (with the finalizer the update removed), at the deletion revision.
    expect(trail[3].obj.metadata.finalizers).toEqual(['example.com/b']);
    expect(trail[3].obj.metadata.resourceVersion).toBe(String(c.store.currentRevision()));
  });

  it('a pod with a finalizer terminates, then waits for the finalizer at grace 0', async () => {
    const c = cluster(1);
    c.store.create(PODS, { ...pod('p', { node: 'node-1' }), metadata: { name: 'p', namespace: 'default', finalizers: ['example.com/hold'] } });
    await until(() => (c.store.get(PODS, 'default', 'p') as any).status.phase === 'Running');
    c.del(PODS, 'p');
    await until(() => (c.store.get(PODS, 'default', 'p') as any).metadata.deletionGracePeriodSeconds === 0);
    const held: any = c.store.get(PODS, 'default', 'p');
    expect(held.status.phase).toBe('Succeeded');
    c.store.update(PODS, { ...held, metadata: { ...held.metadata, finalizers: undefined } });
    expect(c.store.get(PODS, 'default', 'p')).toBeUndefined();
  });

  it('validates DeleteOptions like kube (422 DeleteOptions.meta.k8s.io)', () => {
    const c = cluster(0);
    c.store.create(CONFIGMAPS, { metadata: { name: 'x', namespace: 'default' } });
    expect(() => c.del(CONFIGMAPS, 'x', { propagationPolicy: 'Sideways' })).toThrow('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
    expect(() => c.del(CONFIGMAPS, 'x', { propagationPolicy: 'Orphan', orphanDependents: true })).toThrow(/orphanDependents and deletionPropagation cannot be both set/);
  });
});

describe('garbage collection', () => {
  async function webDeployment(c: Cluster): Promise<{ d: any; rs: any; pods: any[] }> {
    c.store.create(DEPLOYMENTS, deployment('web', 2));
    const d = await rolledOut(c.store, 'web');
    return { d, rs: rsOf(c.store, 'web')[0], pods: runningPods(c.store, 'web') };
  }

  it('background (the default): the owner goes at once, then its ReplicaSet, then the pods terminate and go', async () => {
    const c = cluster();
    const { rs, pods } = await webDeployment(c);
    const out = c.del(DEPLOYMENTS, 'web', { propagationPolicy: 'Background' });
    expect(out.deleted).toBe(true);
    // Deployments answer a Status, not the object (their registry does not set ReturnDeletedObject).
    expect(JSON.parse(out.body)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'web', group: 'apps', kind: 'deployments', uid: expect.any(String) } });
    await until(() => podsOf(c.store, 'web').length === 0 && rsOf(c.store, 'web').length === 0);
    const order = c.seen.filter((s) => s.type === 'DELETED' && s.resource !== 'events').map((s) => s.key);
    expect(order.indexOf('default/web')).toBeLessThan(order.indexOf(`default/${rs.metadata.name}`));
    expect(order.indexOf(`default/${rs.metadata.name}`)).toBeLessThan(order.indexOf(`default/${pods[0].metadata.name}`));
    // The pods went through Terminating.
    expect(c.of('pods', `default/${pods[0].metadata.name}`).some((s) => s.type === 'MODIFIED' && s.obj.metadata.deletionGracePeriodSeconds === 30)).toBe(true);
  });

  it('foreground: the owner waits (foregroundDeletion finalizer) until its dependents are gone, deepest first', async () => {
    const c = cluster();
    const { rs, pods } = await webDeployment(c);
    const out = c.del(DEPLOYMENTS, 'web', { propagationPolicy: 'Foreground' });
    expect(out.deleted).toBe(false);
    const marked = JSON.parse(out.body);
    expect(marked.metadata).toMatchObject({ finalizers: ['foregroundDeletion'], deletionGracePeriodSeconds: 0, deletionTimestamp: expect.any(String) });
    expect(marked.metadata.generation).toBe(2);
    await until(() => !c.store.get(DEPLOYMENTS, 'default', 'web'));
    expect(podsOf(c.store, 'web')).toHaveLength(0);
    const rsTrail = c.of('replicasets', `default/${rs.metadata.name}`);
    expect(rsTrail.some((s) => s.obj.metadata.finalizers?.includes('foregroundDeletion'))).toBe(true);
    const deleted = c.seen.filter((s) => s.type === 'DELETED' && s.resource !== 'events').map((s) => s.key);
    const at = (k: string) => deleted.indexOf(k);
    for (const p of pods) expect(at(`default/${p.metadata.name}`)).toBeLessThan(at(`default/${rs.metadata.name}`));
    expect(at(`default/${rs.metadata.name}`)).toBeLessThan(at('default/web'));
  });

  it('orphan: the dependents lose their owner reference and stay; the ReplicaSet keeps its pods', async () => {
    const c = cluster();
    const { rs, pods } = await webDeployment(c);
    c.del(DEPLOYMENTS, 'web', { propagationPolicy: 'Orphan' });
    await until(() => !c.store.get(DEPLOYMENTS, 'default', 'web'));
    const orphan: any = c.store.get(REPLICASETS, 'default', rs.metadata.name);
    expect(orphan.metadata.ownerReferences).toBeUndefined();
    expect(orphan.spec.replicas).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(runningPods(c.store, 'web').map((p) => p.metadata.name).sort()).toEqual(pods.map((p) => p.metadata.name).sort());
    const marked = c.of('deployments', 'default/web').find((s) => s.obj.metadata.finalizers);
    expect(marked?.obj.metadata.finalizers).toEqual(['orphan']);
  });

  it('an object created with an owner that does not exist is collected; one with a live second owner only loses the dead reference', async () => {
    const c = cluster(0);
    const live = c.store.create(CONFIGMAPS, { metadata: { name: 'owner', namespace: 'default' } });
    const ghost = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '00000000-0000-0000-0000-000000000000' };
    c.store.create(CONFIGMAPS, { metadata: { name: 'dangling', namespace: 'default', ownerReferences: [ghost] } });
    c.store.create(CONFIGMAPS, { metadata: { name: 'shared', namespace: 'default', ownerReferences: [ghost, { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: live.metadata.uid! }] } });
    await until(() => !c.store.get(CONFIGMAPS, 'default', 'dangling'));
    await until(() => (c.store.get(CONFIGMAPS, 'default', 'shared') as any).metadata.ownerReferences.length === 1);
    expect((c.store.get(CONFIGMAPS, 'default', 'shared') as any).metadata.ownerReferences[0].name).toBe('owner');
  });
});

describe('the workload generator', () => {
  it('keeps its objects: a static cluster stays static, and churn writes exactly what it writes without controllers', async () => {
    async function run(withControllers: boolean): Promise<string[]> {
      const store = new SimStore();
      store.create(NAMESPACES, { metadata: { name: 'default' } });
      let t = 1_700_000_000_000;
      const cm = withControllers ? new ControllerManager(store, { podStartMs: 1, graceScale: 0.001 }) : undefined;
      if (cm) running.push(cm);
      const gen = new WorkloadGenerator(cm ? cm.generatorApi(store) : store, { seed: 3, nodes: 3, pods: 60, churn: 400, managedFields: false }, { now: () => t, setInterval: () => 0, clearInterval: () => undefined });
      gen.populate();
      const log: string[] = [];
      // The serviceaccount and root-ca controllers fill every namespace once, and the default StorageClass is seeded
      // (a real cluster has those objects already); they are not the generator's and are left out of the comparison.
      const namespaceDefaults = (resId: string, key: string): boolean => (resId === '/v1/serviceaccounts' && key.endsWith('/default')) || (resId === '/v1/configmaps' && key.endsWith('/kube-root-ca.crt'))
        || (resId === 'storage.k8s.io/v1/storageclasses' && key === 'standard');
      store.onCommit((ch) => { if (!namespaceDefaults(ch.resId, ch.key)) log.push(`${ch.type} ${ch.resId} ${ch.key}`); });
      cm?.start();
      // Nothing happens until the generator acts.
      await new Promise((r) => setTimeout(r, 30));
      expect(log).toEqual([]);
      for (let i = 0; i < 30; i++) {
        t += 100;
        gen.tick();
        await new Promise((r) => setTimeout(r, 1));
      }
      await new Promise((r) => setTimeout(r, 30));
      expect(cm?.errors ?? 0).toBe(0);
      return log;
    }
    const without = await run(false);
    const withControllers = await run(true);
    expect(without.length).toBeGreaterThan(500);
    expect(withControllers).toEqual(without);
  });

  it('a generator pod someone deletes still terminates and goes (the kubelet finishes what the API started)', async () => {
    const store = new SimStore();
    store.create(NAMESPACES, { metadata: { name: 'default' } });
    const cm = new ControllerManager(store, { graceScale: 0.001, podStartMs: 1 });
    running.push(cm);
    const gen = new WorkloadGenerator(cm.generatorApi(store), { seed: 1, nodes: 2, pods: 5, churn: 0, managedFields: false });
    gen.populate();
    cm.start();
    const victim = store.list(PODS).find((p: any) => p.spec.nodeName)!;
    cm.delete(store.resolve(PODS), victim.metadata.namespace, victim.metadata.name!, {});
    expect((store.get(PODS, victim.metadata.namespace, victim.metadata.name!) as any).metadata.deletionTimestamp).toBeDefined();
    await until(() => !store.get(PODS, victim.metadata.namespace, victim.metadata.name!));
    // Nobody replaces it: the generator's ReplicaSets are the generator's.
    await new Promise((r) => setTimeout(r, 30));
    expect(store.list(PODS)).toHaveLength(4);
  });
});

describe('lifecycle', () => {
  it('stop() cancels every timer: a pod that was starting never runs', async () => {
    const c = cluster(1, { podStartMs: 40 });
    c.store.create(PODS, pod('p'));
    await until(() => (c.store.get(PODS, 'default', 'p') as any).status.containerStatuses !== undefined);
    c.cm.stop();
    await new Promise((r) => setTimeout(r, 80));
    expect((c.store.get(PODS, 'default', 'p') as any).status.phase).toBe('Pending');
  });
});
