// The Scale a write to /scale is diffed against, built from the parent the client was sent as kube builds it per kind.
import { describe, expect, it } from 'vitest';
import { scaleView } from '../../src/endpoint/scale-view.js';

const meta = { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' }, generation: 3 };

describe('scaleView', () => {
  it('a Deployment: spec.replicas, status.replicas and its selector as a string, requirements sorted by key; only the Scale\'s metadata', () => {
    const d = { kind: 'Deployment', apiVersion: 'apps/v1', metadata: meta, spec: { replicas: 2, selector: { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }, { key: 'zz', operator: 'DoesNotExist' }, { key: 'canary', operator: 'Exists' }] }, template: {} }, status: { replicas: 1 } };
    expect(scaleView(d, undefined)).toEqual({
      apiVersion: 'autoscaling/v1', kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'canary,env in (dev,prod),tier=web,!zz' },
    });
  });

  it('a ReplicationController\'s map selector; an empty selector is left out; status.replicas defaults to 0', () => {
    expect(scaleView({ kind: 'ReplicationController', metadata: meta, spec: { replicas: 1, selector: { b: '2', a: '1' } } }, undefined).status).toEqual({ replicas: 0, selector: 'a=1,b=2' });
    expect(scaleView({ kind: 'ReplicaSet', metadata: meta, spec: { replicas: 1, selector: {} } }, undefined).status).toEqual({ replicas: 0 });
  });

  it('a custom resource: its selector comes from the answer (its path is in the CRD, and /scale cannot change it)', () => {
    const cr = { kind: 'Gizmo', apiVersion: 'forked.example.com/v1', metadata: meta, spec: { replicas: 4 }, status: { replicas: 4 } };
    expect(scaleView(cr, { kind: 'Scale', status: { replicas: 4, selector: 'app=gizmo' } })).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 4, selector: 'app=gizmo' } });
  });

  it('a parent with nothing but its kind: no metadata, no replicas, no selector (and no crash)', () => {
    for (const kind of ['Deployment', 'ReplicationController', 'Gizmo']) {
      expect(scaleView({ kind }, undefined), kind).toStrictEqual({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: {}, spec: {}, status: { replicas: 0 } });
    }
    // Replicas that are not numbers are not copied; a kind that is not a string takes the answer's selector.
    expect(scaleView({ kind: 5, metadata: { name: 'w' }, spec: { replicas: '3', selector: { matchLabels: { a: 'b' } } }, status: { replicas: '2' } }, { status: { selector: 'from=answer' } }))
      .toStrictEqual({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: {}, status: { replicas: 0, selector: 'from=answer' } });
    // spec.replicas 0 is a replica count (scaled to zero), kept as such.
    expect(scaleView({ kind: 'Deployment', spec: { replicas: 0 }, status: { replicas: 0 } }, undefined).spec).toEqual({ replicas: 0 });
  });

  it('each selector operator as kube prints it, the values sorted; an unknown operator, or a selector that is not an object, gives none', () => {
    const sel = (selector: unknown) => (scaleView({ kind: 'StatefulSet', spec: { selector } }, { status: { selector: 'never used' } }).status as { selector?: string }).selector;
    expect(sel({ matchExpressions: [{ key: 'b', operator: 'NotIn', values: ['z', 'y'] }, { key: 'a', operator: 'In', values: ['2', '10'] }] })).toBe('a in (10,2),b notin (y,z)');
    expect(sel({ matchExpressions: [{ key: 'k', operator: 'Exists' }, { key: 'j', operator: 'DoesNotExist' }] })).toBe('!j,k');
    expect(sel({ matchLabels: { b: 1, a: true } })).toBe('a=true,b=1');
    expect(sel({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'Gt', values: ['1'] }] })).toBeUndefined();
    expect(sel({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'in', values: ['1'] }] })).toBeUndefined();
    for (const s of [null, 'app=web', 7]) expect(sel(s), String(s)).toBeUndefined();
    // The ReplicationController's map, likewise.
    const rc = (selector: unknown) => (scaleView({ kind: 'ReplicationController', spec: { selector } }, { status: { selector: 'never used' } }).status as { selector?: string }).selector;
    expect(rc({ z: 1, a: 'x' })).toBe('a=x,z=1');
    for (const s of [null, 'app=web', {}]) expect(rc(s), String(s)).toBeUndefined();
  });

  it('sorts requirements by key whichever order they come in', () => {
    const sel = (matchExpressions: unknown[]) => (scaleView({ kind: 'Deployment', spec: { selector: { matchExpressions } } }, undefined).status as { selector?: string }).selector;
    const exprs = [{ key: 'b', operator: 'Exists' }, { key: 'c', operator: 'Exists' }, { key: 'a', operator: 'Exists' }];
    expect(sel(exprs)).toBe('a,b,c');
    expect(sel([...exprs].reverse())).toBe('a,b,c');
    expect(sel([exprs[2], exprs[0], exprs[1]])).toBe('a,b,c');
  });

  it('a custom resource with no answer, or an answer without a status, has no selector', () => {
    expect(scaleView({ kind: 'Gizmo', spec: { replicas: 1 } }, undefined).status).toEqual({ replicas: 0 });
    expect(scaleView({ kind: 'Gizmo', spec: { replicas: 1 } }, { kind: 'Scale' }).status).toEqual({ replicas: 0 });
  });

  it('keeps a key that is both a label and an expression in the order written, labels first, as kube\'s sort does for a short list', () => {
    const selector = { matchLabels: { a: '1' }, matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }, { key: 'a', operator: 'NotIn', values: ['2'] }] };
    expect((scaleView({ kind: 'Deployment', spec: { selector } }, undefined).status as { selector?: string }).selector).toBe('a=1,a,a notin (2),b');
  });
});
