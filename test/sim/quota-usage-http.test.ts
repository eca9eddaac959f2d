// What the sim's quota controller counts, read as a user reads it (a quota's status.used over HTTP, what `kubectl
// describe quota` prints): each resource name as kube's evaluators count it (pkg/quota/v1/evaluator/core, and the
// generic object count), pods' compute from containers and init containers, services by type, claims per storage
// class, the pod scopes, custom resources at any version, and names no evaluator matches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, quotaSynced, until } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer({ nodes: 0, pods: 0, churn: 0, controllers: { podStartMs: 100 } }); });
afterAll(() => sim.close());

const post = async (path: string, body: unknown): Promise<any> => {
  const r = await http(sim.url, path, { method: 'POST', body });
  expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(201);
  return r.json;
};
const namespace = (ns: string) => post('/api/v1/namespaces', { metadata: { name: ns } });
const quota = (ns: string, name: string, spec: Record<string, unknown>) => post(`/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name }, spec });
const used = async (ns: string, name: string): Promise<Record<string, string> | undefined> =>
  (await http(sim.url, `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status?.used;
/** Waits until the quota's status.used is `want` (the controller writes it within milliseconds of a change). */
async function usedBecomes(ns: string, name: string, want: Record<string, string>): Promise<void> {
  await until(async () => JSON.stringify(await used(ns, name)) === JSON.stringify(want), 10_000).catch(() => undefined);
  expect(await used(ns, name)).toEqual(want);
}
const pod = (ns: string, name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: containers.map((c) => ({ image: 'nginx', ...c })), ...extra } });

describe('status.used as kube\'s quota evaluators count it', () => {
  it('BestEffort is the pod\'s QoS class: only positive cpu and memory requests or limits make a pod not BestEffort', async () => {
    // kube's scope check is qos.GetPodQOS (pkg/quota/v1/evaluator/core/pods.go isBestEffort), which reads cpu and memory
    // only, and only quantities above zero (pkg/apis/core/v1/helper/qos/qos.go): a pod asking only ephemeral storage, or
    // cpu 0, is BestEffort, and its status.qosClass says so.
    await namespace('qos');
    await quota('qos', 'best-effort', { hard: { pods: '10' }, scopes: ['BestEffort'] });
    await quota('qos', 'not-best-effort', { hard: { pods: '10' }, scopes: ['NotBestEffort'] });
    await quotaSynced(sim.url, 'qos', 'best-effort');
    await quotaSynced(sim.url, 'qos', 'not-best-effort');
    const made = [
      await post('/api/v1/namespaces/qos/pods', pod('qos', 'disk', [{ name: 'c', resources: { requests: { 'ephemeral-storage': '1Gi' } } }])),
      await post('/api/v1/namespaces/qos/pods', pod('qos', 'zero', [{ name: 'c', resources: { requests: { cpu: '0' } } }])),
      await post('/api/v1/namespaces/qos/pods', pod('qos', 'cpu', [{ name: 'c', resources: { requests: { cpu: '100m' } } }])),
    ];
    expect(made.map((p) => p.status.qosClass)).toEqual(['BestEffort', 'BestEffort', 'Burstable']);
    await usedBecomes('qos', 'best-effort', { pods: '2' });
    await usedBecomes('qos', 'not-best-effort', { pods: '1' });
  });
});
