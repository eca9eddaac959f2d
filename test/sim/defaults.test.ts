// Defaulting as kube-apiserver 1.32 does it on decode: a Deployment gets one replica, RollingUpdate 25%/25%,
// revisionHistoryLimit 10 and progressDeadlineSeconds 600 (on create and on update), a new namespace is Active.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer(); });
afterAll(() => sim.close());

const DEP = '/apis/apps/v1/namespaces/default/deployments';
const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };

describe('defaults', () => {
  it('a Deployment gets kube\'s spec defaults, in Go field order', async () => {
    const r = await http(sim.url, DEP, { method: 'POST', body: { metadata: { name: 'a' }, spec: { template, selector: { matchLabels: { app: 'a' } } } } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.json.spec)).toEqual(['replicas', 'selector', 'template', 'strategy', 'revisionHistoryLimit', 'progressDeadlineSeconds']);
    expect(r.json.spec).toMatchObject({ replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
  });

  it('keeps what the client set, leaves Recreate without rollingUpdate, and defaults again on update', async () => {
    const r = await http(sim.url, DEP, { method: 'POST', body: { metadata: { name: 'b' }, spec: { replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2, template, selector: { matchLabels: { app: 'a' } } } } });
    expect(r.json.spec).toMatchObject({ replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2, progressDeadlineSeconds: 600 });
    expect(r.json.spec.strategy.rollingUpdate).toBeUndefined();
    const partial = await http(sim.url, `${DEP}/a`, { method: 'PATCH', body: { spec: { strategy: { rollingUpdate: { maxSurge: 3 } } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(partial.json.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 3 } });
    const cleared = await http(sim.url, `${DEP}/a`, { method: 'PATCH', body: { spec: { strategy: null, progressDeadlineSeconds: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(cleared.json.spec).toMatchObject({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, progressDeadlineSeconds: 600 });
  });

  it('a namespace is created Active whatever status it was sent with', async () => {
    const r = await http(sim.url, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'n1' }, status: { phase: 'Terminating' } } });
    expect(r.json.status).toEqual({ phase: 'Active' });
  });
});
