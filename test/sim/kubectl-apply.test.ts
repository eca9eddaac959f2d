// Conformance: field ownership (metadata.managedFields) and server-side apply conflicts, driven by real kubectl.
import { describe, expect, it } from 'vitest';
import { kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-kubectl-apply-');
const kubectl = fx.kubectl;
const file = fx.file;

async function managedFields(resource: string, name: string): Promise<any[]> {
  const r = await kubectl('get', resource, name, '-o', 'json', '--show-managed-fields');
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).metadata.managedFields ?? [];
}

const summary = (entries: any[]) => entries.map((e) => ({ manager: e.manager, operation: e.operation, fieldsV1: e.fieldsV1 }));

describe('field ownership with kubectl', () => {
  it('create configmap records a kubectl-create Update entry', async () => {
    expect((await kubectl('create', 'configmap', 'c1', '--from-literal=a=b')).stdout.trim()).toBe('configmap/c1 created');
    const r = await kubectl('get', 'cm', 'c1', '-o', 'jsonpath={.metadata.managedFields[*].manager}', '--show-managed-fields');
    expect(r.stdout).toBe('kubectl-create');
    const [entry] = await managedFields('cm', 'c1');
    expect(entry).toMatchObject({ manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(entry.subresource).toBeUndefined();
  });

  it('patch, then apply --server-side of the patched field conflicts until --force-conflicts', async () => {
    await kubectl('create', 'configmap', 'c2', '--from-literal=a=1', '--from-literal=b=1');
    expect((await kubectl('patch', 'cm', 'c2', '--type', 'merge', '-p', '{"data":{"a":"2"}}')).stdout.trim()).toBe('configmap/c2 patched');
    expect(summary(await managedFields('cm', 'c2'))).toEqual([
      { manager: 'kubectl-create', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:b': {} } } },
      { manager: 'kubectl-patch', operation: 'Update', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);

    const manifest = file('c2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c2\ndata:\n  a: "3"\n');
    const rv = fx.sim.api.currentRevision();
    const failed = await kubectl('apply', '--server-side', '-f', manifest);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.a');
    expect(fx.sim.api.currentRevision()).toBe(rv);

    const forced = await kubectl('apply', '--server-side', '--force-conflicts', '-f', manifest);
    expect(forced.stderr).toBe('');
    expect(forced.stdout.trim()).toBe('configmap/c2 serverside-applied');
    const after = await managedFields('cm', 'c2');
    expect(summary(after)).toEqual([
      { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } },
      { manager: 'kubectl-create', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:b': {} } } },
    ]);
    expect((await kubectl('get', 'cm', 'c2', '-o', 'jsonpath={.data.a}')).stdout).toBe('3');
  });

  it('the conflict Status carries one FieldManagerConflict cause per field', async () => {
    await kubectl('create', 'configmap', 'c3', '--from-literal=a=1');
    await kubectl('patch', 'cm', 'c3', '--type', 'merge', '-p', '{"data":{"a":"2"}}');
    const r = await fetch(`${fx.sim.url}/api/v1/namespaces/default/configmaps/c3?fieldManager=ctrl`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c3' }, data: { a: '9' } }),
    });
    expect(r.status).toBe(409);
    expect(await r.json()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
      message: 'Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-patch" using v1', field: '.data.a' }] },
    });
  });

  it('applying the same value shares ownership; fields no longer applied are removed', async () => {
    const v1 = file('c4.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c4\n  labels: {app: x}\ndata:\n  a: "1"\n  b: "1"\n');
    expect((await kubectl('apply', '--server-side', '-f', v1)).stdout.trim()).toBe('configmap/c4 serverside-applied');
    expect(summary(await managedFields('cm', 'c4'))).toEqual([
      { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } } },
    ]);
    const v2 = file('c4.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c4\n  labels: {app: x}\ndata:\n  a: "1"\n');
    expect((await kubectl('apply', '--server-side', '-f', v2)).stdout.trim()).toBe('configmap/c4 serverside-applied');
    const got = JSON.parse((await kubectl('get', 'cm', 'c4', '-o', 'json')).stdout);
    expect(got.data).toEqual({ a: '1' });
  });

  it('label and client-side apply record their own managers', async () => {
    const f = file('c5.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c5\ndata:\n  a: "1"\n');
    expect((await kubectl('apply', '-f', f)).stdout.trim()).toBe('configmap/c5 created');
    expect((await kubectl('apply', '-f', f)).stdout.trim()).toBe('configmap/c5 unchanged');
    expect((await kubectl('label', 'cm', 'c5', 'tier=web')).stdout.trim()).toBe('configmap/c5 labeled');
    const entries = summary(await managedFields('cm', 'c5'));
    expect(entries.map((e) => e.manager)).toEqual(['kubectl-client-side-apply', 'kubectl-label']);
    expect(entries[0].fieldsV1).toMatchObject({ 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } });
    expect(entries[1].fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
  });

  it('create deployment owns the template containers by name and the selector atomically', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--port=80');
    const [entry] = await managedFields('deploy', 'web');
    expect(entry.manager).toBe('kubectl-create');
    const spec = entry.fieldsV1['f:spec'];
    expect(spec['.']).toBeUndefined();
    expect(spec['f:selector']).toEqual({});
    const container = spec['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}'];
    expect(container).toMatchObject({ '.': {}, 'f:image': {}, 'f:name': {} });
    expect(Object.keys(container['f:ports'])).toEqual(['.', 'k:{"containerPort":80,"protocol":"TCP"}']);
    expect(spec['f:template']['f:metadata']['f:labels']).toEqual({ '.': {}, 'f:app': {} });
  });
});

describe('kubectl patch (strategic merge, the default type)', () => {
  it('puts a new env entry ahead of the live ones, as kube-apiserver does', async () => {
    // kube's mergeSortedSlice (apimachinery strategicpatch/patch.go): env [A] + patch [B] → [B, A].
    expect((await kubectl('create', 'deployment', 'ordered', '--image=nginx')).code).toBe(0);
    const envPatch = (name: string) => JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'nginx', env: [{ name, value: '1' }] }] } } } });
    expect((await kubectl('patch', 'deployment', 'ordered', '-p', envPatch('A'))).stdout.trim()).toBe('deployment.apps/ordered patched');
    expect((await kubectl('patch', 'deployment', 'ordered', '-p', envPatch('B'))).stdout.trim()).toBe('deployment.apps/ordered patched');
    const r = await kubectl('get', 'deployment', 'ordered', '-o', 'jsonpath={.spec.template.spec.containers[0].env[*].name}');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('B A');
  });
});
