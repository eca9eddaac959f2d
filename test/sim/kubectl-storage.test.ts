// Conformance: real kubectl (v1.32) against the sim's storage — storage.k8s.io kinds (discovery, tables, explain,
// defaults, immutable fields), the PV binder (a claim and a matching volume Bound both ways with claimRef), the sim's
// provisioner kwatch.dev/sim (Immediate at once, WaitForFirstConsumer once a pod is scheduled) and reclaim on delete.
import { describe, expect, it } from 'vitest';
import { kubectlSim, until } from './sim-helpers.js';

// A 1.32 server (the default is the newest release, which serves more kinds: kube-versions.test.ts).
const fx = kubectlSim({ kubeVersion: '1.32', nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.02, podStartMs: 100 } }, 'kwatch-storage-');
const { kubectl, file } = fx;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.split(/\s{2,}/));
const getJson = async (...args: string[]): Promise<any> => {
  const r = await kubectl('get', ...args, '-o', 'json');
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
};
const phaseOf = async (what: string): Promise<string> => (await kubectl('get', what, '-o', 'jsonpath={.status.phase}')).stdout;
/**
 * Several objects from one kubectl run (`get pvc/a pv/b -o json`, or whole kinds: `get pvc,pv -o json`), where a
 * test read each with a run of its own: `of(kind, name)` is the object as `get KIND NAME -o json` shows it.
 */
const getAll = async (...args: string[]): Promise<{ of(kind: string, name: string): any }> => {
  const list = await getJson(...args);
  return { of: (kind, name) => list.items.find((o: any) => o.kind === kind && o.metadata.name === name) };
};
/** The phases of several objects (`pvc/a`, `pv/b`) from one kubectl run, in the order asked. */
const phasesOf = async (...what: string[]): Promise<string[]> => (await kubectl('get', ...what, '-o', 'jsonpath={.items[*].status.phase}')).stdout.split(' ');

/*
 * The waits below read the sim's store in process (a kubectl per poll cost more CPU than the binder it waited on);
 * what a test asserts once a wait is over is still read with kubectl.
 */
const PVCS = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const PVS = { group: '', version: 'v1', resource: 'persistentvolumes' };
const EVENTS = { group: '', version: 'v1', resource: 'events' };
/** What phaseOf reads ("pvc/NAME" in default, or "pv/NAME"), from the store. */
const storedPhase = (what: string): string | undefined => {
  const [kind, name] = what.split('/');
  const obj = kind === 'pv' ? fx.sim.api.get(PVS, undefined, name) : fx.sim.api.get(PVCS, 'default', name);
  return (obj?.status as { phase?: string } | undefined)?.phase;
};
/** Whether an event about the claim (what `kubectl describe pvc` lists) says `text`. */
const claimEventSays = (claim: string, text: string): boolean => fx.sim.api.list(EVENTS, 'default')
  .some((e: any) => e.involvedObject?.kind === 'PersistentVolumeClaim' && e.involvedObject?.name === claim && String(e.message).includes(text));

describe('kubectl storage against the sim', () => {
  it('serves storage.k8s.io/v1 with discovery, tables, explain and the seeded default StorageClass', async () => {
    const r = await kubectl('api-resources', '--api-group=storage.k8s.io', '--no-headers');
    expect(r.stderr).toBe('');
    expect(rows(r.stdout).map((l) => l.join(' '))).toEqual([
      'csidrivers storage.k8s.io/v1 false CSIDriver',
      'csinodes storage.k8s.io/v1 false CSINode',
      'csistoragecapacities storage.k8s.io/v1 true CSIStorageCapacity',
      'storageclasses sc storage.k8s.io/v1 false StorageClass',
      'volumeattachments storage.k8s.io/v1 false VolumeAttachment',
    ]);
    const sc = rows((await kubectl('get', 'sc')).stdout);
    expect(sc[0]).toEqual(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(sc[1].slice(0, 5)).toEqual(['standard (default)', 'kwatch.dev/sim', 'Delete', 'WaitForFirstConsumer', 'false']);
    const explain = await kubectl('explain', 'storageclass.volumeBindingMode');
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toContain('FIELD: volumeBindingMode <string>');

    // Client-side validation (kubectl apply reads the OpenAPI) and SetDefaults_CSIDriver, shown in kube's columns.
    const csi = file('csi.yaml', 'apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: hostpath.csi.k8s.io\nspec:\n  podInfoOnMount: true\n');
    expect((await kubectl('apply', '-f', csi)).stdout.trim()).toBe('csidriver.storage.k8s.io/hostpath.csi.k8s.io created');
    const d = rows((await kubectl('get', 'csidrivers')).stdout);
    expect(d[0]).toEqual(['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
    expect(d[1].slice(0, 7)).toEqual(['hostpath.csi.k8s.io', 'true', 'true', 'false', '<unset>', 'false', 'Persistent']);
    const bad = file('csi-bad.yaml', 'apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: x\nspec:\n  bogus: 1\n');
    const refused = await kubectl('apply', '-f', bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('unknown field "spec.bogus"');
  });

  it('stores CSINodes, VolumeAttachments (with status) and CSIStorageCapacities and prints kube\'s columns', async () => {
    const manifests = [
      'apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata:\n  name: node-001\nspec:\n  drivers:\n  - {name: hostpath.csi.k8s.io, nodeID: node-001}\n',
      'apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata:\n  name: va-1\nspec:\n  attacher: hostpath.csi.k8s.io\n  nodeName: node-001\n  source: {persistentVolumeName: pv-x}\n',
      'apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata:\n  name: cap-1\n  namespace: default\nstorageClassName: standard\ncapacity: 100Gi\n',
    ];
    const r = await kubectl('apply', '-f', file('csi-objects.yaml', manifests.join('---\n')));
    expect(r.stderr).toBe('');
    expect(rows((await kubectl('get', 'csinodes')).stdout).map((l) => l.slice(0, 2))).toEqual([['NAME', 'DRIVERS'], ['node-001', '1']]);
    const va = rows((await kubectl('get', 'volumeattachments')).stdout);
    expect(va[0]).toEqual(['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE']);
    expect(va[1].slice(0, 5)).toEqual(['va-1', 'hostpath.csi.k8s.io', 'pv-x', 'node-001', 'false']);
    // An attacher reports through the status subresource.
    const patched = await kubectl('patch', 'volumeattachment', 'va-1', '--subresource=status', '--type=merge', '-p', '{"status":{"attached":true}}');
    expect(patched.stderr).toBe('');
    expect(rows((await kubectl('get', 'volumeattachment', 'va-1', '--no-headers')).stdout)[0][4]).toBe('true');
    expect(rows((await kubectl('get', 'csistoragecapacities')).stdout)).toEqual([['NAME', 'STORAGECLASSNAME', 'CAPACITY'], ['cap-1', 'standard', '100Gi']]);
    const incomplete = await kubectl('create', '-f', file('va-bad.yaml', 'apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata:\n  name: va-2\nspec:\n  attacher: x\n  source: {}\n'));
    expect(incomplete.code).toBe(1);
    expect(incomplete.stderr).toContain('The VolumeAttachment "va-2" is invalid: \n* spec.nodeName: Required value\n* spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName');
  });

  it('applies a StorageClass with kube\'s defaults and refuses changes to its provisioner and parameters', async () => {
    const v1 = file('fast.yaml', 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\nprovisioner: kwatch.dev/sim\nparameters:\n  type: ssd\n');
    expect((await kubectl('apply', '-f', v1)).stdout.trim()).toBe('storageclass.storage.k8s.io/fast created');
    const sc = await getJson('sc', 'fast');
    expect([sc.reclaimPolicy, sc.volumeBindingMode]).toEqual(['Delete', 'Immediate']);
    const v2 = file('fast.yaml', 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\nprovisioner: example.com/other\nparameters:\n  type: hdd\n');
    const r = await kubectl('apply', '-f', v2);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The StorageClass "fast" is invalid: \n* parameters: Forbidden: updates to parameters are forbidden.\n* provisioner: Forbidden: updates to provisioner are forbidden.');
    const none = await kubectl('create', '-f', file('noprov.yaml', 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: empty\nprovisioner: ""\n'));
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('The StorageClass "empty" is invalid: provisioner: Required value');
  });

  it('binds a claim to the smallest matching Available volume: both Bound, claimRef, volumeName and the binder\'s annotations', async () => {
    const pv = (name: string, size: string, labels = ''): string => `apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: ${name}\n${labels}spec:\n  capacity: {storage: ${size}}\n  accessModes: [ReadWriteOnce]\n  storageClassName: manual\n  persistentVolumeReclaimPolicy: Retain\n  hostPath: {path: /data/${name}}\n`;
    await kubectl('apply', '-f', file('pvs.yaml', [pv('pv-small', '1Gi'), pv('pv-big', '10Gi'), pv('pv-mid', '5Gi')].join('---\n')));
    await until(() => ['pv-small', 'pv-big', 'pv-mid'].every((n) => storedPhase(`pv/${n}`) === 'Available'), 10_000);
    expect((await kubectl('get', 'pv', '--no-headers')).stdout.split('\n').filter((l) => l.includes('Available'))).toHaveLength(3);
    const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  storageClassName: manual\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 3Gi}}\n';
    expect((await kubectl('apply', '-f', file('claim.yaml', claim))).stdout.trim()).toBe('persistentvolumeclaim/data created');
    await until(() => storedPhase('pvc/data') === 'Bound', 10_000);
    const bound = await getAll('pvc/data', 'pv/pv-mid');
    const pvc = bound.of('PersistentVolumeClaim', 'data');
    expect(pvc.spec.volumeName).toBe('pv-mid');
    expect(pvc.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
    expect(pvc.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    const vol = bound.of('PersistentVolume', 'pv-mid');
    expect(vol.status.phase).toBe('Bound');
    expect(vol.spec.claimRef).toMatchObject({ kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: pvc.metadata.uid, apiVersion: 'v1' });
    expect(vol.metadata.annotations['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    // Both tables from one run (kubectl names each row with its kind): the claim's header and row, then the volume's.
    const [, g, , v] = rows((await kubectl('get', 'pvc/data', 'pv/pv-mid')).stdout);
    expect(g.slice(0, 6)).toEqual(['persistentvolumeclaim/data', 'Bound', 'pv-mid', '5Gi', 'RWO', 'manual']);
    expect(v.slice(0, 7)).toEqual(['persistentvolume/pv-mid', '5Gi', 'RWO', 'Retain', 'Bound', 'default/data', 'manual']);

    // Pre-binding: a claim naming its volume gets that one (not the smaller fit), and no bound-by-controller on the claim.
    const pinned = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: pinned\nspec:\n  storageClassName: manual\n  volumeName: pv-big\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n';
    await kubectl('apply', '-f', file('pinned.yaml', pinned));
    await until(() => storedPhase('pvc/pinned') === 'Bound' && storedPhase('pv/pv-big') === 'Bound', 10_000);
    const pinnedState = await getAll('pvc/pinned', 'pv/pv-big', 'pv/pv-small');
    const p = pinnedState.of('PersistentVolumeClaim', 'pinned');
    expect([p.status.phase, pinnedState.of('PersistentVolume', 'pv-big').status.phase]).toEqual(['Bound', 'Bound']);
    expect(p.metadata.annotations['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    expect(p.status.capacity).toEqual({ storage: '10Gi' });
    expect(pinnedState.of('PersistentVolume', 'pv-small').status.phase).toBe('Available');
  });

  it('a claim whose selector matches no volume stays Pending', async () => {
    const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: picky\nspec:\n  storageClassName: manual\n  selector: {matchLabels: {tier: gold}}\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n';
    await kubectl('apply', '-f', file('picky.yaml', claim));
    // No volume fits and no class "manual" exists to provision from: kube's binder says so in an event.
    await until(() => claimEventSays('picky', 'storageclass.storage.k8s.io "manual" not found'), 10_000);
    expect((await kubectl('describe', 'pvc', 'picky')).stdout).toContain('storageclass.storage.k8s.io "manual" not found');
    expect(await phasesOf('pvc/picky', 'pv/pv-small')).toEqual(['Pending', 'Available']);
    await kubectl('label', 'pv', 'pv-small', 'tier=gold');
    await until(() => storedPhase('pvc/picky') === 'Bound', 10_000);
    const picky = await getJson('pvc', 'picky');
    expect([picky.status.phase, picky.spec.volumeName]).toEqual(['Bound', 'pv-small']);
  });

  it('a claim asking for two access modes binds only a volume offering both, even a larger one', async () => {
    const pv = (name: string, size: string, modes: string): string => `apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: ${name}\nspec:\n  capacity: {storage: ${size}}\n  accessModes: [${modes}]\n  storageClassName: modes\n  persistentVolumeReclaimPolicy: Retain\n  hostPath: {path: /data/${name}}\n`;
    await kubectl('apply', '-f', file('mode-pvs.yaml', [pv('pv-rwo', '2Gi', 'ReadWriteOnce'), pv('pv-rwo-rox', '8Gi', 'ReadWriteOnce, ReadOnlyMany')].join('---\n')));
    await until(() => storedPhase('pv/pv-rwo') === 'Available' && storedPhase('pv/pv-rwo-rox') === 'Available', 10_000);
    expect((await kubectl('get', 'pv', 'pv-rwo', 'pv-rwo-rox', '-o', 'jsonpath={.items[*].status.phase}')).stdout).toBe('Available Available');
    const claim = (name: string, modes: string) => `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ${name}\nspec:\n  storageClassName: modes\n  accessModes: [${modes}]\n  resources: {requests: {storage: 1Gi}}\n`;
    // No volume offers ReadWriteMany: pending, and the smaller ReadWriteOnce volume stays free.
    await kubectl('apply', '-f', file('rwx.yaml', claim('rwo-rwx', 'ReadWriteOnce, ReadWriteMany')));
    await until(() => claimEventSays('rwo-rwx', 'storageclass.storage.k8s.io "modes" not found'), 10_000);
    expect((await kubectl('describe', 'pvc', 'rwo-rwx')).stdout).toContain('storageclass.storage.k8s.io "modes" not found');
    expect(await phaseOf('pvc/rwo-rwx')).toBe('Pending');
    await kubectl('apply', '-f', file('rox.yaml', claim('rwo-rox', 'ReadWriteOnce, ReadOnlyMany')));
    await until(() => storedPhase('pvc/rwo-rox') === 'Bound', 10_000);
    const modes = await getAll('pvc/rwo-rox', 'pv/pv-rwo', 'pvc/rwo-rwx');
    const rox = modes.of('PersistentVolumeClaim', 'rwo-rox');
    expect([rox.status.phase, rox.spec.volumeName]).toEqual(['Bound', 'pv-rwo-rox']);
    expect(modes.of('PersistentVolume', 'pv-rwo').status.phase).toBe('Available');
    expect(modes.of('PersistentVolumeClaim', 'rwo-rwx').status.phase).toBe('Pending');
  });

  it('deleting a claim releases its volume: Retain keeps it Released, Delete removes it', async () => {
    expect((await kubectl('delete', 'pvc', 'data')).stdout.trim()).toBe('persistentvolumeclaim "data" deleted');
    await until(() => storedPhase('pv/pv-mid') === 'Released', 10_000);
    const released = await getJson('pv', 'pv-mid');
    expect([released.status.phase, released.spec.claimRef.name]).toEqual(['Released', 'data']);

    const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: scratch\nspec:\n  storageClassName: fast\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 2Gi}}\n';
    await kubectl('apply', '-f', file('scratch.yaml', claim));
    await until(() => storedPhase('pvc/scratch') === 'Bound', 10_000);
    const provisioned = await getAll('pvc,pv');
    const scratch = provisioned.of('PersistentVolumeClaim', 'scratch');
    expect(scratch.status.phase).toBe('Bound');
    const volume = scratch.spec.volumeName;
    expect(provisioned.of('PersistentVolume', volume).spec.persistentVolumeReclaimPolicy).toBe('Delete');
    await kubectl('delete', 'pvc', 'scratch');
    await until(() => fx.sim.api.get(PVS, undefined, volume) === undefined, 10_000);
    expect((await kubectl('get', 'pv', volume)).stderr).toContain('NotFound');
  });

  it('provisions for a StorageClass the sim owns: Immediate at once, WaitForFirstConsumer once a pod using the claim is scheduled', async () => {
    const claim = (name: string, cls: string): string => `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ${name}\nspec:\n  ${cls}accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 2Gi}}\n`;
    await kubectl('apply', '-f', file('now.yaml', claim('now', 'storageClassName: fast\n  ')));
    await until(() => storedPhase('pvc/now') === 'Bound', 10_000);
    const immediate = await getAll('pvc,pv');
    const now = immediate.of('PersistentVolumeClaim', 'now');
    expect(now.status.phase).toBe('Bound');
    expect(now.spec.volumeName).toBe(`pvc-${now.metadata.uid}`);
    expect(now.metadata.annotations['volume.kubernetes.io/storage-provisioner']).toBe('kwatch.dev/sim');
    const pv = immediate.of('PersistentVolume', now.spec.volumeName);
    expect(pv.metadata.annotations['pv.kubernetes.io/provisioned-by']).toBe('kwatch.dev/sim');
    expect(pv.spec).toMatchObject({ capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'fast', persistentVolumeReclaimPolicy: 'Delete' });
    expect(pv.status.phase).toBe('Bound');

    // No storageClassName: the default class ("standard", WaitForFirstConsumer) is filled in; the claim waits for a pod.
    await kubectl('apply', '-f', file('later.yaml', claim('later', '')));
    expect((await getJson('pvc', 'later')).spec.storageClassName).toBe('standard');
    await until(() => claimEventSays('later', 'waiting for first consumer to be created before binding'), 10_000);
    expect((await kubectl('describe', 'pvc', 'later')).stdout).toContain('waiting for first consumer to be created before binding');
    expect(await phaseOf('pvc/later')).toBe('Pending');
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: user\nspec:\n  containers:\n  - name: c\n    image: nginx\n    volumeMounts: [{name: d, mountPath: /d}]\n  volumes:\n  - name: d\n    persistentVolumeClaim: {claimName: later}\n';
    await kubectl('apply', '-f', file('user.yaml', pod));
    await until(() => storedPhase('pvc/later') === 'Bound', 10_000);
    const consumed = await getAll('pvc,pv,pods');
    const later = consumed.of('PersistentVolumeClaim', 'later');
    expect(later.status.phase).toBe('Bound');
    const node = consumed.of('Pod', 'user').spec.nodeName;
    expect(later.metadata.annotations['volume.kubernetes.io/selected-node']).toBe(node);
    const lpv = consumed.of('PersistentVolume', later.spec.volumeName);
    expect(lpv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]).toEqual({ key: 'kubernetes.io/hostname', operator: 'In', values: [node] });
    expect((await kubectl('describe', 'pvc', 'later')).stdout).toContain(`Successfully provisioned volume ${later.spec.volumeName}`);
  });

  it('binds the claims of a StatefulSet\'s volumeClaimTemplates through the default class', async () => {
    const sts = 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 2\n  serviceName: db\n  podManagementPolicy: Parallel\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: c, image: nginx}]\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources: {requests: {storage: 1Gi}}\n';
    await kubectl('apply', '-f', file('sts.yaml', sts));
    await until(() => storedPhase('pvc/data-db-0') === 'Bound' && storedPhase('pvc/data-db-1') === 'Bound', 15_000);
    const g = rows((await kubectl('get', 'pvc', 'data-db-0', 'data-db-1', '--no-headers')).stdout);
    expect(g.map((r) => [r[0], r[1], r[3], r[5]])).toEqual([['data-db-0', 'Bound', '1Gi', 'standard'], ['data-db-1', 'Bound', '1Gi', 'standard']]);
  });
});
