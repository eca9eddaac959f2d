// `kwatch reconcile --from-recording`'s catalog, in-process: the names a controller may give a recorded
// resource, the one-line refusal of one the recording lacks, the resource a write's kind lands in offline,
// and each resource listed from its own part of the recording.
import { describe, expect, it } from 'vitest';
import { parseRecording } from '../../src/informer/recording/recording-reader.js';
import { VirtualClock } from '../../src/informer/recording/virtual-clock.js';
import { CatalogError } from '../../src/reconcile/catalog.js';
import { RecordingCatalog } from '../../src/reconcile/recording-catalog.js';
import { HEADER, pod, recordingText } from '../informer/recording/recording-fixture.js';

const deployment = (name: string, rv: number) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'default', name, resourceVersion: String(rv) } });

function catalog() {
  const header = {
    ...HEADER,
    resources: [
      { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
      { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
    ],
  };
  const entries = [
    { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0' }, page: { metadata: { resourceVersion: '100' }, items: [pod('a', 90)] } },
    { rec: 'list', t: 11, res: 1, conn: 2, options: { resourceVersion: '0' }, page: { metadata: { resourceVersion: '200' }, items: [deployment('web', 150), deployment('api', 160)] } },
  ];
  // The clock starts past every recorded time: each answer is due at once.
  const clock = new VirtualClock(Date.parse(HEADER.startTime) + 60_000);
  return new RecordingCatalog(parseRecording(recordingText(header, entries)), clock, 'run.kwr');
}

describe('RecordingCatalog', () => {
  it('resolves a recorded resource by every name kubectl accepts, in any case', async () => {
    const c = catalog();
    const pods = { name: 'pods', group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
    const deployments = { name: 'deployments.apps', group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
    for (const name of ['pods', 'Pods', 'pod', 'POD', 'pods.v1.']) expect(await c.resolve(name)).toEqual(pods);
    for (const name of ['deployments.apps', 'deployments', 'Deployment', 'deployments.v1.apps', 'DEPLOYMENTS.APPS']) expect(await c.resolve(name)).toEqual(deployments);
    // One object per resource: the informer factory and the writes compare them.
    expect(await c.resolve('pod')).toBe(await c.resolve('pods'));
  });

  it('refuses a resource the recording lacks in one line naming what it holds and how to record it', async () => {
    const c = catalog();
    const err = await c.resolve('configmaps').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogError);
    expect((err as Error).message).toBe('run.kwr holds no "configmaps" (it recorded pods, deployments.apps): record it too, e.g. kwatch events pods, deployments.apps,configmaps --record FILE');
    // Near misses are not taken for a recorded resource.
    for (const name of ['po', 'deployments.v2.apps', 'deployments.extensions', 'deploy']) await expect(c.resolve(name)).rejects.toBeInstanceOf(CatalogError);
  });

  it('resolveKind: a recorded kind in its group, else a resource named after the kind', async () => {
    const c = catalog();
    expect(await c.resolveKind('apps/v1', 'Deployment')).toBe(await c.resolve('deployments.apps'));
    expect(await c.resolveKind('v1', 'Pod')).toBe(await c.resolve('pods'));
    // The same kind in another group is another resource.
    expect(await c.resolveKind('extensions/v1beta1', 'Deployment')).toEqual({ name: 'deployments.extensions', group: 'extensions', version: 'v1beta1', resource: 'deployments', kind: 'Deployment', namespaced: true });
    expect(await c.resolveKind('v1', 'ConfigMap')).toEqual({ name: 'configmaps', group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true });
    // A kind ending in s takes "es"; the cluster-scoped kinds are not namespaced.
    expect(await c.resolveKind('networking.k8s.io/v1', 'IngressClass')).toMatchObject({ name: 'ingressclasses.networking.k8s.io', resource: 'ingressclasses', version: 'v1', namespaced: true });
    expect(await c.resolveKind('v1', 'Namespace')).toMatchObject({ name: 'namespaces', namespaced: false });
    for (const kind of ['Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'StorageClass', 'PriorityClass']) {
      expect((await c.resolveKind('v1', kind)).namespaced, kind).toBe(false);
    }
  });

  it('resolveKind names an unrecorded kind\'s resource as kube guesses it (a NetworkPolicy is networkpolicies)', async () => {
    const c = catalog();
    const resource = async (apiVersion: string, kind: string) => (await c.resolveKind(apiVersion, kind)).name;
    expect(await resource('networking.k8s.io/v1', 'NetworkPolicy')).toBe('networkpolicies.networking.k8s.io');
    expect(await resource('gateway.networking.k8s.io/v1', 'Gateway')).toBe('gateways.gateway.networking.k8s.io');
    expect(await resource('v1', 'Endpoints')).toBe('endpoints');
    expect(await resource('networking.k8s.io/v1', 'Ingress')).toBe('ingresses.networking.k8s.io');
    expect(await resource('example.com/v1', 'Patch')).toBe('patches.example.com');
    expect(await resource('example.com/v1', 'Mesh')).toBe('meshes.example.com');
    expect(await resource('example.com/v1', 'Box')).toBe('boxes.example.com');
    expect(await resource('example.com/v1', 'Quiz')).toBe('quizes.example.com');
    expect(await resource('example.com/v1', 'Key')).toBe('keys.example.com');
    expect(await resource('example.com/v1', 'Toy')).toBe('toys.example.com');
  });

  it('lists each resource from its own part of the recording, and is exhausted once every one read has played to its end', async () => {
    const c = catalog();
    // Nothing read yet: nothing left to play.
    expect(c.exhausted()).toBe(true);
    const deployments = c.listerWatcher(await c.resolve('deployments.apps'));
    const pods = c.listerWatcher(await c.resolve('pods'));
    const page = await deployments.list({});
    expect(page.metadata.resourceVersion).toBe('200');
    expect(page.items.map((i) => i.metadata.name)).toEqual(['web', 'api']);
    expect((await pods.list({})).items.map((i) => i.metadata.name)).toEqual(['a']);
    expect(c.exhausted()).toBe(false);
    // The recording ends after each list: a watch past the end leaves the resource played out.
    (await deployments.watch({ resourceVersion: '200' })).close();
    expect(c.exhausted()).toBe(false);
    (await pods.watch({ resourceVersion: '100' })).close();
    expect(c.exhausted()).toBe(true);
  });
});
