// --expect's comparison (src/reconcile/expectations.ts): maps by key, lists in any order, and a diff that names what
// is missing.
import { describe, expect, it } from 'vitest';
import { checkExpectation, parseExpectations } from '../../src/reconcile/expectations.js';
import type { KubeObject } from '../../src/informer/types.js';

const [want] = parseExpectations(
  [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web' }, spec: { template: { spec: { containers: [{ name: 'sidecar' }, { name: 'app', image: 'app:2' }] } } } }],
  'expect.yaml',
);
const found = (containers: object[]): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web', resourceVersion: '7' }, spec: { template: { spec: { containers } } } });

describe('--expect', () => {
  it('matches a list whatever the order of its elements, each wanted element against any found one', () => {
    expect(checkExpectation(want, found([{ name: 'app', image: 'app:2', ports: [80] }, { name: 'sidecar', image: 'envoy' }]))).toMatchObject({ met: true, diff: [] });
    expect(checkExpectation(want, found([{ name: 'sidecar' }, { name: 'app', image: 'app:2' }]))).toMatchObject({ met: true, diff: [] });
  });

  it('names the wanted element that is missing, by its place in the expectation', () => {
    expect(checkExpectation(want, found([{ name: 'sidecar' }, { name: 'app', image: 'app:1' }]))).toEqual({
      expectation: want,
      met: false,
      diff: ['spec.template.spec.containers[1]: want an element {"name":"app","image":"app:2"}, none matches'],
    });
    expect(checkExpectation(want, found([{ name: 'app', image: 'app:2' }])).diff).toEqual(['spec.template.spec.containers[0]: want an element {"name":"sidecar"}, none matches']);
  });
});
