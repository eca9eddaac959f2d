// The transforms `kwatch cache-size --transform` weighs, and how their names parse.
import { describe, expect, it } from 'vitest';
import { METADATA_ONLY, parseCacheTransform, STRIP_MANAGED_FIELDS, TransformSpecError } from '../../src/informer/cache-transforms.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '7', labels: { app: 'x' }, managedFields: [{ manager: 'm' }] },
  spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
  status: { phase: 'Running', podIP: '10.0.0.1' },
};

describe('cache transforms', () => {
  it('strip-managed-fields drops metadata.managedFields only, without changing the input', () => {
    const out = parseCacheTransform('strip-managed-fields').apply(pod);
    expect(out.metadata.managedFields).toBeUndefined();
    expect(out.spec).toBe(pod.spec);
    expect(pod.metadata.managedFields).toHaveLength(1);
  });
  it('metadata-only keeps apiVersion, kind and the whole metadata (managedFields too, as a metadata informer gets them)', () => {
    expect(parseCacheTransform('metadata-only').apply(pod)).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata });
  });
  it('fields= keeps the paths asked for plus what an informer needs to key and resume; missing paths are skipped', () => {
    const t = parseCacheTransform('fields=spec.nodeName,status.phase,metadata.labels,spec.missing.deep');
    expect(t.name).toBe('fields=spec.nodeName,status.phase,metadata.labels,spec.missing.deep');
    expect(t.apply(pod)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '7', labels: { app: 'x' } },
      spec: { nodeName: 'n1' },
      status: { phase: 'Running' },
    });
  });
  it('names the two built-in transforms by their flag values', () => {
    expect(parseCacheTransform('strip-managed-fields')).toBe(STRIP_MANAGED_FIELDS);
    expect(parseCacheTransform('metadata-only')).toBe(METADATA_ONLY);
  });
  it('rejects unknown names and empty paths with one line', () => {
    for (const bad of ['strip', 'fields=', 'fields=spec..a', 'fields=a,']) expect(() => parseCacheTransform(bad)).toThrow(TransformSpecError);
    expect(() => parseCacheTransform('nope')).toThrow('--transform nope: use strip-managed-fields, metadata-only or fields=PATH,…');
  });
});
