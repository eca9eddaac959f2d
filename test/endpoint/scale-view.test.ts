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
});
