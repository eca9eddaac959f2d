// The workload generator: populates the sim with a deterministic cluster and keeps it churning.

import { SimApiError, type SimApi, type SimObject, type SimResourceRef } from './api.js';
import { SeededRandom } from './seeded-random.js';
import {
  type AppTemplate, configMapObject, deploymentObject, eventObject, type EventParams, kubeTime, leaseObject, namespaceObject, nodeObject,
  podObject, type PodFieldsCache, replicaSetObject, serviceObject, withReplicas,
} from './workload-objects.js';

export interface WorkloadOptions {
  seed: number;
  nodes: number;
  /** Pods in total, all owned by Deployments through ReplicaSets. */
  pods: number;
  /** API writes (creates, updates, deletes, Events included) per second; 0 keeps the cluster static. */
  churn: number;
  /** Write metadata.managedFields as kube's field manager does (pods grow from ~4 KB to ~6 KB). */
  managedFields: boolean;
}

/** Injectable time: defaults to the global timers and Date.now. */
export interface WorkloadClock {
  setInterval?(fn: () => void, ms: number): unknown;
  clearInterval?(handle: unknown): void;
  now?(): number;
}

const REF = {
  namespaces: { group: '', version: 'v1', resource: 'namespaces' },
  nodes: { group: '', version: 'v1', resource: 'nodes' },
  pods: { group: '', version: 'v1', resource: 'pods' },
  services: { group: '', version: 'v1', resource: 'services' },
  configmaps: { group: '', version: 'v1', resource: 'configmaps' },
  events: { group: '', version: 'v1', resource: 'events' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments' },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets' },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
} satisfies Record<string, SimResourceRef>;

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const APP_NAMESPACES = ['shop', 'payments', 'search', 'data', 'monitoring', 'auth', 'media', 'batch'];
const APP_WORDS = ['checkout', 'cart', 'catalog', 'billing', 'ledger', 'indexer', 'query', 'ingest', 'metrics', 'alerts', 'login', 'tokens', 'thumbnails', 'encoder', 'orders', 'gateway'];
const APP_ROLES = ['api', 'worker', 'web', 'cache', 'sync', 'proxy'];
const IMAGES = ['nginx:1.27.2', 'redis:7.4.1', 'ghcr.io/acme/api:v2.14.0', 'ghcr.io/acme/worker:v1.9.3', 'registry.k8s.io/pause:3.10', 'docker.io/library/python:3.12-slim'];
const ZONES = ['sim-region-1a', 'sim-region-1b', 'sim-region-1c'];
const INSTANCE_TYPES = ['m6i.4xlarge', 'c6i.4xlarge', 'r6i.4xlarge'];

/** How many of the generator's own Events exist at once; the oldest are deleted, like kube's event TTL. */
const EVENT_CAP = 1000;
/** Events written by populate(), whatever the cluster size. */
const POPULATE_EVENTS = 300;
const TICK_MS = 100;
/** How many apps keep their pods' controller managedFields tree cached (populate creates each app's pods together). */
const TREE_CACHE_APPS = 32;
/** A churn tick never tries to catch up more than this much lost time (e.g. after a stalled event loop). */
const MAX_CATCH_UP_MS = 1000;

interface NodeState { name: string; ip: string; index: number; uid?: string; nextPodIP: number }

interface AppState {
  namespace: string;
  name: string;
  template: AppTemplate;
  hash: string;
  tokenSuffix: string;
  replicaSet: { name: string; uid: string };
  deploymentUid: string;
  replicas: number;
  maxReplicas: number;
  pods: PodState[];
  fieldsCache: PodFieldsCache;
}

interface PodState { name: string; app: AppState; node?: NodeState; running: boolean; index: number }

interface PodPlan { key: string; name: string; app: AppState; node?: NodeState; running: boolean }

type ChurnAction = 'replacePod' | 'restartContainer' | 'relabelPod' | 'renewLease' | 'nodeHeartbeat' | 'scale';

/** Weighted mix of churn actions (weights sum to 100). */
const ACTIONS: [ChurnAction, number][] = [['replacePod', 25], ['restartContainer', 15], ['relabelPod', 15], ['renewLease', 25], ['nodeHeartbeat', 12], ['scale', 8]];

/**
 * Builds a cluster through SimApi only — namespaces, nodes with leases, Deployments owning
 * ReplicaSets owning pods, Services, ConfigMaps, Events — and, once started, writes `churn`
 * changes per second. Everything derives from the seed and the clock, so the same seed and the same
 * clock give the same objects. The generator keeps only compact bookkeeping, never the objects.
 */
export class WorkloadGenerator {
  private readonly rand: SeededRandom;
  private readonly setIntervalFn: (fn: () => void, ms: number) => unknown;
  private readonly clearIntervalFn: (handle: unknown) => void;
  private readonly now: () => number;
  private nodes: NodeState[] = [];
  private apps: AppState[] = [];
  private allPods: PodState[] = [];
  /** Pods created Pending by churn, promoted to Running once the churn's schedule reaches `due` (see scheduleMs). */
  private pending: { pod: PodState; due: number }[] = [];
  private events: { namespace: string; name: string }[] = [];
  private eventSeq = 0;
  /** Kubelet status trees by shape: they do not depend on the app, so all apps share them. */
  private readonly statusFields: PodFieldsCache['status'] = new Map();
  /** Apps whose controller managedFields tree is cached, least recently used first (the trees are big; a few suffice). */
  private readonly treeCached = new Set<AppState>();
  private timer: unknown;
  private lastTick = 0;
  /** The whole second the churn's timestamps count from (see churnTime). */
  private anchorMs = 0;
  /** Wall time the catch-up bound dropped, not yet moved into anchorMs. */
  private lostMs = 0;
  /** The whole second populate() stamped its objects with. */
  private populatedMs = 0;
  /** Writes owed (positive) or written ahead (negative) against the churn rate. */
  private budget = 0;
  /** Write units spent since start(): the churn's own clock, which wall time only paces (see scheduleMs). */
  private spent = 0;
  /** Writes done, by verb — for tests and the demo's summary. */
  readonly writes = { create: 0, update: 0, delete: 0 };

  constructor(
    private readonly api: SimApi,
    private readonly opts: WorkloadOptions,
    clock: WorkloadClock = {},
  ) {
    this.rand = new SeededRandom(opts.seed);
    this.setIntervalFn = clock.setInterval ?? ((fn, ms) => setInterval(fn, ms));
    this.clearIntervalFn = clock.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>));
    this.now = clock.now ?? Date.now;
  }

  // ---- populate ---------------------------------------------------------------------------------

  /** Creates the whole cluster synchronously. Objects that already exist (e.g. `default`) are kept. */
  populate(): void {
    this.populatedMs = Math.floor(this.now() / 1000) * 1000;
    const time = kubeTime(this.populatedMs);
    const appNamespaces = APP_NAMESPACES.slice(0, Math.min(APP_NAMESPACES.length, Math.max(2, Math.ceil(this.opts.pods / 500))));
    for (const ns of [...SYSTEM_NAMESPACES, ...appNamespaces]) {
      this.ensure(REF.namespaces, undefined, namespaceObject(ns));
      this.ensure(REF.configmaps, ns, configMapObject(ns, 'kube-root-ca.crt', { 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIBsim\n-----END CERTIFICATE-----\n' }));
    }
    this.ensure(REF.services, 'default', serviceObject('default', 'kubernetes', undefined, '10.96.0.1', 443, 6443));

    const width = Math.max(3, String(this.opts.nodes).length);
    for (let i = 0; i < this.opts.nodes; i++) {
      const name = `node-${String(i + 1).padStart(width, '0')}`;
      const node: NodeState = { name, ip: `10.0.${(i >> 8) & 255}.${(i & 255) + 1}`, index: i, nextPodIP: 2 };
      const created = this.ensure(REF.nodes, undefined, nodeObject({
        name, zone: ZONES[i % ZONES.length], instanceType: this.rand.pick(INSTANCE_TYPES), internalIP: node.ip,
        podCIDR: podCIDR(i), time, machineID: this.rand.hex(32),
      }));
      node.uid = created?.metadata.uid;
      this.ensure(REF.leases, 'kube-node-lease', leaseObject(name, node.uid, time));
      this.nodes.push(node);
    }

    // Deployments until their replicas add up to opts.pods; CoreDNS first, as in every cluster.
    let remaining = this.opts.pods;
    const used = new Set<string>();
    const plans: PodPlan[] = [];
    while (remaining > 0) {
      const first = this.apps.length === 0;
      const replicas = Math.min(remaining, first ? 2 : this.rand.between(1, 12));
      // The second app lives in `default`, so `kubectl get pods` and `kwatch events pods` without -n
      // show something (the pick still happens, to keep every seed's sequence unchanged).
      const picked = first ? 'kube-system' : this.rand.pick(appNamespaces);
      const namespace = this.apps.length === 1 ? 'default' : picked;
      let name = first ? 'coredns' : `${this.rand.pick(APP_WORDS)}-${this.rand.pick(APP_ROLES)}`;
      if (used.has(`${namespace}/${name}`)) name = `${name}-${this.apps.length}`;
      used.add(`${namespace}/${name}`);
      this.createApp(namespace, name, replicas, time, plans);
      remaining -= replicas;
    }
    // Pods are created in key order: a store that keeps sorted keys then only ever appends.
    plans.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const plan of plans) this.createPod(plan.app, plan.node, plan.running, time, plan.name);

    // A bounded history of what scheduling and starting those pods looked like.
    for (const pod of this.allPods.slice(0, Math.floor(POPULATE_EVENTS / 3))) {
      if (!pod.node) continue;
      this.podEvent(pod, 'Scheduled', `Successfully assigned ${pod.app.namespace}/${pod.name} to ${pod.node.name}`, 'default-scheduler', time);
      if (pod.running) {
        this.podEvent(pod, 'Pulled', `Container image "${pod.app.template.image}" already present on machine`, 'kubelet', time);
        this.podEvent(pod, 'Started', `Started container ${pod.app.template.app}`, 'kubelet', time);
      }
    }
  }

  /** Creates an app's ConfigMap, Service, Deployment and ReplicaSet, and plans its pods. */
  private createApp(namespace: string, name: string, replicas: number, time: string, plans: PodPlan[]): void {
    const r = this.rand;
    const template: AppTemplate = {
      app: name, tier: r.pick(['frontend', 'backend', 'data']), image: r.pick(IMAGES), imageID: '', port: r.pick([8080, 8443, 9090, 3000]),
      cpuRequest: r.pick(['50m', '100m', '250m']), memoryRequest: r.pick(['64Mi', '128Mi', '256Mi']),
      cpuLimit: r.pick(['500m', '1', '2']), memoryLimit: r.pick(['512Mi', '1Gi']), logLevel: r.pick(['info', 'debug', 'warn']),
      configMap: `${name}-config`,
    };
    template.imageID = `${template.image.split(':')[0]}@sha256:${r.hex(64)}`;
    const hash = r.name(10);
    const time0 = { namespace, name, template, replicas, time };
    this.ensure(REF.configmaps, namespace, configMapObject(namespace, template.configMap, { 'config.yaml': `logLevel: ${template.logLevel}\nport: ${template.port}\n` }));
    this.ensure(REF.services, namespace, serviceObject(namespace, name, name, `10.96.${1 + (this.apps.length >> 8) % 250}.${(this.apps.length & 255)}`, 80, template.port));
    const deployment = this.ensure(REF.deployments, namespace, deploymentObject(time0));
    const deploymentUid = deployment?.metadata.uid ?? '';
    const rs = this.ensure(REF.replicasets, namespace, replicaSetObject({ ...time0, hash, deploymentUid }));
    const app: AppState = {
      namespace, name, template, hash, tokenSuffix: r.name(5), replicaSet: { name: `${name}-${hash}`, uid: rs?.metadata.uid ?? '' },
      deploymentUid, replicas, maxReplicas: replicas * 2, pods: [], fieldsCache: { status: this.statusFields },
    };
    this.apps.push(app);
    const names = new Set<string>();
    for (let i = 0; i < replicas; i++) {
      // Most pods run; a few still wait for their containers, fewer still for a node.
      const roll = r.next();
      const node = roll < 0.01 || this.nodes.length === 0 ? undefined : r.pick(this.nodes);
      let podName = `${app.replicaSet.name}-${r.name(5)}`;
      while (names.has(podName)) podName = `${app.replicaSet.name}-${r.name(5)}`;
      names.add(podName);
      plans.push({ key: `${namespace}/${podName}`, name: podName, app, node, running: node !== undefined && roll >= 0.05 });
    }
  }

  private createPod(app: AppState, node: NodeState | undefined, running: boolean, time: string, planned?: string): PodState | undefined {
    let name = planned ?? `${app.replicaSet.name}-${this.rand.name(5)}`;
    while (!planned && app.pods.some((p) => p.name === name)) name = `${app.replicaSet.name}-${this.rand.name(5)}`;
    const pod: PodState = { name, app, node, running, index: -1 };
    const created = this.write('create', () => this.api.create(REF.pods, this.podBody(pod, time, 0, node ? this.nextPodIP(node) : undefined)));
    if (!created) return undefined;
    pod.index = this.allPods.length;
    this.allPods.push(pod);
    app.pods.push(pod);
    return pod;
  }

  private podBody(pod: PodState, time: string, restartCount: number, podIP: string | undefined): SimObject {
    const app = pod.app;
    this.treeCached.delete(app);
    this.treeCached.add(app);
    if (this.treeCached.size > TREE_CACHE_APPS) {
      const oldest = this.treeCached.values().next().value!;
      this.treeCached.delete(oldest);
      oldest.fieldsCache.controller = undefined;
    }
    return podObject({
      namespace: app.namespace, name: pod.name, template: app.template, hash: app.hash, replicaSet: app.replicaSet,
      node: pod.node ? { name: pod.node.name, ip: pod.node.ip } : undefined, nodeCount: this.nodes.length, podIP, phase: pod.running ? 'Running' : 'Pending', time,
      containerID: this.rand.hex(64), tokenVolumeSuffix: app.tokenSuffix, restartCount, managedFields: this.opts.managedFields,
      fieldsCache: app.fieldsCache,
    });
  }

  private nextPodIP(node: NodeState): string {
    const host = node.nextPodIP;
    node.nextPodIP = host >= 254 ? 2 : host + 1;
    const i = node.index;
    return `10.${64 + ((i >> 8) & 63)}.${i & 255}.${host}`;
  }

  // ---- churn ------------------------------------------------------------------------------------

  /** Starts writing opts.churn changes per second; a no-op when churn is 0 or already started. */
  start(): void {
    if (this.opts.churn <= 0 || this.timer !== undefined) return;
    this.lastTick = this.now();
    // After populate's second: the first heartbeat of a node must change it, however soon the churn starts.
    this.anchorMs = Math.max(Math.floor(this.lastTick / 1000) * 1000, this.populatedMs + 1000);
    this.timer = this.setIntervalFn(() => this.tick(), TICK_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.timer === undefined) return;
    this.clearIntervalFn(this.timer);
    this.timer = undefined;
  }

  /**
   * One churn step: spend the writes owed for the time elapsed since the last tick. Wall time decides only how many
   * writes happen now; which writes, and in what order, follow the seed alone: a late tick (a loaded machine) writes
   * the same sequence, later or in one batch.
   */
  tick(): void {
    const now = this.now();
    const gap = Math.max(0, now - this.lastTick);
    const elapsed = Math.min(gap, MAX_CATCH_UP_MS);
    this.lastTick = now;
    this.budget += (this.opts.churn * elapsed) / 1000;
    // Time the bound drops moves the timestamps on by whole seconds, so they do not fall ever further behind.
    this.lostMs += gap - elapsed;
    const lostSeconds = Math.floor(this.lostMs / 1000);
    this.anchorMs += lostSeconds * 1000;
    this.lostMs -= lostSeconds * 1000;
    let guard = 0;
    while (this.budget >= 1 && guard++ < 10_000) {
      const before = this.writeCount();
      const time = this.churnTime();
      const due = this.pending[0];
      if (due && due.due <= this.scheduleMs()) {
        this.pending.shift();
        this.promote(due.pod, time);
      } else {
        this.act(this.pickAction(), time);
      }
      // An action that found nothing to do still costs one unit, so a bare cluster cannot spin.
      const cost = Math.max(1, this.writeCount() - before);
      this.budget -= cost;
      this.spent += cost;
    }
  }

  /**
   * Where the churn is in its schedule, in ms since start(): the time the writes spent so far take at the churn rate.
   * Pending pods are promoted by it rather than by the wall clock, so a late tick cannot move a promotion ahead of
   * an action (which would also change what the seeded picks land on).
   */
  private scheduleMs(): number {
    return (this.spent * 1000) / this.opts.churn;
  }

  /**
   * The timestamp the next write carries: its place in the schedule, counted from a whole second. A write is then a
   * no-op (a node heartbeat in the same second as the node's last one: no revision, no event) for the seed alone, not
   * for where the wall clock's seconds fall, so the same seed gives the same resourceVersions too. It runs at most a
   * second ahead of the wall clock (a churn started within populate's second) and a second or two behind it, as a
   * write waits for the budget its place in the schedule needs (kubectl shows up to 2 s ahead as 0s: apimachinery's
   * util/duration HumanDuration).
   */
  private churnTime(): string {
    return kubeTime(this.anchorMs + this.scheduleMs());
  }

  private writeCount(): number {
    return this.writes.create + this.writes.update + this.writes.delete;
  }

  private pickAction(): ChurnAction {
    let roll = this.rand.int(100);
    for (const [action, weight] of ACTIONS) {
      if (roll < weight) return action;
      roll -= weight;
    }
    return 'renewLease';
  }

  private act(action: ChurnAction, time: string): void {
    switch (action) {
      case 'replacePod': return this.replacePod(time);
      case 'restartContainer': return this.restartContainer(time);
      case 'relabelPod': return this.relabelPod();
      case 'renewLease': return this.renewLease(time);
      case 'nodeHeartbeat': return this.nodeHeartbeat(time);
      case 'scale': return this.scale(time);
    }
  }

  /** The ReplicaSet replaces a deleted pod: delete, then a new Pending pod that runs a tick later. */
  private replacePod(time: string): void {
    const pod = this.randomPod();
    if (!pod) return;
    this.deletePod(pod, time);
    this.addPendingPod(pod.app, time);
  }

  private addPendingPod(app: AppState, time: string): void {
    const node = this.nodes.length ? this.rand.pick(this.nodes) : undefined;
    const created = this.createPod(app, node, false, time);
    if (!created) return;
    this.event(app.namespace, { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: app.namespace, name: app.replicaSet.name, uid: app.replicaSet.uid }, 'SuccessfulCreate', `Created pod: ${created.name}`, 'replicaset-controller', time);
    if (node) {
      this.podEvent(created, 'Scheduled', `Successfully assigned ${app.namespace}/${created.name} to ${node.name}`, 'default-scheduler', time);
      // The container starts 1-3 s later, on the churn's schedule (not the wall clock's: see scheduleMs).
      this.pending.push({ pod: created, due: this.scheduleMs() + 1000 + this.rand.int(2000) });
    }
  }

  private deletePod(pod: PodState, time: string): void {
    this.forgetPod(pod);
    if (this.write('delete', () => this.api.delete(REF.pods, pod.app.namespace, pod.name))) {
      this.podEvent(pod, 'Killing', `Stopping container ${pod.app.template.app}`, 'kubelet', time);
    }
  }

  /** Pending → Running: what the kubelet reports once the container started. */
  private promote(pod: PodState, time: string): void {
    if (pod.index < 0) return; // deleted meanwhile
    const current = this.api.get(REF.pods, pod.app.namespace, pod.name);
    if (!current || !pod.node) return;
    pod.running = true;
    const body = this.podBody(pod, time, 0, this.nextPodIP(pod.node));
    body.metadata = { ...structuredClone(current.metadata), managedFields: body.metadata.managedFields ?? current.metadata.managedFields };
    if (this.write('update', () => this.api.update(REF.pods, body))) {
      this.podEvent(pod, 'Started', `Started container ${pod.app.template.app}`, 'kubelet', time);
    }
  }

  private restartContainer(time: string): void {
    const pod = this.randomPod((p) => p.running);
    if (!pod) return;
    const current = this.api.get(REF.pods, pod.app.namespace, pod.name) as any;
    if (!current?.status?.containerStatuses) return;
    const next = structuredClone(current);
    const cs = next.status.containerStatuses[0];
    cs.restartCount = (cs.restartCount ?? 0) + 1;
    cs.lastState = { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: cs.state?.running?.startedAt ?? time, finishedAt: time, containerID: cs.containerID } };
    cs.state = { running: { startedAt: time } };
    if (this.write('update', () => this.api.update(REF.pods, next))) {
      this.podEvent(pod, 'BackOff', `Back-off restarting failed container ${pod.app.template.app} in pod ${pod.name}_${pod.app.namespace}`, 'kubelet', time, 'Warning');
    }
  }

  /** A label outside the selector flips (e.g. a canary marker), or an annotation is bumped. */
  private relabelPod(): void {
    const pod = this.randomPod();
    if (!pod) return;
    const current = this.api.get(REF.pods, pod.app.namespace, pod.name);
    if (!current) return;
    const next = structuredClone(current);
    if (this.rand.chance(0.5)) {
      const labels = (next.metadata.labels ??= {});
      labels.track = labels.track === 'canary' ? 'stable' : 'canary';
    } else {
      const annotations = (next.metadata.annotations ??= {});
      annotations['sim.kwatch.io/touched'] = String(Number(annotations['sim.kwatch.io/touched'] ?? 0) + 1);
    }
    this.write('update', () => this.api.update(REF.pods, next));
  }

  private renewLease(time: string): void {
    if (!this.nodes.length) return;
    const node = this.rand.pick(this.nodes);
    const current = this.api.get(REF.leases, 'kube-node-lease', node.name) as any;
    if (!current) return;
    const next = structuredClone(current);
    next.spec.renewTime = `${time.slice(0, -1)}.${String(this.rand.int(1e6)).padStart(6, '0')}Z`;
    this.write('update', () => this.api.update(REF.leases, next));
  }

  private nodeHeartbeat(time: string): void {
    if (!this.nodes.length) return;
    const node = this.rand.pick(this.nodes);
    const current = this.api.get(REF.nodes, undefined, node.name) as any;
    // Someone deleted the node: stop placing pods there (the pods on it go by pod garbage collection).
    if (!current) { this.nodes.splice(this.nodes.indexOf(node), 1); return; }
    if (!current?.status?.conditions) return;
    const next = structuredClone(current);
    for (const c of next.status.conditions) c.lastHeartbeatTime = time;
    this.write('update', () => this.api.update(REF.nodes, next));
  }

  /** A Deployment scales by one, bounded by twice its initial size; its ReplicaSet follows. */
  private scale(time: string): void {
    if (!this.apps.length) return;
    const app = this.rand.pick(this.apps);
    const up = app.replicas <= 1 || (app.replicas < app.maxReplicas && this.rand.chance(0.5));
    const replicas = app.replicas + (up ? 1 : -1);
    const deployment = this.api.get(REF.deployments, app.namespace, app.name);
    const rs = this.api.get(REF.replicasets, app.namespace, app.replicaSet.name);
    if (!deployment || !rs) return;
    app.replicas = replicas;
    this.write('update', () => this.api.update(REF.deployments, withReplicas(deployment, replicas, time)));
    this.event(app.namespace, { kind: 'Deployment', apiVersion: 'apps/v1', namespace: app.namespace, name: app.name, uid: app.deploymentUid }, 'ScalingReplicaSet', `Scaled ${up ? 'up' : 'down'} replica set ${app.replicaSet.name} to ${replicas} from ${replicas + (up ? -1 : 1)}`, 'deployment-controller', time);
    this.write('update', () => this.api.update(REF.replicasets, withReplicas(rs, replicas, time)));
    if (up) {
      this.addPendingPod(app, time);
    } else if (app.pods.length) {
      const victim = this.rand.pick(app.pods);
      this.deletePod(victim, time);
      this.event(app.namespace, { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: app.namespace, name: app.replicaSet.name, uid: app.replicaSet.uid }, 'SuccessfulDelete', `Deleted pod: ${victim.name}`, 'replicaset-controller', time);
    }
  }

  // ---- bookkeeping ------------------------------------------------------------------------------

  private randomPod(filter?: (p: PodState) => boolean): PodState | undefined {
    for (let attempt = 0; attempt < 8 && this.allPods.length; attempt++) {
      const pod = this.rand.pick(this.allPods);
      if (!filter || filter(pod)) return pod;
    }
    return undefined;
  }

  /** O(1) removal: the last pod takes the removed pod's slot. */
  private forgetPod(pod: PodState): void {
    if (pod.index < 0) return;
    const last = this.allPods.pop()!;
    if (last !== pod) {
      this.allPods[pod.index] = last;
      last.index = pod.index;
    }
    pod.index = -1;
    const siblings = pod.app.pods;
    const i = siblings.indexOf(pod);
    if (i >= 0) siblings.splice(i, 1);
  }

  private podEvent(pod: PodState, reason: string, message: string, component: string, time: string, type?: 'Normal' | 'Warning'): void {
    const fieldPath = component === 'kubelet' ? `spec.containers{${pod.app.template.app}}` : undefined;
    this.event(pod.app.namespace, { kind: 'Pod', apiVersion: 'v1', namespace: pod.app.namespace, name: pod.name, ...(fieldPath ? { fieldPath } : {}) }, reason, message, component, time, pod.node?.name, type);
  }

  private event(namespace: string, involved: EventParams['involved'], reason: string, message: string, component: string, time: string, host?: string, type?: 'Normal' | 'Warning'): void {
    // kube names events "<object>.<16 hex digits>"; the counter keeps them unique and deterministic.
    const name = `${involved.name}.${(0x17f0000000000000n + BigInt(++this.eventSeq)).toString(16)}`;
    const created = this.write('create', () => this.api.create(REF.events, eventObject({ namespace, name, involved, reason, message, component, host, time, type })));
    if (!created) return;
    this.events.push({ namespace, name });
    while (this.events.length > EVENT_CAP) {
      const old = this.events.shift()!;
      this.write('delete', () => this.api.delete(REF.events, old.namespace, old.name));
    }
  }

  /** Creates obj unless it exists already (the server may seed `default` and friends itself). */
  private ensure(ref: SimResourceRef, namespace: string | undefined, obj: SimObject): SimObject | undefined {
    const existing = this.api.get(ref, namespace, obj.metadata.name!);
    if (existing) return existing;
    return this.write('create', () => this.api.create(ref, obj));
  }

  /**
   * Runs one API write and counts it. Status errors (someone deleted or changed the object under
   * us, e.g. with kubectl) skip the write instead of stopping the churn.
   */
  private write(verb: 'create' | 'update' | 'delete', fn: () => SimObject): SimObject | undefined {
    try {
      const result = fn();
      this.writes[verb]++;
      return result;
    } catch (e) {
      if (e instanceof SimApiError) return undefined;
      throw e;
    }
  }
}

function podCIDR(i: number): string {
  return `10.${64 + ((i >> 8) & 63)}.${i & 255}.0/24`;
}
