// The sim's ResourceQuota admission over HTTP, without kubectl (kubectl-quota.test.ts drives the common cases through
// kubectl): kube's messages name every resource in sorted order, its 403 carries kube's details, and a scoped quota
// counts only the pods in its scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http } from './sim-helpers.js';

let sim: SimServer;
// Quota admission is the controller manager's (as kube's ResourceQuota plugin needs the quota controller).
beforeAll(async () => { sim = await startSimServer({ nodes: 0, pods: 0, churn: 0, controllers: { podStartMs: 100 } }); });
afterAll(() => sim.close());

const post = (path: string, body: unknown) => http(sim.url, path, { method: 'POST', body });
async function namespaceWithQuota(ns: string, spec: Record<string, unknown>): Promise<void> {
  expect((await post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  expect((await post(`/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: 'q' }, spec })).status).toBe(201);
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

  it('a quota scoped to Terminating pods does not count a pod without activeDeadlineSeconds', async () => {
    await namespaceWithQuota('scoped', { hard: { pods: '0' }, scopes: ['Terminating'] });
    expect((await post('/api/v1/namespaces/scoped/pods', pod('scoped', 'long-lived', [{ name: 'c' }]))).status).toBe(201);
    const bounded = await post('/api/v1/namespaces/scoped/pods', pod('scoped', 'bounded', [{ name: 'c' }], { activeDeadlineSeconds: 60 }));
    expect(bounded.status).toBe(403);
    expect(bounded.json.message).toContain('exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
  });
});
