// Typed-list fidelity (issue 11): the sim's lists of built-in kinds leave kind/apiVersion out of their items as
// kube-apiserver does (watch events and custom resources keep them). client-node's informer is the judge that the
// difference shows; kwatch's own client fills them back in from the list's kind, as client-go's decoders do.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedIndexInformer } from '../../src/informer/index.js';
import { connectionFromUrl } from '../../src/kube/http/connection.js';
import { HttpListerWatcher } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { clientNodeFor, until } from './helpers.js';
import { tempDir } from '../temp-dir.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };

let sim: SimServer;
let dir: string;

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 0, churn: 0 });
  dir = tempDir('kwatch-typed-list-');
  sim.api.create(CONFIGMAPS, { metadata: { name: 'listed', namespace: 'default' }, data: { a: '1' } });
  sim.api.create(CRDS, {
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  });
  sim.api.create(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' } });
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function getJson(path: string): Promise<any> {
  const res = await fetch(sim.url + path, { headers: { Accept: 'application/json' } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('typed lists on the wire', () => {
  it('a built-in kind\'s list items carry no kind/apiVersion; the list does', async () => {
    const list = await getJson('/api/v1/namespaces/default/configmaps');
    expect([list.kind, list.apiVersion]).toEqual(['ConfigMapList', 'v1']);
    expect(list.items).toHaveLength(1);
    expect(list.items[0].kind).toBeUndefined();
    expect(list.items[0].apiVersion).toBeUndefined();
    expect(list.items[0]).toMatchObject({ metadata: { name: 'listed' }, data: { a: '1' } });
    // A single GET keeps them.
    expect(await getJson('/api/v1/namespaces/default/configmaps/listed')).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
  });

  it('custom resources keep kind/apiVersion in list items', async () => {
    const list = await getJson('/apis/example.com/v1/namespaces/default/widgets');
    expect(list.items[0]).toMatchObject({ kind: 'Widget', apiVersion: 'example.com/v1' });
  });

  it('watch events (the initial ADDED of resourceVersion=0 included) keep kind/apiVersion', async () => {
    const res = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&timeoutSeconds=1`);
    const first = JSON.parse((await res.text()).split('\n')[0]);
    expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'listed' } } });
  });
});

describe('clients reading those lists', () => {
  it('client-node\'s informer sees kind-less listed objects and kinds on watched ones', async () => {
    const { k8s, kc, core } = await clientNodeFor(sim, join(dir, 'config'));
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const added = new Map<string, { kind?: string; apiVersion?: string }>();
    informer.on('add', (o) => added.set(o.metadata!.name!, { kind: o.kind, apiVersion: o.apiVersion }));
    await informer.start();
    try {
      await until(() => added.has('listed'), 5000, () => 'the listed ConfigMap');
      sim.api.create(CONFIGMAPS, { metadata: { name: 'watched', namespace: 'default' } });
      await until(() => added.has('watched'), 5000, () => 'the watched ConfigMap');
      expect(added.get('listed')).toEqual({ kind: undefined, apiVersion: undefined });
      expect(added.get('watched')).toEqual({ kind: 'ConfigMap', apiVersion: 'v1' });
    } finally {
      await informer.stop();
      sim.api.delete(CONFIGMAPS, 'default', 'watched');
    }
  });

  it('kwatch\'s informer fills kind/apiVersion of listed items from the list\'s kind', async () => {
    const lw = new HttpListerWatcher(connectionFromUrl(sim.url), { group: '', version: 'v1', resource: 'configmaps', namespaced: true, namespace: 'default' });
    const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'configmaps', expectedKind: 'ConfigMap', fifo: 'delta', random: () => 0 });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    try {
      await informer.whenSynced(stop.signal);
      const cached = informer.getIndexer().getByKey('default/listed') as { kind?: string; apiVersion?: string } | undefined;
      expect(cached).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    } finally {
      stop.abort();
      await running.catch(() => undefined);
    }
  });
});
