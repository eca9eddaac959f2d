// Unit tests of field ownership: FieldsV1 encoding, Update bookkeeping, Apply pruning, conflicts and force.
import { describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { SimApiError } from '../../src/sim/api.js';
import { FieldSet, fromFieldsV1, pathString, toFieldsV1 } from '../../src/sim/managed-fields/field-set.js';
import { fieldsOf, compareObjects } from '../../src/sim/managed-fields/object-fields.js';
import { recordApply, recordUpdate, type WriteContext } from '../../src/sim/managed-fields/ownership.js';

const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): SimObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', uid: 'u', resourceVersion: '5', ...extra }, data });
const ctx = (manager: string, kind = 'ConfigMap'): WriteContext => ({ kind, builtIn: true, scope: 'all', manager, apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', now: '2024-01-01T00:00:00Z' });
const managers = (o: SimObject) => (o.metadata.managedFields as any[] ?? []).map((e) => [e.manager, e.operation, e.fieldsV1]);

describe('FieldsV1', () => {
  it('encodes a Deployment as kube does: keyed containers and ports, `.` for maps and items, atomic selector', () => {
    const dep = {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', uid: 'x', labels: { app: 'web' }, finalizers: ['f1'] },
      spec: {
        replicas: 2, selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }], resources: {} }], tolerations: [{ key: 'k' }] },
        },
      },
    };
    const next = JSON.parse(JSON.stringify(dep)) as SimObject;
    recordUpdate(undefined, next, ctx('kubectl-create', 'Deployment'));
    expect(managers(next)).toEqual([['kubectl-create', 'Update', {
      'f:metadata': { 'f:finalizers': { '.': {}, 'v:"f1"': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:replicas': {}, 'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': { 'k:{"name":"nginx"}': {
              '.': {}, 'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:image': {}, 'f:name': {},
              'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } }, 'f:resources': {},
            } },
            'f:tolerations': {},
          },
        },
      },
    }]]);
    expect(JSON.stringify(Object.keys((next.metadata.managedFields as any[])[0]))).toBe('["manager","operation","apiVersion","time","fieldsType","fieldsV1"]');
  });

  it('an applied ConfigMap owns its keys without `.`; decoding round-trips; paths print like structured-merge-diff', () => {
    const set = fieldsOf(cm({ a: '1', b: '2' }, { labels: { x: 'y' } }), ctx('m'));
    expect(toFieldsV1(set)).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } });
    expect(fromFieldsV1(toFieldsV1(set)).equals(set)).toBe(true);
    expect(pathString(['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'])).toBe('.spec.containers[name="c"].image');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"x"'])).toBe('.metadata.finalizers[="x"]');
    expect(compareObjects(cm({ a: '1' }), cm({ a: '2', b: '1' }), ctx('m')).modified.equals(FieldSet.of([['f:data', 'f:a']]))).toBe(true);
  });
});

describe('ownership', () => {
  it('an Update takes the fields it changed from other managers and drops emptied entries', () => {
    const created = cm({ a: '1' });
    recordUpdate(undefined, created, ctx('creator'));
    const patched = { ...created, metadata: { ...created.metadata }, data: { a: '2' } };
    recordUpdate(created, patched, ctx('patcher'));
    expect(managers(patched)).toEqual([['creator', 'Update', { 'f:data': {} }], ['patcher', 'Update', { 'f:data': { 'f:a': {} } }]]);
    const removed = { ...patched, metadata: { ...patched.metadata } } as SimObject;
    delete removed.data;
    recordUpdate(patched, removed, ctx('remover'));
    expect(removed.metadata.managedFields).toBeUndefined();
  });

  it('an Update that changes nothing keeps the entry time (no-op writes stay no-ops)', () => {
    const a = cm({ a: '1' });
    recordUpdate(undefined, a, ctx('m'));
    const b = { ...a, metadata: { ...a.metadata } };
    recordUpdate(a, b, { ...ctx('m'), now: '2030-01-01T00:00:00Z' });
    expect(b.metadata.managedFields).toEqual(a.metadata.managedFields);
  });

  it('apply removes fields the manager no longer applies unless another manager owns them', () => {
    const v1 = cm({ a: '1', b: '1', c: '1' });
    recordApply(undefined, v1, cm({ a: '1', b: '1', c: '1' }), ctx('applier'), false);
    const shared = { ...v1, metadata: { ...v1.metadata }, data: { ...(v1.data as object), c: '2' } };
    recordUpdate(v1, shared, ctx('editor'));
    const next = { ...shared, metadata: { ...shared.metadata }, data: { ...(shared.data as object) } };
    recordApply(shared, next, cm({ a: '1' }), ctx('applier'), false);
    expect(next.data).toEqual({ a: '1', c: '2' });
    expect(managers(next)).toEqual([['applier', 'Apply', { 'f:data': { 'f:a': {} } }], ['editor', 'Update', { 'f:data': { 'f:c': {} } }]]);
  });

  it('apply conflicts on a differently-valued field owned by another manager; the same value is shared; force takes over', () => {
    const live = cm({ a: '1', b: '1' });
    recordUpdate(undefined, live, ctx('kubectl-create'));
    const same = { ...live, metadata: { ...live.metadata }, data: { a: '1', b: '1' } };
    recordApply(live, same, cm({ a: '1' }), ctx('ctrl'), false);
    expect(managers(same).map((m) => m[0])).toEqual(['ctrl', 'kubectl-create']);

    const changed = { ...live, metadata: { ...live.metadata }, data: { a: '9', b: '9' } };
    let err: unknown;
    try { recordApply(live, changed, cm({ a: '9', b: '9' }), ctx('ctrl'), false); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(SimApiError);
    const status = (err as SimApiError).status;
    expect(status.code).toBe(409);
    expect(status.message).toBe('Apply failed with 2 conflicts: conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b');
    expect(status.details).toEqual({ causes: [
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using v1', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using v1', field: '.data.b' },
    ] });

    recordApply(live, changed, cm({ a: '9', b: '9' }), ctx('ctrl'), true);
    expect(managers(changed)).toEqual([['ctrl', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } }], ['kubectl-create', 'Update', { 'f:data': {} }]]);
  });

  it('an applier conflicting with another applier is named without a version', () => {
    const live = cm({ a: '1' });
    recordApply(undefined, live, cm({ a: '1' }), ctx('first'), false);
    const next = { ...live, metadata: { ...live.metadata }, data: { a: '2' } };
    expect(() => recordApply(live, next, cm({ a: '2' }), ctx('second'), false)).toThrow('Apply failed with 1 conflict: conflict with "first": .data.a');
  });
});
