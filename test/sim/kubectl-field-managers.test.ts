// Conformance: managedFields of the sim's own control plane under kube's manager names, and the client-side →
// server-side apply upgrade (`kubectl apply --server-side` after `kubectl apply` takes the fields over, no conflict),
// both judged through real kubectl.
import { describe, expect, it } from 'vitest';
import { kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.01, podStartMs: 50 } }, 'kwatch-field-managers-');
const kubectl = fx.kubectl;

type Entry = { manager: string; operation: string; subresource?: string; fieldsV1: Record<string, unknown> };

async function managers(resource: string, selector: string): Promise<[string, string, string | undefined, string[]][][]> {
  const r = await kubectl('get', resource, '-l', selector, '-o', 'json', '--show-managed-fields');
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).items.map((o: { metadata: { managedFields: Entry[] } }) =>
    // Entries sort by time first (kube's order): same-second writes may come either way, so compare them sorted.
    o.metadata.managedFields.map((e) => [e.manager, e.operation, e.subresource, Object.keys(e.fieldsV1)]).sort((a, b) => `${a[0]}/${a[2]}`.localeCompare(`${b[0]}/${b[2]}`)));
}

describe('managedFields of controller and kubelet writes', () => {
  it('a Deployment\'s ReplicaSet and pods are owned by kube-controller-manager, pod status by kubelet', async () => {
    await kubectl('create', 'deployment', 'mf', '--image=nginx:1.27', '--replicas=1');
    expect((await kubectl('rollout', 'status', 'deployment/mf', '--timeout=15s')).code).toBe(0);
    expect(await managers('deploy', 'app=mf')).toEqual([[
      ['kube-controller-manager', 'Update', 'status', ['f:status']],
      ['kube-controller-manager', 'Update', undefined, ['f:metadata']],
      ['kubectl-create', 'Update', undefined, ['f:metadata', 'f:spec']],
    ]]);
    expect(await managers('rs', 'app=mf')).toEqual([[
      ['kube-controller-manager', 'Update', 'status', ['f:status']],
      ['kube-controller-manager', 'Update', undefined, ['f:metadata', 'f:spec']],
    ]]);
    expect(await managers('pods', 'app=mf')).toEqual([[
      ['kube-controller-manager', 'Update', undefined, ['f:metadata', 'f:spec']],
      ['kubelet', 'Update', 'status', ['f:status']],
    ]]);
    // The revision annotation is the controller's; the pod's owner reference too.
    const d = JSON.parse((await kubectl('get', 'deploy', 'mf', '-o', 'json', '--show-managed-fields')).stdout);
    expect(d.metadata.managedFields.find((e: Entry) => e.manager === 'kube-controller-manager' && !e.subresource).fieldsV1).toEqual({ 'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } } });
  });

  it('events carry their component\'s manager (kube-scheduler, kubelet, kube-controller-manager)', async () => {
    const r = await kubectl('get', 'events', '-o', 'json', '--show-managed-fields');
    const seen = new Map<string, string>();
    for (const e of JSON.parse(r.stdout).items) seen.set(e.source.component, e.metadata.managedFields[0].manager);
    expect(seen.get('default-scheduler')).toBe('kube-scheduler');
    expect(seen.get('kubelet')).toBe('kubelet');
    expect(seen.get('deployment-controller')).toBe('kube-controller-manager');
  });
});

describe('client-side → server-side apply upgrade', () => {
  it('apply --server-side after a client-side apply takes over kubectl-client-side-apply\'s fields without a conflict', async () => {
    const v1 = fx.file('up.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up\n  labels: {team: a}\ndata:\n  a: "1"\n  b: "1"\n');
    expect((await kubectl('apply', '-f', v1)).stdout.trim()).toBe('configmap/up created');
    const v2 = fx.file('up.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up\n  labels: {team: a}\ndata:\n  a: "2"\n  b: "1"\n');
    const r = await kubectl('apply', '--server-side', '-f', v2);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('configmap/up serverside-applied');
    const cm = JSON.parse((await kubectl('get', 'cm', 'up', '-o', 'json', '--show-managed-fields')).stdout);
    expect(cm.data).toEqual({ a: '2', b: '1' });
    const byManager = Object.fromEntries(cm.metadata.managedFields.map((e: Entry) => [e.manager, e]));
    expect(Object.keys(byManager).sort()).toEqual(['kubectl', 'kubectl-last-applied']);
    expect(byManager.kubectl).toMatchObject({ operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:team': {} } } } });
    // The annotation follows the server-side apply, so a later client-side apply diffs against it.
    expect(JSON.parse(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data).toEqual({ a: '2', b: '1' });
  });

  it('a field another manager changed since still conflicts', async () => {
    const v1 = fx.file('up2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up2\ndata:\n  a: "1"\n  b: "1"\n');
    await kubectl('apply', '-f', v1);
    await kubectl('patch', 'cm', 'up2', '--type', 'merge', '-p', '{"data":{"b":"9"}}');
    const v2 = fx.file('up2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up2\ndata:\n  a: "2"\n  b: "2"\n');
    const r = await kubectl('apply', '--server-side', '-f', v2);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.b');
  });
});
