// DELETE over HTTP when the sim runs its controllers: DeleteOptions from the body or the query, kube's answers
// (the object for pods, a Success Status for deployments, 202 for orphanDependents=false) and the watch events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { controlHttp, http, pod, PODS, until, watch } from './sim-helpers.js';

let sim: SimServer;
const P = '/api/v1/namespaces/default/pods';
const CM = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  // One node (from the generator, with no pods of its own) so pods get scheduled and run.
  sim = await startSimServer({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.002, podStartMs: 10 } });
});
afterAll(() => sim.close());

/** Node's client sends a DELETE body without framing unless told its length. */
const req = (method: string, path: string, body?: unknown) =>
  http(sim.url, path, { method, body, headers: body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(JSON.stringify(body))) } });

async function runningPod(name: string): Promise<void> {
  sim.api.create(PODS, pod(name));
  await until(() => (sim.api.get(PODS, 'default', name) as any)?.status?.phase === 'Running');
}

describe('DELETE with controllers', () => {
  it('a pod: 200 with the object marked for deletion, a MODIFIED then (after the scaled grace) a DELETED on the watch', async () => {
    await runningPod('w1');
    const w = await watch(sim.url, `${P}?watch=1&fieldSelector=metadata.name%3Dw1&resourceVersion=${sim.api.currentRevision()}`);
    try {
      const r = await req('DELETE', `${P}/w1`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 5 });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ kind: 'Pod', metadata: { name: 'w1', deletionGracePeriodSeconds: 5, deletionTimestamp: expect.any(String) } });
      const first = await w.next();
      expect(first).toMatchObject({ type: 'MODIFIED', object: { metadata: { deletionGracePeriodSeconds: 5 } } });
      const rest = await w.waitFor(4, 3000);
      expect(rest.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    } finally {
      w.close();
    }
  });

  it('reads gracePeriodSeconds from the query when there is no body; 0 deletes at once', async () => {
    await runningPod('w2');
    const r = await req('DELETE', `${P}/w2?gracePeriodSeconds=0`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: 'Pod', metadata: { name: 'w2', deletionGracePeriodSeconds: 0 } });
    expect(sim.api.get(PODS, 'default', 'w2')).toBeUndefined();
    expect((await req('DELETE', `${P}/nope?gracePeriodSeconds=x`)).status).toBe(400);
  });

  it('a deployment answers a Success Status naming it (no ReturnDeletedObject)', async () => {
    const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 0, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    const created = await req('POST', '/apis/apps/v1/namespaces/default/deployments', body);
    const r = await req('DELETE', '/apis/apps/v1/namespaces/default/deployments/d', { propagationPolicy: 'Background' });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'd', group: 'apps', kind: 'deployments', uid: created.json.metadata.uid } });
  });

  it('an object held by a finalizer: 202 for orphanDependents=false, and the object with its deletion marks', async () => {
    await req('POST', CM, { metadata: { name: 'held', finalizers: ['example.com/x'] } });
    const r = await req('DELETE', `${CM}/held`, { orphanDependents: false });
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'held', deletionGracePeriodSeconds: 0, finalizers: ['example.com/x'] } });
    const patched = await http(sim.url, `${CM}/held`, { method: 'PATCH', body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patched.status).toBe(200);
    expect((await req('GET', `${CM}/held`)).status).toBe(404);
  });

  it('rejects invalid DeleteOptions with 422, and answers dryRun without writing', async () => {
    await req('POST', CM, { metadata: { name: 'keep' } });
    const bad = await req('DELETE', `${CM}/keep`, { propagationPolicy: 'Nope' });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ reason: 'Invalid', details: { group: 'meta.k8s.io', kind: 'DeleteOptions' } });
    const rv = sim.api.currentRevision();
    const dry = await req('DELETE', `${CM}/keep?dryRun=All`);
    expect(dry.status).toBe(200);
    expect(sim.api.currentRevision()).toBe(rv);
  });

  it('deletecollection deletes each pod as DELETE would (gracefully) and answers the list as it was', async () => {
    await runningPod('c1');
    await runningPod('c2');
    const r = await req('DELETE', `${P}?fieldSelector=metadata.name%3Dc1`);
    expect(r.json.kind).toBe('PodList');
    expect(r.json.items.map((p: any) => [p.metadata.name, p.metadata.deletionTimestamp])).toEqual([['c1', undefined]]);
    expect((sim.api.get(PODS, 'default', 'c1') as any).metadata.deletionTimestamp).toBeDefined();
    await until(() => !sim.api.get(PODS, 'default', 'c1'));
    expect(sim.api.get(PODS, 'default', 'c2')).toBeDefined();
    expect(sim.controllers!.errors).toBe(0);
  });
});

describe('/_kwatch/state with controllers', () => {
  it('reports the controllers and their sync errors (none here); null when they are off', async () => {
    const on = await controlHttp(sim, '/_kwatch/state');
    expect(on.json).toMatchObject({ controllers: { errors: 0 } });
    const plain = await startSimServer({ nodes: 0, pods: 0, churn: 0 });
    try {
      expect((await controlHttp(plain, '/_kwatch/state')).json).toMatchObject({ controllers: null });
    } finally {
      await plain.close();
    }
  });
});
