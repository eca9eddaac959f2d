import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimApiError, type SimApi, type SimObject, type SimResourceRef } from '../../src/sim/api.js';
import { WorkloadGenerator, type WorkloadOptions } from '../../src/sim/workload.js';

/** A minimal store with the SimApi contract: one revision counter, uids, 404/409, each object's JSON on demand. */
class FakeSimApi implements SimApi {
  readonly objects = new Map<string, Map<string, { obj: SimObject }>>();
  private rev = 0;
  private uid = 0;

  private bucket(ref: SimResourceRef): Map<string, { obj: SimObject }> {
    const k = `${ref.group}/${ref.resource}`;
    let b = this.objects.get(k);
    if (!b) this.objects.set(k, (b = new Map()));
    return b;
  }

  private fail(code: number, reason: string, message: string): never {
    throw new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  }

  create(ref: SimResourceRef, obj: SimObject): SimObject {
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
    const b = this.bucket(ref);
    if (b.has(key)) this.fail(409, 'AlreadyExists', `${ref.resource} "${obj.metadata.name}" already exists`);
    const stored = { ...obj, metadata: { ...obj.metadata, uid: `uid-${++this.uid}`, resourceVersion: String(++this.rev), creationTimestamp: '2025-01-01T00:00:00Z' } };
    b.set(key, { obj: stored });
    return stored;
  }

  update(ref: SimResourceRef, obj: SimObject): SimObject {
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
    const b = this.bucket(ref);
    const cur = b.get(key);
    if (!cur) this.fail(404, 'NotFound', `${ref.resource} "${obj.metadata.name}" not found`);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== cur.obj.metadata.resourceVersion) this.fail(409, 'Conflict', 'conflict');
    const stored = { ...obj, metadata: { ...obj.metadata, uid: cur.obj.metadata.uid, resourceVersion: String(++this.rev) } };
    b.set(key, { obj: stored });
    return stored;
  }

  delete(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject {
    const b = this.bucket(ref);
    const cur = b.get(`${namespace ?? ''}/${name}`);
    if (!cur) this.fail(404, 'NotFound', `${ref.resource} "${name}" not found`);
    b.delete(`${namespace ?? ''}/${name}`);
    return { ...cur.obj, metadata: { ...cur.obj.metadata, resourceVersion: String(++this.rev) } };
  }

  get(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject | undefined {
    return this.bucket(ref).get(`${namespace ?? ''}/${name}`)?.obj;
  }

  list(ref: SimResourceRef, namespace?: string): SimObject[] {
    return [...this.bucket(ref).values()].map((e) => e.obj).filter((o) => namespace === undefined || o.metadata.namespace === namespace);
  }

  currentRevision(): number {
    return this.rev;
  }

  /** The objects as JSON, serialised when asked (not on every write: 20k pods of 6 KB took seconds and 120 MB). */
  jsonOf(resource: string): string[] {
    return [...(this.objects.get(resource)?.values() ?? [])].map((e) => JSON.stringify(e.obj));
  }
}

/** A FakeSimApi that logs each write as "verb resource namespace/name", in order. */
class RecordingSimApi extends FakeSimApi {
  readonly log: string[] = [];

  override create(ref: SimResourceRef, obj: SimObject): SimObject {
    const stored = super.create(ref, obj);
    this.log.push(`create ${ref.resource} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`);
    return stored;
  }

  override update(ref: SimResourceRef, obj: SimObject): SimObject {
    const stored = super.update(ref, obj);
    this.log.push(`update ${ref.resource} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`);
    return stored;
  }

  override delete(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject {
    const gone = super.delete(ref, namespace, name);
    this.log.push(`delete ${ref.resource} ${namespace ?? ''}/${name}`);
    return gone;
  }
}

const POD = { group: '', version: 'v1', resource: 'pods' };
const RS = { group: 'apps', version: 'v1', resource: 'replicasets' };
const DEPLOY = { group: 'apps', version: 'v1', resource: 'deployments' };
const NODE = { group: '', version: 'v1', resource: 'nodes' };
const FIXED_NOW = Date.parse('2025-06-01T12:00:00Z');

const options = (o: Partial<WorkloadOptions> = {}): WorkloadOptions => ({ seed: 42, nodes: 5, pods: 200, churn: 0, managedFields: true, ...o });

function populated(o: Partial<WorkloadOptions> = {}): { api: FakeSimApi; gen: WorkloadGenerator } {
  const api = new FakeSimApi();
  const gen = new WorkloadGenerator(api, options(o), { now: () => FIXED_NOW });
  gen.populate();
  return { api, gen };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('workload populate', () => {
  it('is deterministic: the same seed and clock build byte-identical objects', () => {
    const a = populated().api;
    const b = populated().api;
    for (const resource of ['/pods', 'apps/deployments', 'apps/replicasets', '/nodes', '/events', '/services']) {
      expect(a.jsonOf(resource)).toEqual(b.jsonOf(resource));
    }
    expect(populated({ seed: 7 }).api.jsonOf('/pods')).not.toEqual(a.jsonOf('/pods'));
  });

  it('creates exactly the requested numbers of pods and nodes, plus the system namespaces', () => {
    const { api } = populated({ nodes: 7, pods: 333 });
    expect(api.list(POD)).toHaveLength(333);
    expect(api.list(NODE).map((n) => n.metadata.name)).toEqual(['node-001', 'node-002', 'node-003', 'node-004', 'node-005', 'node-006', 'node-007']);
    const namespaces = api.list({ group: '', version: 'v1', resource: 'namespaces' }).map((n) => n.metadata.name);
    expect(namespaces).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
    expect(api.list({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' })).toHaveLength(7);
  });

  it('keeps existing objects such as a pre-seeded default namespace', () => {
    const api = new FakeSimApi();
    api.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'default' } });
    new WorkloadGenerator(api, options(), { now: () => FIXED_NOW }).populate();
    expect(api.list(POD)).toHaveLength(200);
  });

  it('chains ownership Deployment → ReplicaSet → Pod with controller references and matching selectors', () => {
    const { api } = populated();
    const deployments = new Map(api.list(DEPLOY).map((d) => [d.metadata.uid, d] as const));
    const replicaSets = new Map(api.list(RS).map((r) => [r.metadata.uid, r] as const));
    let replicas = 0;
    for (const rs of replicaSets.values()) {
      const [owner] = rs.metadata.ownerReferences!;
      expect(owner).toMatchObject({ kind: 'Deployment', apiVersion: 'apps/v1', controller: true, blockOwnerDeletion: true });
      const deployment = deployments.get(owner.uid)!;
      expect(deployment.metadata.name).toBe(owner.name);
      expect(rs.metadata.name).toBe(`${owner.name}-${rs.metadata.labels!['pod-template-hash']}`);
      replicas += (rs.spec as any).replicas;
    }
    expect(replicas).toBe(200);
    for (const pod of api.list(POD)) {
      const [owner] = pod.metadata.ownerReferences!;
      expect(owner).toMatchObject({ kind: 'ReplicaSet', controller: true });
      const rs = replicaSets.get(owner.uid)!;
      expect(rs.metadata.name).toBe(owner.name);
      for (const [k, v] of Object.entries((rs.spec as any).selector.matchLabels)) expect(pod.metadata.labels![k]).toBe(v);
      expect(pod.metadata.name!.startsWith(`${rs.metadata.name}-`)).toBe(true);
    }
  });

  it('schedules most pods onto known nodes and runs most of them', () => {
    const { api } = populated({ pods: 1000 });
    const nodes = new Set(api.list(NODE).map((n) => n.metadata.name));
    const pods = api.list(POD) as any[];
    const running = pods.filter((p) => p.status.phase === 'Running');
    expect(running.length / pods.length).toBeGreaterThan(0.9);
    expect(pods.some((p) => p.status.phase === 'Pending')).toBe(true);
    for (const p of running) {
      expect(nodes.has(p.spec.nodeName)).toBe(true);
      expect(p.status.podIP).toBe(p.status.podIPs[0].ip);
      expect(p.status.containerStatuses[0].ready).toBe(true);
    }
  });

  it('writes pods of about 6 KB with managedFields and clearly smaller without', () => {
    const avg = (jsons: string[]): number => jsons.reduce((n, j) => n + j.length, 0) / jsons.length;
    const withFields = avg(populated().api.jsonOf('/pods'));
    const without = avg(populated({ managedFields: false }).api.jsonOf('/pods'));
    expect(withFields).toBeGreaterThan(5500);
    expect(withFields).toBeLessThan(7000);
    expect(without).toBeLessThan(withFields - 1500);
  });

  it('writes managedFields like kube-controller-manager and the kubelet', () => {
    const pod = populated().api.list(POD).find((p) => (p.status as any).phase === 'Running')!;
    const [cm, kubelet] = pod.metadata.managedFields as any[];
    expect(cm).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update', fieldsType: 'FieldsV1' });
    expect(cm.fieldsV1['f:spec']['f:containers']).toHaveProperty([`k:{"name":"${(pod.spec as any).containers[0].name}"}`]);
    expect(kubelet).toMatchObject({ manager: 'kubelet', subresource: 'status' });
    expect(kubelet.fieldsV1['f:status']['f:podIPs']).toHaveProperty([`k:{"ip":"${(pod.status as any).podIP}"}`]);
  });

  it('bounds the Events it writes however many pods there are', () => {
    expect(populated({ pods: 2000 }).api.list({ group: '', version: 'v1', resource: 'events' }).length).toBeLessThanOrEqual(300);
  });

  // How fast is bench/sim-throughput.js's business (its populate figures); here that a large population is whole.
  it('populates 20k pods over 50 nodes', () => {
    const sim = populated({ pods: 20_000, nodes: 50 });
    expect(sim.api.list({ group: '', version: 'v1', resource: 'pods' }).length).toBe(20_000);
    expect(sim.api.list({ group: '', version: 'v1', resource: 'nodes' }).length).toBe(50);
  });
});

describe('workload churn', () => {
  function churning(churn: number): { api: FakeSimApi; gen: WorkloadGenerator } {
    vi.useFakeTimers({ now: FIXED_NOW });
    const api = new FakeSimApi();
    const gen = new WorkloadGenerator(api, options({ churn }));
    gen.populate();
    return { api, gen };
  }

  it('writes about `churn` changes per second: creates, updates and deletes', () => {
    const { api, gen } = churning(100);
    const before = { ...gen.writes };
    const rev0 = api.currentRevision();
    gen.start();
    vi.advanceTimersByTime(10_000);
    gen.stop();
    const writes = api.currentRevision() - rev0;
    expect(writes).toBeGreaterThanOrEqual(950);
    expect(writes).toBeLessThanOrEqual(1010);
    expect(gen.writes.create - before.create).toBeGreaterThan(50);
    expect(gen.writes.update - before.update).toBeGreaterThan(100);
    expect(gen.writes.delete - before.delete).toBeGreaterThan(20);
  });

  it('keeps the pod count near the requested total and every pod owned by a live ReplicaSet', () => {
    const { api, gen } = churning(200);
    gen.start();
    vi.advanceTimersByTime(20_000);
    gen.stop();
    const pods = api.list(POD);
    expect(pods.length).toBeGreaterThan(150);
    expect(pods.length).toBeLessThan(260);
    const rsUids = new Set(api.list(RS).map((r) => r.metadata.uid));
    for (const p of pods) expect(rsUids.has(p.metadata.ownerReferences![0].uid)).toBe(true);
  });

  it('moves replacement pods from Pending to Running', () => {
    const { api, gen } = churning(200);
    const initial = new Set(api.list(POD).map((p) => p.metadata.name));
    gen.start();
    vi.advanceTimersByTime(10_000);
    gen.stop();
    const fresh = api.list(POD).filter((p) => !initial.has(p.metadata.name)) as any[];
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.some((p) => p.status.phase === 'Running' && p.status.podIP)).toBe(true);
  });

  it('writes Events for what happens, capped at a bounded number', () => {
    const { api, gen } = churning(1000);
    gen.start();
    vi.advanceTimersByTime(30_000);
    gen.stop();
    const events = api.list({ group: '', version: 'v1', resource: 'events' }) as any[];
    expect(events.length).toBeLessThanOrEqual(1000);
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['Killing', 'Scheduled', 'Started', 'SuccessfulCreate']));
  });

  it('does nothing with churn 0, and stops writing after stop()', () => {
    const idle = churning(0);
    const rev = idle.api.currentRevision();
    idle.gen.start();
    vi.advanceTimersByTime(5_000);
    expect(idle.api.currentRevision()).toBe(rev);

    const busy = churning(50);
    busy.gen.start();
    vi.advanceTimersByTime(1_000);
    busy.gen.stop();
    const after = busy.api.currentRevision();
    vi.advanceTimersByTime(5_000);
    expect(busy.api.currentRevision()).toBe(after);
  });

  it('writes the seeded sequence however late its ticks come (a loaded machine): pending pods start by the churn\'s schedule', () => {
    /** The first `count` writes when tick k comes `gaps[k % gaps.length]` ms after the one before (a fake clock). */
    function firstWrites(gaps: number[], count: number): string[] {
      const api = new RecordingSimApi();
      let t = FIXED_NOW;
      const gen = new WorkloadGenerator(api, options({ churn: 20, pods: 60 }), { now: () => t, setInterval: () => 1, clearInterval: () => {} });
      gen.populate();
      api.log.length = 0;
      gen.start();
      for (let k = 0; api.log.length < count && k < 100_000; k++) {
        t += gaps[k % gaps.length];
        gen.tick();
      }
      gen.stop();
      return api.log.slice(0, count);
    }
    const onTime = firstWrites([100], 400);
    expect(onTime.filter((w) => w.startsWith('update pods ')).length).toBeGreaterThan(20);
    // The first tick 5 s late (past the 1 s catch-up bound), then on time; ticks that come in lumps; all late.
    expect(firstWrites([5000, ...Array(200).fill(100)], 400)).toEqual(onTime);
    expect(firstWrites([100, 900, 300, 1000, 50, 2500], 400)).toEqual(onTime);
    expect(firstWrites([1000], 400)).toEqual(onTime);
    // What a `kwatch events pods` in `default` sees first is part of it.
    expect(onTime.filter((w) => w.includes(' pods default/')).length).toBeGreaterThan(3);
  });

  it('survives objects deleted behind its back', () => {
    const { api, gen } = churning(500);
    for (const p of api.list(POD).slice(0, 100)) api.delete(POD, p.metadata.namespace, p.metadata.name!);
    gen.start();
    expect(() => vi.advanceTimersByTime(5_000)).not.toThrow();
    gen.stop();
  });
});

describe('WorkloadGenerator: unscheduled pods', () => {
  it("say how many nodes the cluster really has (0/20 nodes are available on a 20-node sim, not 0/3)", () => {
    const { api } = populated({ nodes: 20, pods: 1500 });
    const pending = [...(api.objects.get('/pods')?.values() ?? [])].map((e) => e.obj).filter((p) => !(p.spec as { nodeName?: string }).nodeName);
    expect(pending.length).toBeGreaterThan(0);
    for (const p of pending) {
      const scheduled = ((p.status as { conditions: { type: string; message?: string }[] }).conditions).find((c) => c.type === 'PodScheduled')!;
      expect(scheduled.message).toMatch(/^0\/20 nodes are available: 20 Insufficient cpu\. preemption: 0\/20 nodes are available: 20 /);
    }
  });
});
