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

// Cases the mutation run of write-handlers.ts found untested (docs/mutation.md, sim section).
describe('DELETE with controllers: the query, the body and the events.k8s.io shape', () => {
  it('reads propagationPolicy and orphanDependents from the query when there is no body', async () => {
    await req('POST', CM, { metadata: { name: 'qheld', finalizers: ['example.com/x'] } });
    expect((await req('DELETE', `${CM}/qheld?orphanDependents=false`)).status).toBe(202);
    await req('POST', CM, { metadata: { name: 'qkeep' } });
    const bad = await req('DELETE', `${CM}/qkeep?propagationPolicy=Nope`);
    expect(bad.json).toMatchObject({ code: 422, reason: 'Invalid', details: { kind: 'DeleteOptions' } });
    expect(bad.json.message).toContain('propagationPolicy');
    expect((await req('DELETE', `${P}/nope?gracePeriodSeconds=1.5`)).json).toMatchObject({ code: 400, message: 'strconv.ParseInt: parsing "1.5": invalid syntax' });
  });

  it('orphanDependents=true orphans rather than answering 202; with a propagationPolicy too it is kube\'s 422; a null grace is no grace', async () => {
    await req('POST', CM, { metadata: { name: 'oheld', finalizers: ['example.com/x'] } });
    expect((await req('DELETE', `${CM}/oheld?orphanDependents=true`)).status).toBe(200);
    await req('POST', CM, { metadata: { name: 'both' } });
    const both = await req('DELETE', `${CM}/both`, { orphanDependents: true, propagationPolicy: 'Background' });
    expect(both.json).toMatchObject({ code: 422, message: expect.stringContaining('orphanDependents and deletionPropagation cannot be both set') });
    await runningPod('nullgrace');
    const r = await req('DELETE', `${P}/nullgrace`, { gracePeriodSeconds: null });
    expect(r.status).toBe(200);
    // The pod's own grace (30 s by default, scaled here), not an immediate delete.
    expect(r.json.metadata.deletionGracePeriodSeconds).toBe(30);
  });

  it('an empty protobuf body is no DeleteOptions either: the query\'s dryRun counts', async () => {
    await req('POST', CM, { metadata: { name: 'pbempty' } });
    const r = await http(sim.url, `${CM}/pbempty?dryRun=All`, { method: 'DELETE', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
    expect(r.status).toBe(200);
    expect((await req('GET', `${CM}/pbempty`)).status).toBe(200);
  });

  it('an events.k8s.io Event deleted at once is answered with kube\'s Success Status (the shared event storage names no group)', async () => {
    const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
    const created = await req('POST', V1, {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev-gone' }, eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl', reportingInstance: 'ctl-0', action: 'Reconciling', reason: 'Synced', type: 'Normal', note: 'gone',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'default' },
    });
    const r = await req('DELETE', `${V1}/ev-gone`);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'ev-gone', kind: 'events', uid: created.json.metadata.uid } });
  });

  it('a body of blanks is no DeleteOptions: the query\'s dryRun counts', async () => {
    await req('POST', CM, { metadata: { name: 'blank' } });
    const r = await http(sim.url, `${CM}/blank?dryRun=All`, { method: 'DELETE', body: '  \n', headers: { 'Content-Length': '3' } });
    expect(r.status).toBe(200);
    expect((await req('GET', `${CM}/blank`)).status).toBe(200);
  });

  it('an events.k8s.io Event deleted through that API is answered in its shape, one by one and as a collection', async () => {
    const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
    const event = (name: string, batch: string, finalizers?: string[]) => ({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, labels: { batch }, ...(finalizers ? { finalizers } : {}) }, eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl', reportingInstance: 'ctl-0', action: 'Reconciling', reason: 'Synced', type: 'Normal', note: `note of ${name}`,
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'default' },
    });
    expect((await req('POST', V1, event('ev-held', 'one', ['example.com/x']))).status).toBe(201);
    for (const n of ['ev-b', 'ev-c']) expect((await req('POST', V1, event(n, 'many'))).status).toBe(201);
    // Held by a finalizer: the object with its deletion marks, in events.k8s.io/v1's shape (note, not message).
    const held = await req('DELETE', `${V1}/ev-held`);
    expect(held.status).toBe(200);
    expect(held.json).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', note: 'note of ev-held', metadata: { name: 'ev-held' } });
    expect(held.json.message).toBeUndefined();
    const all = await req('DELETE', `${V1}?labelSelector=batch%3Dmany`);
    expect(all.json.kind).toBe('EventList');
    expect(all.json.apiVersion).toBe('events.k8s.io/v1');
    expect(all.json.items.map((e: any) => [e.metadata.name, e.note, e.message])).toEqual([['ev-b', 'note of ev-b', undefined], ['ev-c', 'note of ev-c', undefined]]);
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
