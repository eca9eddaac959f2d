// The quota controller keeps status.used from the change events (issue 43): usage is right as soon as its queue runs
// after creates, deletes and updates that change requests, and a namespace is counted in full only when a quota is
// new or its spec changed — never once per write. A fake clock runs the queue, so nothing here depends on speed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { ResourceQuotaController, quotaUsage } from '../../src/sim/controllers/resourcequota-controller.js';
import { SimStore } from '../../src/sim/store.js';
import { NAMESPACES, PODS } from './sim-helpers.js';

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

let controller: ResourceQuotaController | undefined;
beforeEach(() => { vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] }); });
afterEach(() => {
  controller?.queue.stop();
  controller = undefined;
  vi.useRealTimers();
});

function setup(): { store: SimStore; quota: ResourceQuotaController } {
  const store = new SimStore();
  store.create(NAMESPACES, { metadata: { name: 'team' } });
  const quota = (controller = new ResourceQuotaController(store));
  store.onCommit((change, type) => { if (type.namespaced) quota.observe(change, type); });
  return { store, quota };
}

const pod = (name: string, cpu: string, extra: Record<string, unknown> = {}): SimObject => ({
  metadata: { name, namespace: 'team' },
  spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu, memory: '64Mi' }, limits: { memory: '128Mi' } } }], ...extra },
});
const used = (store: SimStore, name = 'q'): Record<string, string> => (store.get(QUOTAS, 'team', name) as any)?.status?.used;
/**
 * Lets the controller's queue run (its keys wait 10 ms to share a write, and 100 ms after its last write of the
 * namespace; the old recount waited up to 1 s).
 */
const settle = (): void => { vi.advanceTimersByTime(200); };
const quotaWrites = (store: SimStore): { count: number } => {
  const seen = { count: 0 };
  store.onCommit((c, t) => { if (t.resource === 'resourcequotas' && c.type === 'MODIFIED') seen.count++; });
  return seen;
};

describe('the quota controller counts from the change events', () => {
  it('has status.used right after creates, deletes, a finished pod and an update that changes requests', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '100', 'requests.cpu': '10', 'requests.memory': '1Gi', 'limits.memory': '2Gi', 'count/configmaps': '5' } } });
    settle();
    expect(used(store)).toEqual({ pods: '0', 'requests.cpu': '0', 'requests.memory': '0', 'limits.memory': '0', 'count/configmaps': '0' });

    store.create(PODS, pod('a', '250m'));
    store.create(PODS, pod('b', '500m'));
    store.create(CONFIGMAPS, { metadata: { name: 'cm', namespace: 'team' }, data: {} });
    settle();
    expect(used(store)).toEqual({ pods: '2', 'requests.cpu': '750m', 'requests.memory': '128Mi', 'limits.memory': '256Mi', 'count/configmaps': '1' });

    // An update that changes a request (an in-place resize) moves the total by the difference.
    const b = store.get(PODS, 'team', 'b') as any;
    b.spec.containers[0].resources.requests.cpu = '2';
    store.update(PODS, b);
    settle();
    expect(used(store)['requests.cpu']).toBe('2250m');

    // A pod that finished stops counting; a deleted one too.
    const a = store.get(PODS, 'team', 'a') as any;
    store.update(PODS, { ...a, status: { phase: 'Succeeded' } });
    store.delete(CONFIGMAPS, 'team', 'cm');
    settle();
    expect(used(store)).toEqual({ pods: '1', 'requests.cpu': '2', 'requests.memory': '64Mi', 'limits.memory': '128Mi', 'count/configmaps': '0' });
    store.delete(PODS, 'team', 'b');
    settle();
    expect(used(store)).toMatchObject({ pods: '0', 'requests.cpu': '0', 'limits.memory': '0' });
  });

  it('counts the namespace in full once per quota spec, not once per write', () => {
    const { store, quota } = setup();
    for (let i = 0; i < 20; i++) store.create(PODS, pod(`old-${i}`, '100m'));
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '1000', 'requests.cpu': '100' } } });
    settle();
    expect(quota.fullCounts).toBe(1);
    for (let i = 0; i < 50; i++) {
      store.create(PODS, pod(`new-${i}`, '100m'));
      if (i % 5 === 0) settle();
    }
    for (let i = 0; i < 10; i++) store.delete(PODS, 'team', `old-${i}`);
    settle();
    expect(quota.fullCounts).toBe(1);
    expect(used(store)).toEqual({ pods: '60', 'requests.cpu': '6' });

    // A new spec is counted again, in full.
    const q = store.get(QUOTAS, 'team', 'q')!;
    store.update(QUOTAS, { ...q, spec: { hard: { pods: '1000', 'requests.cpu': '100', 'requests.memory': '10Gi' } } });
    settle();
    expect(quota.fullCounts).toBe(2);
    expect(used(store)).toEqual({ pods: '60', 'requests.cpu': '6', 'requests.memory': '3840Mi' });
  });

  it('keeps the running totals equal to a full recount through a mixed run, scoped quotas included', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'all', namespace: 'team' }, spec: { hard: { pods: '1000', 'requests.cpu': '100', 'count/pods': '1000' } } });
    store.create(QUOTAS, { metadata: { name: 'terminating', namespace: 'team' }, spec: { hard: { pods: '1000', 'requests.cpu': '100' }, scopes: ['Terminating'] } });
    settle();
    // An LCG read from its high bits: the low bits of a power-of-two LCG repeat with a short period (the lowest one
    // alternates), and with `seed % n` every create took the same branch of `rnd(2)`: no pod was ever terminating, so
    // the scoped quota's running total was never tested (a mutant that counted nothing for scoped quotas passed).
    let seed = 7;
    const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 16) % n; };
    const live = new Set<string>();
    for (let step = 0; step < 300; step++) {
      const name = `p${rnd(40)}`;
      const current = store.get(PODS, 'team', name) as any;
      if (!current) {
        store.create(PODS, pod(name, `${1 + rnd(9)}00m`, rnd(2) ? { activeDeadlineSeconds: 60 } : {}));
        live.add(name);
      } else if (rnd(3) === 0) {
        store.delete(PODS, 'team', name);
        live.delete(name);
      } else if (rnd(2) === 0) {
        current.spec.containers[0].resources.requests.cpu = `${1 + rnd(9)}00m`;
        store.update(PODS, current);
      } else {
        store.update(PODS, { ...current, status: { phase: rnd(2) ? 'Failed' : 'Running' } });
      }
      if (step % 7 === 0) settle();
    }
    settle();
    for (const q of ['all', 'terminating']) {
      const quotaObj = store.get(QUOTAS, 'team', q)!;
      expect(used(store, q)).toEqual(quotaUsage(store, 'team', quotaObj));
    }
    expect(used(store, 'all')['count/pods']).toBe(String(live.size));
    // Not vacuous: the scoped quota counts some of the pods and not all of them.
    expect(Number(used(store, 'terminating').pods)).toBeGreaterThan(0);
    expect(Number(used(store, 'terminating').pods)).toBeLessThan(Number(used(store, 'all').pods));
  });

  it('an update that changes nothing a quota counts (labels, annotations, a status that is not terminal) queues no sync', () => {
    const { store, quota } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '10', 'requests.cpu': '10', 'limits.memory': '10Gi' } } });
    store.create(PODS, pod('a', '250m'));
    settle();
    const writes = quotaWrites(store);
    const a = store.get(PODS, 'team', 'a') as any;
    store.update(PODS, { ...a, metadata: { ...a.metadata, annotations: { 'example.com/seq': '1' } } });
    const b = store.get(PODS, 'team', 'a') as any;
    store.update(PODS, { ...b, status: { phase: 'Running' } });
    expect(quota.queue.size).toBe(0);
    settle();
    expect(writes.count).toBe(0);
    expect(used(store)).toEqual({ pods: '1', 'requests.cpu': '250m', 'limits.memory': '128Mi' });
  });

  it('prints object counts as plain numbers: 1,024 config maps are 1024, not 1Ki, counted in full and followed', () => {
    const { store } = setup();
    for (let i = 0; i < 1024; i++) store.create(CONFIGMAPS, { metadata: { name: `cm-${i}`, namespace: 'team' }, data: {} });
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { 'count/configmaps': '5000', configmaps: '5000' } } });
    settle();
    expect(used(store)).toEqual({ 'count/configmaps': '1024', configmaps: '1024' });
    store.create(CONFIGMAPS, { metadata: { name: 'one-more', namespace: 'team' }, data: {} });
    settle();
    expect(used(store)).toEqual({ 'count/configmaps': '1025', configmaps: '1025' });
  });

  it('follows an update that trades one counted resource for another, or adds one, and one that adds nothing queues no sync', () => {
    const { store, quota } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { 'requests.cpu': '10', 'limits.memory': '10Gi' } } });
    store.create(PODS, { metadata: { name: 'a', namespace: 'team' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '250m' } } }] } });
    store.create(PODS, { metadata: { name: 'free', namespace: 'team' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    settle();
    expect(used(store)).toEqual({ 'requests.cpu': '250m', 'limits.memory': '0' });
    const resources = (r: Record<string, unknown>) => {
      const p = store.get(PODS, 'team', 'a') as any;
      p.spec.containers[0].resources = r;
      store.update(PODS, p);
      settle();
    };
    // The cpu request traded for a memory limit: the pod adds to one name before and after, another one.
    resources({ limits: { memory: '64Mi' } });
    expect(used(store)).toEqual({ 'requests.cpu': '0', 'limits.memory': '64Mi' });
    // A cpu request added beside the limit: one name more.
    resources({ requests: { cpu: '100m' }, limits: { memory: '64Mi' } });
    expect(used(store)).toEqual({ 'requests.cpu': '100m', 'limits.memory': '64Mi' });
    // A pod that adds nothing, relabelled: nothing to write.
    const free = store.get(PODS, 'team', 'free') as any;
    store.update(PODS, { ...free, metadata: { ...free.metadata, labels: { tier: 'x' } } });
    expect(quota.queue.size).toBe(0);
  });

  it('keeps a total\'s format when a differently written quantity leaves it (64Mi stays 64Mi after a 1G pod goes)', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { 'requests.memory': '10Gi' } } });
    settle();
    const withMemory = (name: string, memory: string) => ({ metadata: { name, namespace: 'team' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { memory } } }] } });
    store.create(PODS, withMemory('binary', '64Mi'));
    store.create(PODS, withMemory('decimal', '1G'));
    settle();
    store.delete(PODS, 'team', 'decimal');
    settle();
    expect(used(store)).toEqual({ 'requests.memory': '64Mi' });
  });

  it('a quota scoped by scopeSelector alone follows only the pods in its scope', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '10' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }] } } });
    settle();
    store.create(PODS, pod('plain', '100m'));
    store.create(PODS, pod('urgent', '100m', { priorityClassName: 'high' }));
    settle();
    expect(used(store)).toEqual({ pods: '1' });
  });

  it('a quota of object counts only follows creates and deletes of that kind, written without any other change', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { 'count/configmaps': '10' } } });
    settle();
    store.create(CONFIGMAPS, { metadata: { name: 'cm', namespace: 'team' }, data: {} });
    store.create(PODS, pod('p', '100m'));
    settle();
    expect(used(store)).toEqual({ 'count/configmaps': '1' });
  });

  it('writes nothing when a sync finds the usage it last wrote (a create and a delete within one write delay)', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '10', 'requests.cpu': '10' } } });
    settle();
    const writes = quotaWrites(store);
    store.create(PODS, pod('brief', '100m'));
    store.delete(PODS, 'team', 'brief');
    settle();
    expect(writes.count).toBe(0);
    expect(used(store)).toEqual({ pods: '0', 'requests.cpu': '0' });
  });

  it('counts quotas it has not seen (made before it started) at the first write into their namespace, as the controller manager\'s status writer', () => {
    const store = new SimStore();
    store.create(NAMESPACES, { metadata: { name: 'team' } });
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '10' } } });
    store.create(PODS, pod('early', '100m'));
    const quota = (controller = new ResourceQuotaController(store));
    store.onCommit((change, type) => { if (type.namespaced) quota.observe(change, type); });
    store.create(PODS, pod('late', '100m'));
    settle();
    expect(used(store)).toEqual({ pods: '2' });
    const fields = (store.get(QUOTAS, 'team', 'q') as any).metadata.managedFields as { manager: string; operation: string; subresource?: string; fieldsV1: any }[];
    expect(fields.find((f) => f.subresource === 'status')).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update' });
  });

  it('a quota deleted is no longer counted by a quota on resourcequotas', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { resourcequotas: '5' } } });
    store.create(QUOTAS, { metadata: { name: 'other', namespace: 'team' }, spec: { hard: { pods: '5' } } });
    settle();
    expect(used(store)).toEqual({ resourcequotas: '2' });
    store.delete(QUOTAS, 'team', 'other');
    settle();
    expect(used(store)).toEqual({ resourcequotas: '1' });
  });

  it('writes a lone change within 10 ms, and a long burst of deletes a few times rather than once per 10 ms', () => {
    const { store } = setup();
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '100', 'requests.cpu': '100' } } });
    for (let i = 0; i < 40; i++) store.create(PODS, pod(`p${i}`, '100m'));
    settle();
    expect(used(store)).toEqual({ pods: '40', 'requests.cpu': '4' });
    const writes = quotaWrites(store);
    // One delete after a quiet spell: written 10 ms later.
    store.delete(PODS, 'team', 'p0');
    vi.advanceTimersByTime(10);
    expect(used(store)).toEqual({ pods: '39', 'requests.cpu': '3900m' });
    expect(writes.count).toBe(1);
    // 39 deletes 5 ms apart (195 ms): at most one write per 100 ms, and right once the burst has settled.
    settle();
    writes.count = 0;
    for (let i = 1; i < 40; i++) {
      store.delete(PODS, 'team', `p${i}`);
      vi.advanceTimersByTime(5);
    }
    settle();
    expect(used(store)).toEqual({ pods: '0', 'requests.cpu': '0' });
    expect(writes.count).toBeGreaterThanOrEqual(2);
    expect(writes.count).toBeLessThanOrEqual(4);
  });
});
