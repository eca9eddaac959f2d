import { describe, expect, it } from 'vitest';
import { compileJsonPath, jsonPathValues } from '../../src/informer/jsonpath.js';

const pod = {
  metadata: { name: 'web-1', labels: { app: 'web', 'app.kubernetes.io/name': 'shop' }, annotations: { 'a/b': 'x' } },
  spec: {
    nodeName: 'node-1',
    containers: [
      { name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }, { containerPort: 443 }] },
      { name: 'sidecar', image: 'envoy:1.30', ports: [] },
    ],
  },
  status: { phase: 'Running', ready: true },
};

describe('jsonpath', () => {
  const cases: [string, unknown[]][] = [
    ['{.spec.nodeName}', ['node-1']],
    ['{.metadata.labels.app}', ['web']],
    ['{.spec.containers[*].image}', ['nginx:1.27', 'envoy:1.30']],
    ["{.metadata.labels['app\\.kubernetes\\.io/name']}", ['shop']],
    ["{.metadata.labels['app.kubernetes.io/name']}", ['shop']],
    ['{.metadata.labels.app\\.kubernetes\\.io/name}', ['shop']],
    ['{.metadata.annotations.a/b}', ['x']],
    ['{.spec.containers[0].name}', ['app']],
    ['{.spec.containers[-1].name}', ['sidecar']],
    ['{.spec.containers[0:1].name}', ['app']],
    ['{.spec.containers[*].ports[*].containerPort}', [80, 443]],
    ['{..containerPort}', [80, 443]],
    ['{.spec.containers[?(@.name=="sidecar")].image}', ['envoy:1.30']],
    ['{.spec.containers[?(@.ports[0])].name}', ['app']],
    ['{.status.ready}', [true]],
    ['{.spec.missing}', []],
    ['{.spec.containers[5].name}', []],
    ['{$.metadata.name}', ['web-1']],
    ['.metadata.name', ['web-1']],
    ["{.metadata['name','nope']}", ['web-1']],
  ];
  for (const [expr, want] of cases) {
    it(`evaluates ${expr}`, () => {
      expect(jsonPathValues(expr, pod)).toEqual(want);
    });
  }

  it('returns the object itself for {.}', () => {
    expect(jsonPathValues('{.}', { a: 1 })).toEqual([{ a: 1 }]);
  });

  it('rejects malformed expressions with a clear error', () => {
    expect(() => compileJsonPath('{.a[}')).toThrow(/JSONPath/);
    expect(() => compileJsonPath('{.a}{.b}')).toThrow('only a single');
    expect(() => compileJsonPath("{.a['x}")).toThrow('unterminated');
  });
});
