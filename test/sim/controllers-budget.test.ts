// The creation budget (--max-objects): each controller creates at most N objects over the sim's lifetime, then logs
// one line and stops, so that no mistake can flood the machine (issue 11: ~14,000 pods in under a minute).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { controlHttp, http, until } from './sim-helpers.js';

const lines: string[] = [];
let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ maxObjects: 5, controllers: { graceScale: 0.002, podStartMs: 10, jobPodRunMs: 30, log: (l) => lines.push(l) } });
  await http(sim.url, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'default' } } });
});
afterAll(() => sim.close());

const container = [{ name: 'c', image: 'busybox' }];
const countPods = async (selector: string): Promise<number> => (await http(sim.url, `/api/v1/namespaces/default/pods?labelSelector=${selector}`)).json.items.length;
const state = async (): Promise<any> => (await controlHttp(sim, '/_kwatch/state')).json.controllers.creations;

describe('creation budget', () => {
  it('the replicaset controller stops at the budget, logs one line, and creates nothing more when pods go', async () => {
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'many' }, spec: { replicas: 20, selector: { matchLabels: { app: 'many' } }, template: { metadata: { labels: { app: 'many' } }, spec: { containers: container } } } };
    expect((await http(sim.url, '/apis/apps/v1/namespaces/default/replicasets', { method: 'POST', body: rs })).status).toBe(201);
    await until(() => lines.length > 0);
    expect(await countPods('app=many')).toBe(5);
    expect(lines).toEqual(['kwatch sim: the replicaset controller has created 5 pods, the --max-objects budget: it creates no more (delete the owner, or restart the sim with a larger --max-objects)']);
    expect(await state()).toEqual({ maxObjects: 5, created: { replicaset: 5, deployment: 0, job: 0, cronjob: 0, statefulset: 0, daemonset: 0, endpointslice: 0 }, exhausted: ['replicaset'] });
    // A deleted pod is not replaced (the controller resyncs and is refused again, silently).
    const del = await http(sim.url, '/api/v1/namespaces/default/pods?labelSelector=app=many&gracePeriodSeconds=0', { method: 'DELETE' });
    expect(del.status).toBe(200);
    await until(async () => (await countPods('app=many')) === 0 && sim.controllers!.pending() === 0);
    expect(await countPods('app=many')).toBe(0);
    expect(lines).toHaveLength(1);
  });

  it('the job controller has a budget of its own', async () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { parallelism: 8, completions: 8, template: { spec: { restartPolicy: 'Never', containers: container } } } };
    expect((await http(sim.url, '/apis/batch/v1/namespaces/default/jobs', { method: 'POST', body: job })).status).toBe(201);
    await until(() => lines.length === 2);
    expect(lines[1]).toBe('kwatch sim: the job controller has created 5 pods, the --max-objects budget: it creates no more (delete the owner, or restart the sim with a larger --max-objects)');
    expect((await http(sim.url, '/api/v1/namespaces/default/pods?labelSelector=batch.kubernetes.io/job-name=j')).json.items).toHaveLength(5);
    expect(await state()).toMatchObject({ created: { replicaset: 5, deployment: 0, job: 5 }, exhausted: ['replicaset', 'job'] });
  });

  it('the deployment controller stops creating ReplicaSets at the budget', async () => {
    const D = '/apis/apps/v1/namespaces/default/deployments';
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 0, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'v0' }] } } } };
    expect((await http(sim.url, D, { method: 'POST', body: d })).status).toBe(201);
    const replicaSets = async (): Promise<number> => (await http(sim.url, '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app=d')).json.items.length;
    await until(async () => (await replicaSets()) === 1);
    for (let v = 1; v <= 5; v++) {
      const r = await http(sim.url, `${D}/d`, { method: 'PATCH', body: { spec: { template: { spec: { containers: [{ name: 'c', image: `v${v}` }] } } } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
      expect(r.status).toBe(200);
      await until(() => sim.controllers!.pending() === 0);
    }
    await until(() => lines.length === 3);
    expect(lines[2]).toBe('kwatch sim: the deployment controller has created 5 replicasets, the --max-objects budget: it creates no more (delete the owner, or restart the sim with a larger --max-objects)');
    expect(await replicaSets()).toBe(5);
    expect(await state()).toMatchObject({ created: { deployment: 5 }, exhausted: ['replicaset', 'deployment', 'job'] });
  });
});
