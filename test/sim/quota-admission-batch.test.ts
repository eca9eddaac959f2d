// Quota admission folds the writes admitted together into one status update per quota, as kube's quota evaluator
// does (issue 43), and keeps its guarantees: a create past the quota is refused with kube's 403 even when it races
// others, and status.used is right once a write is answered.
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerManager } from '../../src/sim/controllers/controller-manager.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { SimStore } from '../../src/sim/store.js';
import { updateFields } from '../../src/sim/managed-fields/request.js';
import { kubeTime } from '../../src/sim/object-meta.js';
import { NAMESPACES, PODS, until } from './sim-helpers.js';

const QUOTAS = { group: '', version: 'v1', resource: 'resourcequotas' };

const running: ControllerManager[] = [];
let server: SimServer | undefined;
afterEach(async () => {
  for (const cm of running.splice(0)) cm.stop();
  await server?.close();
  server = undefined;
});

/** A store with namespace `ns` and the controller manager running on it (stopped after the test). */
function storeWithControllers(ns: string): SimStore {
  const store = new SimStore();
  store.create(NAMESPACES, { metadata: { name: ns } });
  const cm = new ControllerManager(store, { graceScale: 0.002, podStartMs: 10 });
  running.push(cm);
  cm.start();
  return store;
}

const pod = (name: string, namespace: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }] } });

describe('quota admission batches its status writes', () => {
  it('writes the quota once for the creates admitted in one turn, refuses the ones past it, and counts them all', async () => {
    const store = storeWithControllers('team');
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '5', 'requests.cpu': '10' } } });
    await until(() => (store.get(QUOTAS, 'team', 'q') as any)?.status?.used?.pods === '0', 5000);
    let quotaWrites = 0;
    store.onCommit((c, t) => { if (t.resource === 'resourcequotas' && c.type === 'MODIFIED') quotaWrites++; });

    const refused: string[] = [];
    for (let i = 0; i < 8; i++) {
      try {
        store.createObject(store.resolve(PODS), pod(`p${i}`, 'team'));
      } catch (err) {
        refused.push((err as Error).message);
      }
    }
    expect(refused).toEqual(['p5', 'p6', 'p7'].map((n) => `pods "${n}" is forbidden: exceeded quota: q, requested: pods=1, used: pods=5, limited: pods=5`));
    await store.admissionWrites?.();
    expect((store.get(QUOTAS, 'team', 'q') as any).status.used).toEqual({ pods: '5', 'requests.cpu': '500m' });
    // One status update for the five (kube: one per quota per batch); the controller finds nothing to change.
    expect(quotaWrites).toBe(1);
  });

  it('over HTTP, racing creates: exactly what fits is admitted, the rest get the 403, and status.used is right once they are answered', async () => {
    server = await startSimServer({ port: 0, churn: 0, pods: 0, nodes: 0, controllers: true });
    const url = server.url;
    const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/api/v1/namespaces', { metadata: { name: 'race' } })).status).toBe(201);
    expect((await post('/api/v1/namespaces/race/resourcequotas', { metadata: { name: 'q' }, spec: { hard: { pods: '4' } } })).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post('/api/v1/namespaces/race/pods', pod(`p${i}`, 'race')).then(async (r) => ({ code: r.status, body: (await r.json()) as any }))));
    expect(answers.filter((a) => a.code === 201)).toHaveLength(4);
    const refused = answers.filter((a) => a.code === 403);
    expect(refused).toHaveLength(6);
    for (const r of refused) expect(r.body.message).toMatch(/^pods "p\d" is forbidden: exceeded quota: q, requested: pods=1, used: pods=4, limited: pods=4$/);
    const quota = (await (await fetch(`${url}/api/v1/namespaces/race/resourcequotas/q`)).json()) as any;
    expect(quota.status.used).toEqual({ pods: '4' });
  });

  it('reads each quota version afresh: a raised limit admits once the controller has copied it to status.hard, and kinds the quota does not count pass', async () => {
    const store = storeWithControllers('team');
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'team' }, spec: { hard: { pods: '1' } } });
    await until(() => (store.get(QUOTAS, 'team', 'q') as any)?.status?.used?.pods === '0', 5000);
    const pods = store.resolve(PODS);
    store.createObject(pods, pod('p0', 'team'));
    expect(() => store.createObject(pods, pod('p1', 'team'))).toThrow('exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
    // A ConfigMap counts toward nothing this quota limits.
    store.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'cm', namespace: 'team' }, data: {} });
    // p0's usage written (as it is before an HTTP create is answered), then the spec raised.
    await store.admissionWrites?.();
    const q = store.get(QUOTAS, 'team', 'q') as any;
    store.update(QUOTAS, { ...q, spec: { hard: { pods: '2', 'count/configmaps': '1' } } });
    // kube's admission limits by status.hard: until the controller has synced the new spec, the old limit holds.
    expect(() => store.createObject(pods, pod('p1', 'team'))).toThrow('exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
    await until(() => (store.get(QUOTAS, 'team', 'q') as any)?.status?.hard?.pods === '2', 5000);
    store.createObject(pods, pod('p1', 'team'));
    expect(() => store.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'cm2', namespace: 'team' }, data: {} }))
      .toThrow(/exceeded quota: q, requested: count\/configmaps=1, used: count\/configmaps=\d, limited: count\/configmaps=1/);
  });

  it('an admitted create keeps the usage of what it does not count in the status it writes (the controller\'s, as last written)', async () => {
    const store = storeWithControllers('keep');
    const CONFIGMAPS = store.resolve({ group: '', version: 'v1', resource: 'configmaps' });
    store.createObject(CONFIGMAPS, { metadata: { name: 'cm', namespace: 'keep' } });
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'keep' }, spec: { hard: { pods: '5', 'count/configmaps': '5' } } });
    // The namespace's configmaps (ours and the controllers' kube-root-ca.crt) counted: not zero.
    const configmaps = () => (store.get(QUOTAS, 'keep', 'q') as any)?.status?.used?.['count/configmaps'];
    await until(() => configmaps() !== undefined && configmaps() !== '0', 5000);
    // The first status write after the create is admission's (the controller's recount, if any, comes later and finds nothing to change).
    const written: any[] = [];
    store.onCommit((c, t) => { if (t.resource === 'resourcequotas' && c.type === 'MODIFIED') written.push(JSON.parse(c.cur.json)); });
    const counted = configmaps();
    store.createObject(store.resolve(PODS), pod('p', 'keep'));
    await store.admissionWrites?.();
    expect(written[0].status.used).toEqual({ pods: '1', 'count/configmaps': counted });
    // Written as kube's quota admission writes it: the status subresource, by the controller manager's identity.
    expect(written[0].metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kube-controller-manager', operation: 'Update', subresource: 'status' })]);
  });

  it('admission\'s status writes leave managedFields as the controller wrote them, time included; a status.used name a client took goes back to kube-controller-manager, as kube\'s field manager moves it', async () => {
    const store = storeWithControllers('owners');
    const quotas = store.resolve(QUOTAS);
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'owners' }, spec: { hard: { pods: '50', 'requests.cpu': '10' } } });
    await until(() => (store.get(QUOTAS, 'owners', 'q') as any)?.status?.used?.pods === '0', 5000);
    const quota = () => store.get(QUOTAS, 'owners', 'q') as any;
    const synced = quota().metadata.managedFields;
    expect(synced).toEqual([expect.objectContaining({ manager: 'kube-controller-manager', operation: 'Update', subresource: 'status' })]);
    // Past a second boundary, so that an entry the writes below moved would show a new time.
    await until(() => kubeTime(new Date()) !== synced[0].time, 5000);
    const batches = async (prefix: string): Promise<void> => {
      for (let batch = 0; batch < 3; batch++) {
        for (let i = 0; i < 3; i++) store.createObject(store.resolve(PODS), pod(`${prefix}${batch}-${i}`, 'owners'));
        await store.admissionWrites?.();
      }
    };
    await batches('a');
    expect(quota().status.used).toEqual({ pods: '9', 'requests.cpu': '900m' });
    expect(quota().metadata.managedFields).toEqual(synced);

    // A client's two status writes take status.used.pods from the controller manager's entry and leave its value as
    // counted, so the quota controller (which ignores status writes, and has nothing queued) finds nothing to put back.
    await until(() => running[0].pending() === 0, 5000);
    const fix = (pods: string): void => {
      const q = quota();
      store.updateObject(quotas, { ...q, status: { ...q.status, used: { ...q.status.used, pods } } }, { subresource: 'status', fields: updateFields(quotas, 'quota-fixer', 'status') });
    };
    fix('20');
    fix('9');
    expect(quota().metadata.managedFields.map((e: any) => e.manager)).toEqual(['kube-controller-manager', 'quota-fixer']);
    // Admission's next write changes it: kube-controller-manager takes it back (a new time: its set grew) and the
    // client's entry, left empty, goes.
    store.createObject(store.resolve(PODS), pod('b', 'owners'));
    await store.admissionWrites?.();
    expect(quota().status.used).toEqual({ pods: '10', 'requests.cpu': '1' });
    const retaken = quota().metadata.managedFields;
    expect(retaken).toEqual([{ ...synced[0], time: expect.any(String) }]);
    expect(retaken[0].time).not.toBe(synced[0].time);
    await batches('c');
    expect(quota().status.used.pods).toBe('19');
    expect(quota().metadata.managedFields).toEqual(retaken);
  });

  it('a quota the controller has not synced yet restricts nothing (no status.hard), as in kube; once synced it binds', async () => {
    const store = storeWithControllers('fresh');
    store.createObject(store.resolve(PODS), pod('before', 'fresh'));
    // Created and written to in one turn of the event loop: the quota has no status yet.
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'fresh' }, spec: { hard: { pods: '1' } } });
    expect((store.get(QUOTAS, 'fresh', 'q') as any).status?.hard).toBeUndefined();
    store.createObject(store.resolve(PODS), pod('after', 'fresh'));
    // The controller's first sync counts both pods, over the limit; from then on the limit binds.
    await until(() => (store.get(QUOTAS, 'fresh', 'q') as any)?.status?.used?.pods === '2', 5000);
    expect(() => store.createObject(store.resolve(PODS), pod('third', 'fresh'))).toThrow('pods "third" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=1');
  });

  it('a quota whose status.used lacks a name its status.hard limits refuses the write: kube\'s "status unknown for quota"', async () => {
    const store = storeWithControllers('unknown');
    store.create(QUOTAS, { metadata: { name: 'q', namespace: 'unknown' }, spec: { hard: { pods: '5', 'requests.cpu': '1', 'count/configmaps': '3' } } });
    await until(() => (store.get(QUOTAS, 'unknown', 'q') as any)?.status?.used?.pods === '0', 5000);
    const q = store.get(QUOTAS, 'unknown', 'q') as any;
    // A status whose used lacks what hard limits (a client's write here; kube's controller leaves it until its resync).
    store.updateObject(store.resolve(QUOTAS), { ...q, status: { hard: q.status.hard, used: { 'count/configmaps': q.status.used['count/configmaps'] } } }, { subresource: 'status' });
    expect(() => store.createObject(store.resolve(PODS), pod('p', 'unknown'))).toThrow('pods "p" is forbidden: status unknown for quota: q, resources: pods,requests.cpu');
    // A kind whose names are all counted passes.
    store.create({ group: '', version: 'v1', resource: 'configmaps' }, { metadata: { name: 'cm', namespace: 'unknown' }, data: {} });
  });

  it('checks every quota\'s constraints and usage before any charge: one quota\'s "status unknown" comes before another\'s "exceeded quota", as in kube', async () => {
    const store = storeWithControllers('two');
    store.create(QUOTAS, { metadata: { name: 'a', namespace: 'two' }, spec: { hard: { pods: '0' } } });
    store.create(QUOTAS, { metadata: { name: 'b', namespace: 'two' }, spec: { hard: { pods: '5' } } });
    await until(() => ['a', 'b'].every((n) => (store.get(QUOTAS, 'two', n) as any)?.status?.used?.pods === '0'), 5000);
    const b = store.get(QUOTAS, 'two', 'b') as any;
    store.updateObject(store.resolve(QUOTAS), { ...b, status: { hard: b.status.hard, used: {} } }, { subresource: 'status' });
    expect(() => store.createObject(store.resolve(PODS), pod('p', 'two'))).toThrow('pods "p" is forbidden: status unknown for quota: b, resources: pods');
  });
});
