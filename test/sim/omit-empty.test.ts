// Objects as kube writes them back: nulls and empty maps (`labels: {}`) a client sends are gone from what the sim
// answers and stores, as kube's Go types (omitempty) drop them; metav1.Time nulls and empty structs stay.
import { describe, expect, it } from 'vitest';
import { http, kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-omit-empty-');
const P = '/api/v1/namespaces/default/pods';

describe('null fields and empty maps are omitted as kube omits them', () => {
  it('a pod written with labels: {}, annotations: {}, nodeSelector: {}, hostname: null comes back without them', async () => {
    const body = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'bare', labels: {}, annotations: {}, ownerReferences: null },
      spec: { nodeSelector: {}, hostname: null, containers: [{ name: 'c', image: 'nginx', resources: { limits: {} }, env: null }] },
    };
    const r = await http(fx.sim.url, P, { method: 'POST', body });
    expect(r.status).toBe(201);
    expect(r.json.metadata).not.toHaveProperty('labels');
    expect(r.json.metadata).not.toHaveProperty('annotations');
    expect(r.json.metadata).not.toHaveProperty('ownerReferences');
    expect(r.json.spec).not.toHaveProperty('nodeSelector');
    expect(r.json.spec).not.toHaveProperty('hostname');
    // resources is a struct: kube keeps `resources: {}`; its empty limits map goes.
    expect(r.json.spec.containers[0].resources).toEqual({});
    expect(r.json.spec.containers[0]).not.toHaveProperty('env');
    const yaml = (await fx.kubectl('get', 'pod', 'bare', '-o', 'yaml')).stdout;
    expect(yaml).not.toMatch(/labels: \{\}|annotations: \{\}|nodeSelector|: null/);
  });

  it('a merge patch that removes the last label leaves no labels: {}', async () => {
    await http(fx.sim.url, P, { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'lab', labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    const r = await http(fx.sim.url, `${P}/lab`, { method: 'PATCH', body: { metadata: { labels: { a: null } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(200);
    expect(r.json.metadata).not.toHaveProperty('labels');
    expect((await fx.kubectl('label', 'pod', 'lab', 'b=2')).code).toBe(0);
    expect((await fx.kubectl('label', 'pod', 'lab', 'b-')).code).toBe(0);
    expect((await http(fx.sim.url, `${P}/lab`)).json.metadata).not.toHaveProperty('labels');
  });

  it('a metav1.Time null stays null (a struct kube prints as null): a pod condition\'s lastProbeTime', async () => {
    const cur = (await http(fx.sim.url, `${P}/bare`)).json;
    const status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z', message: null }] };
    const r = await http(fx.sim.url, `${P}/bare/status`, { method: 'PUT', body: { ...cur, status } });
    expect([r.status, r.json.message]).toEqual([200, undefined]);
    expect(r.json.status.conditions[0]).toEqual({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' });
  });
});
