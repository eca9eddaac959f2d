// Conformance: one Event store behind core/v1 `events` and `events.k8s.io/v1` `events`, as in kube — an event
// written through either API shows through the other in that API's shape (kubectl get events, describe), with the
// same uid and resourceVersion, and watches through either API see writes through both.
import { describe, expect, it } from 'vitest';
import { kubectlSim, watch } from './sim-helpers.js';

const fx = kubectlSim({ pods: 0, churn: 0 }, 'kwatch-events-');
const kubectl = fx.kubectl;
const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

async function pod(name: string): Promise<{ uid: string }> {
  await kubectl('run', name, '--image=nginx:1.27', '--restart=Never');
  return JSON.parse((await kubectl('get', 'pod', name, '-o', 'json')).stdout).metadata;
}

describe('one Event store, two APIs', () => {
  it('an events.k8s.io/v1 Event (tools/events recorder shape) shows in kubectl get events and describe pod', async () => {
    const { uid } = await pod('ev1');
    const manifest = fx.file('ev1.yaml', [
      'apiVersion: events.k8s.io/v1', 'kind: Event', 'metadata:', '  name: ev1.recorded', '  namespace: default',
      'eventTime: "2026-01-01T00:00:00.000000Z"', 'reportingController: example.com/my-controller', 'reportingInstance: my-controller-0',
      'action: Reconciling', 'reason: Synced', 'type: Normal', 'note: all good',
      `regarding: {apiVersion: v1, kind: Pod, name: ev1, namespace: default, uid: ${uid}}`, '',
    ].join('\n'));
    expect((await kubectl('create', '-f', manifest)).stdout.trim()).toBe('event.events.k8s.io/ev1.recorded created');
    const core = JSON.parse((await kubectl('get', 'events', 'ev1.recorded', '-o', 'json')).stdout);
    expect(core).toMatchObject({
      kind: 'Event', apiVersion: 'v1', message: 'all good', reason: 'Synced', type: 'Normal', action: 'Reconciling',
      involvedObject: { kind: 'Pod', name: 'ev1', namespace: 'default', uid }, reportingComponent: 'example.com/my-controller',
      reportingInstance: 'my-controller-0', eventTime: '2026-01-01T00:00:00.000000Z', source: {}, firstTimestamp: null, lastTimestamp: null,
    });
    const table = (await kubectl('get', 'events', '--field-selector', 'involvedObject.name=ev1', '--no-headers')).stdout;
    expect(table).toMatch(/Normal\s+Synced\s+pod\/ev1\s+all good/);
    const described = (await kubectl('describe', 'pod', 'ev1')).stdout;
    expect(described).toMatch(/Normal\s+Synced\s+\S+\s+example\.com\/my-controller\s+all good/);
  });

  it('a core/v1 Event shows through events.k8s.io/v1 converted, same uid and resourceVersion', async () => {
    const manifest = fx.file('ev2.yaml', [
      'apiVersion: v1', 'kind: Event', 'metadata:', '  name: ev2.legacy', '  namespace: default',
      'involvedObject: {apiVersion: v1, kind: ConfigMap, name: cfg, namespace: default}', 'reason: Updated', 'message: data changed',
      'source: {component: legacy-recorder}', 'firstTimestamp: "2026-01-01T00:00:00Z"', 'lastTimestamp: "2026-01-01T00:01:00Z"', 'count: 3', 'type: Warning', '',
    ].join('\n'));
    expect((await kubectl('create', '-f', manifest)).stdout.trim()).toBe('event/ev2.legacy created');
    const core = JSON.parse((await kubectl('get', 'events', 'ev2.legacy', '-o', 'json')).stdout);
    const v1 = JSON.parse((await kubectl('get', 'events.v1.events.k8s.io', 'ev2.legacy', '-o', 'json')).stdout);
    expect(v1).toMatchObject({
      kind: 'Event', apiVersion: 'events.k8s.io/v1', note: 'data changed', reason: 'Updated', type: 'Warning',
      regarding: { kind: 'ConfigMap', name: 'cfg' }, deprecatedSource: { component: 'legacy-recorder' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:01:00Z', deprecatedCount: 3, eventTime: null,
    });
    expect(v1.message).toBeUndefined();
    expect(v1.involvedObject).toBeUndefined();
    expect([v1.metadata.uid, v1.metadata.resourceVersion]).toEqual([core.metadata.uid, core.metadata.resourceVersion]);
    // Lists through the new API carry both (items without kind, as typed lists do).
    const list = (await fetch(fx.sim.url + V1).then((r) => r.json())) as any;
    expect(list.kind).toBe('EventList');
    const names = list.items.map((e: { metadata: { name: string } }) => e.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['ev1.recorded', 'ev2.legacy']));
    expect(list.items.find((e: { metadata: { name: string } }) => e.metadata.name === 'ev2.legacy').note).toBe('data changed');
    // A delete through one API removes it from both.
    expect((await kubectl('delete', 'events.v1.events.k8s.io', 'ev2.legacy')).code).toBe(0);
    expect((await kubectl('get', 'events', 'ev2.legacy')).stderr).toContain('NotFound');
  });

  it('watches through either API see writes through both, each in its own shape', async () => {
    const rv = fx.sim.api.currentRevision();
    const w1 = await watch(fx.sim.url, `${V1}?watch=1&resourceVersion=${rv}`);
    const w0 = await watch(fx.sim.url, `${CORE}?watch=1&resourceVersion=${rv}`);
    try {
      const post = (path: string, body: object) => fetch(fx.sim.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post(CORE, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'w.core' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'A', message: 'from core' })).status).toBe(201);
      expect((await post(V1, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'w.new' }, eventTime: '2026-01-01T00:00:00.000000Z', regarding: { kind: 'Pod', name: 'p' }, reason: 'B', note: 'from events.k8s.io', reportingController: 'x', reportingInstance: 'x-0', action: 'Do', type: 'Normal' })).status).toBe(201);
      const [a1, b1] = await w1.waitFor(2, 5000);
      const [a0, b0] = await w0.waitFor(2, 5000);
      expect([a1.object.apiVersion, a1.object.note, b1.object.note]).toEqual(['events.k8s.io/v1', 'from core', 'from events.k8s.io']);
      expect([a0.object.apiVersion, a0.object.message, b0.object.message]).toEqual(['v1', 'from core', 'from events.k8s.io']);
      expect(a1.object.metadata.resourceVersion).toBe(a0.object.metadata.resourceVersion);
    } finally {
      w1.close();
      w0.close();
    }
  });
});
