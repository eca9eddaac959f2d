import { describe, expect, it } from 'vitest';
import { diffObjects, formatDiff } from '../../src/render/object-diff.js';

const base = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'nginx-1',
    namespace: 'default',
    resourceVersion: '100',
    generation: 1,
    labels: { app: 'web', 'app.kubernetes.io/name': 'nginx' },
    managedFields: [{ manager: 'kubectl', time: '2026-01-01T00:00:00Z' }],
  },
  spec: {
    containers: [
      { name: 'nginx', image: 'nginx:1.25' },
      { name: 'sidecar', image: 'envoy:1' },
    ],
    tolerations: [{ key: 'a', operator: 'Exists' }],
  },
  status: {
    phase: 'Pending',
    conditions: [{ type: 'Ready', status: 'False', lastProbeTime: 't1', lastHeartbeatTime: 'h1', lastTransitionTime: 'x1' }],
  },
});

describe('diffObjects', () => {
  it('reports changed fields as dotted paths with old and new values', () => {
    const b = base();
    b.status.phase = 'Running';
    b.metadata.labels.app = 'api';
    expect(diffObjects(base(), b)).toEqual([
      { path: 'metadata.labels.app', old: 'web', new: 'api' },
      { path: 'status.phase', old: 'Pending', new: 'Running' },
    ]);
  });

  it('addresses named array elements by name and typed ones by type', () => {
    const b = base();
    b.spec.containers[1].image = 'envoy:2';
    b.status.conditions[0].status = 'True';
    expect(diffObjects(base(), b).map((c) => c.path)).toEqual(['spec.containers[name=sidecar].image', 'status.conditions[type=Ready].status']);
  });

  it('falls back to indexes for arrays without names and reports added or removed elements', () => {
    const b = base();
    b.spec.tolerations.push({ key: 'b', operator: 'Exists' });
    b.spec.containers.pop();
    expect(diffObjects(base(), b)).toEqual([
      { path: 'spec.containers[name=sidecar]', old: { name: 'sidecar', image: 'envoy:1' }, new: undefined },
      { path: 'spec.tolerations[1]', old: undefined, new: { key: 'b', operator: 'Exists' } },
    ]);
  });

  it('quotes keys that are not identifiers', () => {
    const b = base();
    b.metadata.labels['app.kubernetes.io/name'] = 'other';
    expect(diffObjects(base(), b)[0].path).toBe('metadata.labels["app.kubernetes.io/name"]');
  });

  it('leaves out noise (managedFields, resourceVersion, generation, heartbeat and probe times) unless all', () => {
    const b = base();
    b.metadata.resourceVersion = '101';
    b.metadata.generation = 2;
    b.metadata.managedFields[0].time = '2026-01-02T00:00:00Z';
    b.status.conditions[0].lastHeartbeatTime = 'h2';
    b.status.conditions[0].lastProbeTime = 't2';
    b.status.conditions[0].lastTransitionTime = 'x2';
    expect(diffObjects(base(), b).map((c) => c.path)).toEqual(['status.conditions[type=Ready].lastTransitionTime']);
    expect(diffObjects(base(), b, { all: true }).map((c) => c.path)).toEqual([
      'metadata.resourceVersion',
      'metadata.generation',
      'metadata.managedFields[0].time',
      'status.conditions[type=Ready].lastProbeTime',
      'status.conditions[type=Ready].lastHeartbeatTime',
      'status.conditions[type=Ready].lastTransitionTime',
    ]);
  });

  it('compares arrays of scalars as one value', () => {
    expect(diffObjects({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: ['a', 'b'] } })).toEqual([
      { path: 'metadata.finalizers', old: ['a'], new: ['a', 'b'] },
    ]);
  });

  // Its speed is a benchmark's business (timed assertions flake on a busy machine); here only the answer counts.
  it('returns nothing for equal objects, over thousands of separately built pairs', () => {
    const pairs = Array.from({ length: 5000 }, () => [base(), base()] as const);
    let changes = 0;
    for (const [a, b] of pairs) changes += diffObjects(a, b).length;
    expect(changes).toBe(0);
  });
});

describe('formatDiff', () => {
  it('prints one "path: old → new" line per change, <none> for a missing side', () => {
    expect(
      formatDiff([
        { path: 'status.phase', old: 'Pending', new: 'Running' },
        { path: 'metadata.labels.tier', old: undefined, new: 'web' },
        { path: 'spec.replicas', old: 1, new: 3 },
        { path: 'metadata.finalizers', old: [], new: ['x'] },
      ]),
    ).toBe('status.phase: Pending → Running\nmetadata.labels.tier: <none> → web\nspec.replicas: 1 → 3\nmetadata.finalizers: [] → [x]');
  });
});
