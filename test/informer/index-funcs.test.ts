import { describe, expect, it } from 'vitest';
import { annotationIndexFunc, indexFuncFromSpec, jsonPathIndexFunc, labelIndexFunc, namespaceIndexFunc, nodeNameIndexFunc, ownerIndexFunc, phaseIndexFunc } from '../../src/informer/index-funcs.js';
import type { KubeObject } from '../../src/informer/types.js';

const pod: KubeObject = {
  kind: 'Pod',
  metadata: {
    name: 'web-1',
    namespace: 'shop',
    labels: { app: 'web' },
    annotations: { team: 'blue' },
    ownerReferences: [
      { apiVersion: 'v1', kind: 'Node', name: 'n', uid: '1' },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: '2', controller: true },
    ],
  },
  spec: { nodeName: 'node-1', containers: [{ image: 'a' }, { image: 'b' }, { image: 'a' }] },
  status: { phase: 'Running' },
};
const bare: KubeObject = { metadata: { name: 'ns1' } };

describe('index functions', () => {
  it('index a pod by namespace, node, phase, label, annotation and controller owner', () => {
    expect(namespaceIndexFunc(pod)).toEqual(['shop']);
    expect(nodeNameIndexFunc(pod)).toEqual(['node-1']);
    expect(phaseIndexFunc(pod)).toEqual(['Running']);
    expect(labelIndexFunc('app')(pod)).toEqual(['web']);
    expect(annotationIndexFunc('team')(pod)).toEqual(['blue']);
    expect(ownerIndexFunc(pod)).toEqual(['ReplicaSet/web-abc']);
  });

  it('leave objects without the field unindexed, except namespace ("") and an unscheduled pod ("")', () => {
    expect(namespaceIndexFunc(bare)).toEqual(['']);
    expect(nodeNameIndexFunc(bare)).toEqual([]);
    expect(nodeNameIndexFunc({ metadata: { name: 'p' }, spec: {} })).toEqual(['']);
    expect(phaseIndexFunc(bare)).toEqual([]);
    expect(labelIndexFunc('app')(bare)).toEqual([]);
    expect(annotationIndexFunc('x')(bare)).toEqual([]);
    expect(ownerIndexFunc(bare)).toEqual([]);
  });

  it('index by JSONPath with every distinct value', () => {
    expect(jsonPathIndexFunc('{.spec.containers[*].image}')(pod)).toEqual(['a', 'b']);
    expect(jsonPathIndexFunc('{.spec.nodeName}')(bare)).toEqual([]);
  });

  it('parse --by specs', () => {
    expect(indexFuncFromSpec('nodeName')(pod)).toEqual(['node-1']);
    expect(indexFuncFromSpec('label:app')(pod)).toEqual(['web']);
    expect(indexFuncFromSpec('annotation:team')(pod)).toEqual(['blue']);
    expect(indexFuncFromSpec('owner')(pod)).toEqual(['ReplicaSet/web-abc']);
    expect(indexFuncFromSpec('{.status.phase}')(pod)).toEqual(['Running']);
    expect(indexFuncFromSpec('jsonpath:{.metadata.name}')(pod)).toEqual(['web-1']);
    expect(() => indexFuncFromSpec('colour')).toThrow('unknown index "colour"');
  });
});
