// Conformance: real kubectl (v1.32) against the sim's ResourceQuota enforcement — creates past status.hard get kube's
// 403 "exceeded quota" (object counts, compute requests/limits, claimed storage), pods lacking a request a quota
// limits get "must specify", and status.used follows creates, deletes and pods that finish.
import { describe, expect, it } from 'vitest';
import { kubectlSim, until } from './sim-helpers.js';

// 30 s of grace take 60 ms, pods start after 20 ms, a Job's pod runs 50 ms: no test here is about those times, only
// about what the quota counts once they are over (every wait is for a state).
const fx = kubectlSim({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.002, podStartMs: 20, jobPodRunMs: 50 } }, 'kwatch-quota-');
const { kubectl, file } = fx;

const used = async (ns: string, name: string): Promise<Record<string, string>> => JSON.parse((await kubectl('get', 'quota', name, '-n', ns, '-o', 'jsonpath={.status.used}')).stdout || '{}');
/*
 * The waits below read the sim's store in process (a kubectl per poll cost more CPU than the quota controller it
 * waited on); what a test asserts once a wait is over is still read with kubectl.
 */
const storedUsed = (ns: string, name: string): Record<string, string> =>
  (fx.sim.api.get({ group: '', version: 'v1', resource: 'resourcequotas' }, ns, name)?.status as { used?: Record<string, string> } | undefined)?.used ?? {};
/**
 * Waits until the quota controller has synced a quota (status.hard is spec.hard, status.used has each name), as a user
 * must before relying on it: kube's admission limits by status.hard and refuses writes while status.used lacks a name.
 */
async function quotaSynced(ns: string, name: string): Promise<void> {
  await until(() => {
    const q = fx.sim.api.get({ group: '', version: 'v1', resource: 'resourcequotas' }, ns, name) as { spec?: { hard?: Record<string, string> }; status?: { hard?: Record<string, string>; used?: Record<string, string> } } | undefined;
    const hard = q?.spec?.hard ?? {};
    return JSON.stringify(q?.status?.hard ?? null) === JSON.stringify(hard) && Object.keys(hard).every((n) => q?.status?.used?.[n] !== undefined);
  }, 10_000);
}
const podWith = (name: string, ns: string, resources: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  containers:\n  - name: ${name}\n    image: nginx\n    resources: ${resources}\n`;

describe('kubectl and ResourceQuota on the sim', () => {
  it('a quota kube refuses is refused with its 422: a scope that does not limit a hard resource, a hard name that is no quota resource', async () => {
    const scoped = await kubectl('create', 'quota', 'scoped', '-n', 'default', '--hard=requests.cpu=1', '--scopes=BestEffort');
    expect(scoped.code).toBe(1);
    expect(scoped.stderr.trim()).toBe('error: failed to create quota: ResourceQuota "scoped" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource');
    const named = await kubectl('create', 'quota', 'named', '-n', 'default', '--hard=storage=1Gi');
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota');
    expect((await kubectl('get', 'quota', '-n', 'default', '-o', 'name')).stdout.trim()).toBe('');
  });

  it('refuses the pod past `pods` with kube\'s exceeded-quota message and exit code, and counts what it admits', async () => {
    expect((await kubectl('create', 'namespace', 'counts')).code).toBe(0);
    const q = await kubectl('create', 'quota', 'objects', '-n', 'counts', '--hard=pods=2,count/configmaps=2,services=1');
    expect(q.stdout.trim()).toBe('resourcequota/objects created');
    // What a user runs before relying on a new quota (the docs' line): wait for the controller to count it.
    const wait = await kubectl('wait', '--for=jsonpath={.status.used.pods}', 'quota/objects', '-n', 'counts', '--timeout=20s');
    expect(wait.stdout.trim()).toBe('resourcequota/objects condition met');
    await quotaSynced('counts', 'objects');
    for (const p of ['a', 'b']) expect((await kubectl('run', p, '-n', 'counts', '--image=nginx')).code).toBe(0);
    const over = await kubectl('create', '-f', file('c.yaml', podWith('c', 'counts', '{}')));
    expect(over.code).toBe(1);
    expect(over.stderr.trim()).toBe('Error from server (Forbidden): error when creating "' + fx.dir + '/c.yaml": pods "c" is forbidden: exceeded quota: objects, requested: pods=1, used: pods=2, limited: pods=2');
    // count/configmaps: the namespace's kube-root-ca.crt counts as it does in kube.
    expect((await kubectl('create', 'configmap', 'one', '-n', 'counts')).code).toBe(0);
    const cm = await kubectl('create', 'configmap', 'two', '-n', 'counts');
    expect(cm.code).toBe(1);
    expect(cm.stderr.trim()).toBe('error: failed to create configmap: configmaps "two" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2');
    expect((await kubectl('create', 'service', 'clusterip', 'web', '--tcp=80', '-n', 'counts')).code).toBe(0);
    expect((await kubectl('create', 'service', 'clusterip', 'api', '--tcp=80', '-n', 'counts')).stderr).toContain('services "api" is forbidden: exceeded quota: objects, requested: services=1, used: services=1, limited: services=1');
    expect(await used('counts', 'objects')).toEqual({ 'count/configmaps': '2', pods: '2', services: '1' });

    // describe shows status.used; a deleted pod frees its place.
    const d = await kubectl('describe', 'quota', 'objects', '-n', 'counts');
    expect(d.stdout).toMatch(/pods\s+2\s+2/);
    await kubectl('delete', 'pod', 'a', '-n', 'counts', '--wait=true');
    await until(() => storedUsed('counts', 'objects').pods === '1', 10_000);
    expect((await used('counts', 'objects')).pods).toBe('1');
    expect((await kubectl('create', '-f', file('c.yaml', podWith('c', 'counts', '{}')))).code).toBe(0);
    // A dry run is checked but changes nothing.
    const dry = await kubectl('run', 'd', '-n', 'counts', '--image=nginx', '--dry-run=server');
    expect(dry.stderr).toContain('exceeded quota: objects, requested: pods=1, used: pods=2, limited: pods=2');
  });

  it('limits compute: requests and limits are summed, and a pod lacking what the quota limits is refused with "must specify"', async () => {
    await kubectl('create', 'namespace', 'compute');
    await kubectl('create', 'quota', 'compute', '-n', 'compute', '--hard=requests.cpu=1,limits.memory=1Gi');
    await quotaSynced('compute', 'compute');
    const bare = await kubectl('create', '-f', file('bare.yaml', podWith('bare', 'compute', '{}')));
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: bare; requests.cpu for: bare');
    const sized = (name: string, cpu: string): string => podWith(name, 'compute', `{requests: {cpu: ${cpu}}, limits: {memory: 512Mi}}`);
    expect((await kubectl('create', '-f', file('p1.yaml', sized('p1', '600m')))).code).toBe(0);
    const p2 = await kubectl('create', '-f', file('p2.yaml', sized('p2', '500m')));
    expect(p2.code).toBe(1);
    expect(p2.stderr).toContain('pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
    expect((await kubectl('create', '-f', file('p3.yaml', sized('p3', '400m')))).code).toBe(0);
    expect(await used('compute', 'compute')).toEqual({ 'limits.memory': '1Gi', 'requests.cpu': '1' });
    const p4 = await kubectl('create', '-f', file('p4.yaml', podWith('p4', 'compute', '{requests: {cpu: 0}, limits: {memory: 1Mi}}')));
    expect(p4.stderr).toContain('exceeded quota: compute, requested: limits.memory=1Mi, used: limits.memory=1Gi, limited: limits.memory=1Gi');
  });

  it('limits claims and their storage, per storage class too', async () => {
    await kubectl('create', 'namespace', 'disks');
    await kubectl('create', 'quota', 'disks', '-n', 'disks', '--hard=persistentvolumeclaims=2,requests.storage=5Gi,standard.storageclass.storage.k8s.io/requests.storage=3Gi');
    await quotaSynced('disks', 'disks');
    const claim = (name: string, size: string): string => `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ${name}\n  namespace: disks\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: ${size}}}\n`;
    const big = await kubectl('create', '-f', file('big.yaml', claim('big', '4Gi')));
    expect(big.code).toBe(1);
    expect(big.stderr).toContain('persistentvolumeclaims "big" is forbidden: exceeded quota: disks, requested: standard.storageclass.storage.k8s.io/requests.storage=4Gi, used: standard.storageclass.storage.k8s.io/requests.storage=0, limited: standard.storageclass.storage.k8s.io/requests.storage=3Gi');
    expect((await kubectl('create', '-f', file('one.yaml', claim('one', '2Gi')))).code).toBe(0);
    await until(() => storedUsed('disks', 'disks').persistentvolumeclaims === '1', 10_000);
    expect(await used('disks', 'disks')).toEqual({ persistentvolumeclaims: '1', 'requests.storage': '2Gi', 'standard.storageclass.storage.k8s.io/requests.storage': '2Gi' });
    // Growing a claim past the quota is refused too (kube evaluates claim updates).
    const grow = await kubectl('patch', 'pvc', 'one', '-n', 'disks', '-p', '{"spec":{"resources":{"requests":{"storage":"4Gi"}}}}');
    expect(grow.code).toBe(1);
    expect(grow.stderr).toContain('exceeded quota: disks, requested: standard.storageclass.storage.k8s.io/requests.storage=2Gi, used: standard.storageclass.storage.k8s.io/requests.storage=2Gi, limited: standard.storageclass.storage.k8s.io/requests.storage=3Gi');
  });

  it('pods that finish stop counting against `pods` (count/pods keeps them)', async () => {
    await kubectl('create', 'namespace', 'jobs');
    await kubectl('create', 'quota', 'live', '-n', 'jobs', '--hard=pods=1,count/pods=5');
    await quotaSynced('jobs', 'live');
    expect((await kubectl('create', 'job', 'once', '-n', 'jobs', '--image=busybox')).code).toBe(0);
    expect((await kubectl('wait', '--for=condition=complete', 'job/once', '-n', 'jobs', '--timeout=20s')).code).toBe(0);
    await until(() => storedUsed('jobs', 'live').pods === '0', 10_000);
    expect(await used('jobs', 'live')).toEqual({ 'count/pods': '1', pods: '0' });
    expect((await kubectl('run', 'after', '-n', 'jobs', '--image=nginx')).code).toBe(0);
    const json = JSON.parse((await kubectl('get', 'quota', 'live', '-n', 'jobs', '-o', 'json')).stdout);
    expect(json.status).toEqual({ hard: { 'count/pods': '5', pods: '1' }, used: { 'count/pods': '2', pods: '1' } });
  });

  it('a ReplicaSet past the quota runs what fits and tells why in a FailedCreate event', async () => {
    await kubectl('create', 'namespace', 'apps');
    await kubectl('create', 'quota', 'two', '-n', 'apps', '--hard=pods=2');
    await quotaSynced('apps', 'two');
    expect((await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3', '-n', 'apps')).code).toBe(0);
    await until(() => fx.sim.api.list({ group: '', version: 'v1', resource: 'events' }, 'apps')
      .some((e: any) => e.involvedObject?.kind === 'ReplicaSet' && e.reason === 'FailedCreate'), 15_000);
    const rs = (await kubectl('describe', 'rs', '-n', 'apps', '-l', 'app=web')).stdout;
    expect(rs).toMatch(/Warning\s+FailedCreate\s+.*Error creating: pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: two, requested: pods=1, used: pods=2, limited: pods=2/);
    expect((await kubectl('get', 'pods', '-n', 'apps', '--no-headers')).stdout.trim().split('\n')).toHaveLength(2);
  });
});
