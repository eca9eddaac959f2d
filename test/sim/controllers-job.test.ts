// The Job controller in-process: pods from the template one at a time up to completions, the kubelet completing them,
// and the status and conditions kube 1.32 reports — judged by the objects and the change stream the store emits.
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerManager } from '../../src/sim/controllers/controller-manager.js';
import { SimStore } from '../../src/sim/store.js';
import { nodeObject } from '../../src/sim/workload-objects.js';
import { NAMESPACES, PODS, until } from './sim-helpers.js';

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const JOBS = { group: 'batch', version: 'v1', resource: 'jobs' };

const running: ControllerManager[] = [];
afterEach(() => { for (const cm of running.splice(0)) cm.stop(); });

function setup(): { store: SimStore; seen: { type: string; resource: string; obj: any }[] } {
  const store = new SimStore();
  store.create(NAMESPACES, { metadata: { name: 'default' } });
  store.create(NODES, nodeObject({ name: 'node-1', zone: 'z', instanceType: 'm', internalIP: '10.0.0.1', podCIDR: '10.64.1.0/24', time: '2026-01-01T00:00:00Z', machineID: 'm'.repeat(32) }));
  const cm = new ControllerManager(store, { graceScale: 0.002, podStartMs: 10, jobPodRunMs: 30 });
  running.push(cm);
  cm.start();
  const seen: { type: string; resource: string; obj: any }[] = [];
  store.onCommit((c, t) => seen.push({ type: c.type, resource: t.resource, obj: JSON.parse(c.cur.json) }));
  return { store, seen };
}

const jobSpec = (extra: Record<string, unknown> = {}) => ({
  ...extra,
  template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['echo', 'hi'] }] } },
});

describe('Job controller', () => {
  it('create applies kube\'s defaults and generated selector; a template with restartPolicy Always is refused', () => {
    const { store } = setup();
    const job = store.create(JOBS, { metadata: { name: 'j' }, spec: jobSpec() });
    const uid = job.metadata.uid!;
    expect(job.metadata.generation).toBe(1);
    expect(job.metadata.labels).toEqual({ 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'j', 'controller-uid': uid, 'job-name': 'j' });
    expect(Object.keys(job.spec!)).toEqual(['parallelism', 'completions', 'backoffLimit', 'selector', 'manualSelector', 'template', 'completionMode', 'suspend', 'podReplacementPolicy']);
    expect(job.spec).toMatchObject({ parallelism: 1, completions: 1, backoffLimit: 6, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } }, podReplacementPolicy: 'TerminatingOrFailed' });
    expect(job.status).toEqual({});
    expect(() => store.create(JOBS, { metadata: { name: 'bad' }, spec: { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'x' }] } } } }))
      .toThrow('Job.batch "bad" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"');
  });

  it('completions 2 / parallelism 1: two pods one after the other, then SuccessCriteriaMet, Complete and succeeded 2', async () => {
    const { store, seen } = setup();
    store.create(JOBS, { metadata: { name: 'pi' }, spec: jobSpec({ completions: 2, parallelism: 1 }) });
    const job = () => store.get(JOBS, 'default', 'pi') as any;
    await until(() => (job().status?.conditions ?? []).some((c: any) => c.type === 'Complete'), 5000);
    const status = job().status;
    expect(Object.keys(status)).toEqual(['conditions', 'startTime', 'completionTime', 'succeeded', 'terminating', 'uncountedTerminatedPods', 'ready']);
    expect(status).toMatchObject({ succeeded: 2, terminating: 0, ready: 0, uncountedTerminatedPods: {} });
    expect(status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ]);
    expect(Date.parse(status.completionTime)).toBeGreaterThanOrEqual(Date.parse(status.startTime));

    const pods = store.list(PODS, 'default') as any[];
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(/^pi-[a-z0-9]{5}$/);
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: job().metadata.uid, controller: true, blockOwnerDeletion: true }]);
      expect(p.metadata.labels['batch.kubernetes.io/job-name']).toBe('pi');
      expect(p.status.phase).toBe('Succeeded');
      expect(p.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    }
    // One after the other: the second pod is created only once the first has succeeded.
    const podEvents = seen.filter((s) => s.resource === 'pods');
    const secondCreated = podEvents.filter((s) => s.type === 'ADDED').map((s) => podEvents.indexOf(s))[1];
    const firstSucceeded = podEvents.findIndex((s) => s.obj.status?.phase === 'Succeeded');
    expect(firstSucceeded).toBeGreaterThanOrEqual(0);
    expect(secondCreated).toBeGreaterThan(firstSucceeded);
    // Active never exceeded parallelism.
    for (const s of seen.filter((x) => x.resource === 'jobs')) expect(s.obj.status?.active ?? 0).toBeLessThanOrEqual(1);
    // Nothing more happens once the job is complete.
    const before = seen.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.slice(before).filter((s) => s.resource !== 'events')).toEqual([]);
  });
});
