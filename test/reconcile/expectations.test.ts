// --expect's comparison (src/reconcile/expectations.ts): maps by key, lists in any order, and a diff that names what
// is missing. In-process, so mutation testing sees it (the e2e file reconcile-expect.test.ts drives dist/).
import { describe, expect, it } from 'vitest';
import { checkExpectation, ExpectationError, expectationKey, parseExpectations, type Expectation } from '../../src/reconcile/expectations.js';
import type { KubeObject } from '../../src/informer/types.js';

const [want] = parseExpectations(
  [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web' }, spec: { template: { spec: { containers: [{ name: 'sidecar' }, { name: 'app', image: 'app:2' }] } } } }],
  'expect.yaml',
);
const found = (containers: object[]): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web', resourceVersion: '7' }, spec: { template: { spec: { containers } } } });

/** One expectation of a Deployment shop/web holding `fields` besides its name. */
function deploymentWanting(fields: Record<string, unknown>): Expectation {
  return parseExpectations([{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web' }, ...fields }], 'e.yaml')[0];
}
const web = (fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'shop', name: 'web', resourceVersion: '7' }, ...fields });

/** The error parseExpectations throws (an ExpectationError: the command prints its message as a one-line usage error). */
function parseError(docs: unknown[]): string {
  try {
    parseExpectations(docs, 'e.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ExpectationError);
    return (err as Error).message;
  }
  throw new Error('parseExpectations accepted it');
}

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

  it('names every missing element, not only the first, and an empty found list misses them all', () => {
    expect(checkExpectation(want, found([])).diff).toEqual([
      'spec.template.spec.containers[0]: want an element {"name":"sidecar"}, none matches',
      'spec.template.spec.containers[1]: want an element {"name":"app","image":"app:2"}, none matches',
    ]);
  });

  it('lists of scalars: any order, extra found elements allowed, a missing one named', () => {
    const e = deploymentWanting({ spec: { args: ['--b', '--a'] } });
    expect(checkExpectation(e, web({ spec: { args: ['--a', '--c', '--b'] } }))).toMatchObject({ met: true, diff: [] });
    expect(checkExpectation(e, web({ spec: { args: ['--a', '--c'] } })).diff).toEqual(['spec.args[0]: want an element "--b", none matches']);
    // An empty wanted list asks nothing of the found one.
    expect(checkExpectation(deploymentWanting({ spec: { args: [] } }), web({ spec: { args: ['--a'] } })).met).toBe(true);
  });

  it('lists inside list elements match order-free too, and an element matches only when all its wanted fields do', () => {
    const e = deploymentWanting({ spec: { containers: [{ name: 'app', ports: [{ containerPort: 443 }, { containerPort: 80 }] }] } });
    const ports = (...p: number[]) => p.map((containerPort) => ({ containerPort, protocol: 'TCP' }));
    expect(checkExpectation(e, web({ spec: { containers: [{ name: 'side', ports: ports(443, 80) }, { name: 'app', ports: ports(80, 8080, 443) }] } })).met).toBe(true);
    // "side" has both ports but the wrong name; "app" has the name but not 443: no element matches.
    expect(checkExpectation(e, web({ spec: { containers: [{ name: 'side', ports: ports(443, 80) }, { name: 'app', ports: ports(80) }] } })).diff).toEqual([
      'spec.containers[0]: want an element {"name":"app","ports":[{"containerPort":443},{"containerPort":80}]}, none matches',
    ]);
    // A found element that is not a list where a list is wanted, or not a map where a map is wanted, matches nothing.
    expect(checkExpectation(e, web({ spec: { containers: [{ name: 'app', ports: 443 }] } })).met).toBe(false);
    expect(checkExpectation(e, web({ spec: { containers: ['app'] } })).met).toBe(false);
  });

  it('compares maps field by field, names each differing field by its dotted path, and ignores fields not wanted', () => {
    const e = deploymentWanting({ metadata: { namespace: 'shop', name: 'web', labels: { app: 'web', tier: 'front' } }, spec: { replicas: 3, paused: false } });
    expect(checkExpectation(e, web({ metadata: { namespace: 'shop', name: 'web', resourceVersion: '7', uid: 'u', labels: { app: 'web', tier: 'front', extra: 'x' } }, spec: { replicas: 3, paused: false, strategy: {} }, status: {} }))).toEqual({ expectation: e, met: true, diff: [] });
    const result = checkExpectation(e, web({ metadata: { namespace: 'shop', name: 'web', labels: { app: 'api' } }, spec: { replicas: 2, paused: true } }));
    expect(result.met).toBe(false);
    expect(result.diff).toEqual([
      'metadata.labels.app: want "web", got "api"',
      'metadata.labels.tier: want "front", got <none>',
      'spec.replicas: want 3, got 2',
      'spec.paused: want false, got true',
    ]);
  });

  it('types count: a number is not its string, false is not absent, null is not absent', () => {
    const e = deploymentWanting({ spec: { replicas: 3, paused: false, selector: null } });
    expect(checkExpectation(e, web({ spec: { replicas: '3', paused: false, selector: null } })).diff).toEqual(['spec.replicas: want 3, got "3"']);
    expect(checkExpectation(e, web({ spec: { replicas: 3, selector: null } })).diff).toEqual(['spec.paused: want false, got <none>']);
    expect(checkExpectation(e, web({ spec: { replicas: 3, paused: false } })).diff).toEqual(['spec.selector: want null, got <none>']);
    expect(checkExpectation(e, web({ spec: { replicas: 3, paused: false, selector: null } })).met).toBe(true);
  });

  it('a map or a list wanted where the object has another type, or nothing, says what it got', () => {
    const e = deploymentWanting({ spec: { selector: { matchLabels: { app: 'web' } }, args: ['--a'] } });
    expect(checkExpectation(e, web({ spec: { selector: 'app=web', args: '--a' } })).diff).toEqual([
      'spec.selector: want {"matchLabels":{"app":"web"}}, got "app=web"',
      'spec.args: want ["--a"], got "--a"',
    ]);
    expect(checkExpectation(e, web({ spec: { selector: ['app=web'], args: { a: 1 } } })).diff).toEqual([
      'spec.selector: want {"matchLabels":{"app":"web"}}, got ["app=web"]',
      'spec.args: want ["--a"], got {"a":1}',
    ]);
    expect(checkExpectation(e, web({ spec: { selector: null } })).diff).toEqual([
      'spec.selector: want {"matchLabels":{"app":"web"}}, got null',
      'spec.args: want ["--a"], got <none>',
    ]);
    expect(checkExpectation(e, web({})).diff).toEqual(['spec: want {"selector":{"matchLabels":{"app":"web"}},"args":["--a"]}, got <none>']);
  });

  it('shortens a long value to 80 characters in the diff', () => {
    const long = 'x'.repeat(100);
    const [line] = checkExpectation(deploymentWanting({ spec: { note: long } }), web({ spec: { note: 'short' } })).diff;
    expect(line).toBe(`spec.note: want "${'x'.repeat(78)}…, got "short"`);
    // 80 characters exactly are shown whole.
    const eighty = 'y'.repeat(78);
    expect(checkExpectation(deploymentWanting({ spec: { note: eighty } }), web({})).diff).toEqual([`spec: want {"note":"${eighty.slice(0, 70)}…, got <none>`]);
    expect(checkExpectation(deploymentWanting({ spec: { note: 'a' } }), web({ spec: { note: eighty } })).diff).toEqual([`spec.note: want "a", got "${eighty}"`]);
  });

  it('an object that must exist and does not: "not found"; absent: true holds only when it does not exist', () => {
    expect(checkExpectation(want, undefined)).toEqual({ expectation: want, met: false, diff: ['not found'] });
    const [gone] = parseExpectations([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'old' }, absent: true }], 'e.yaml');
    expect(checkExpectation(gone, undefined)).toEqual({ expectation: gone, met: true, diff: [] });
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'old', resourceVersion: '42' } };
    expect(checkExpectation(gone, cm)).toEqual({ expectation: gone, met: false, diff: ['exists (resourceVersion 42), want absent'] });
    expect(checkExpectation(gone, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'old' } }).diff).toEqual(['exists (resourceVersion ?), want absent']);
  });

  it('a Secret\'s values never reach the diff, only which key differs; other kinds show their data', () => {
    const secret = (data: unknown): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds' }, type: 'Opaque', data } as KubeObject);
    const [e] = parseExpectations([{ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds' }, type: 'Opaque', data: { password: 'd2FudGVk', user: 'YWRtaW4=' } }], 'e.yaml');
    const result = checkExpectation(e, secret({ password: 'c3RvcmVk', user: 'YWRtaW4=' }));
    expect(result.met).toBe(false);
    expect(result.diff).toEqual(['data.password: differs (values masked)']);
    expect(checkExpectation(e, secret({ user: 'YWRtaW4=' })).diff).toEqual(['data.password: differs (values masked)']);
    // Fields outside data are shown as for any object.
    const [typed] = parseExpectations([{ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds' }, type: 'kubernetes.io/tls' }], 'e.yaml');
    expect(checkExpectation(typed, secret({})).diff).toEqual(['type: want "kubernetes.io/tls", got "Opaque"']);
    // "data" inside another path (metadata.labels) is not the Secret's data.
    const [labelled] = parseExpectations([{ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds', labels: { tier: 'db' } } }], 'e.yaml');
    expect(checkExpectation(labelled, secret({})).diff).toEqual(['metadata.labels: want {"tier":"db"}, got <none>']);
    // stringData (write-only: never stored) is masked as data is.
    const [plain] = parseExpectations([{ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds' }, stringData: { password: 'hunter2' } }], 'e.yaml');
    expect(checkExpectation(plain, secret({})).diff).toEqual(['stringData: differs (values masked)']);
    // A ConfigMap's data is no secret.
    const [cm] = parseExpectations([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'creds' }, data: { password: 'a' } }], 'e.yaml');
    expect(checkExpectation(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'creds' }, data: { password: 'b' } }).diff).toEqual(['data.password: want "a", got "b"']);
  });

  it('a Secret\'s data is masked also when the whole of data differs (the stored values were printed)', () => {
    const stored: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds' }, data: { password: 'c3RvcmVk' } } as KubeObject;
    for (const data of [null, 'none', ['password']]) {
      const [e] = parseExpectations([{ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'creds' }, data }], 'e.yaml');
      const { diff } = checkExpectation(e, stored);
      expect(diff).toEqual(['data: differs (values masked)']);
      expect(diff.join('\n')).not.toContain('c3RvcmVk');
    }
  });
});

describe('--expect FILE: its documents', () => {
  it('one expectation per document, a JSON array\'s elements each one, empty documents skipped; each knows its place', () => {
    const list = parseExpectations(
      [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'a' }, data: { k: 'v' } },
        null,
        [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name: 'p' }, absent: true }],
        undefined,
        { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name: 'q' }, absent: false },
      ],
      'want.yaml',
    );
    expect(list).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a', absent: false, want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'shop', name: 'a' }, data: { k: 'v' } }, where: 'want.yaml document 1' },
      { apiVersion: 'v1', kind: 'Namespace', namespace: undefined, name: 'shop', absent: false, want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, where: 'want.yaml document 2' },
      { apiVersion: 'v1', kind: 'Pod', namespace: 'shop', name: 'p', absent: true, want: { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name: 'p' } }, where: 'want.yaml document 3' },
      { apiVersion: 'v1', kind: 'Pod', namespace: 'shop', name: 'q', absent: false, want: { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop', name: 'q' } }, where: 'want.yaml document 4' },
    ]);
    // The cache key: namespace/name, or the name alone for a cluster-scoped object.
    expect(list.map(expectationKey)).toEqual(['shop/a', 'shop', 'shop/p', 'shop/q']);
  });

  it('a namespace that is not a string names no namespace', () => {
    const [e] = parseExpectations([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', namespace: 7 } }], 'e.yaml');
    expect(e.namespace).toBeUndefined();
    expect(expectationKey(e)).toBe('shop');
  });

  it('a file with no expectation in it is a usage error that says what one looks like', () => {
    const message = 'e.yaml: no expectation in it (one YAML document per object, e.g. apiVersion/kind/metadata.name and the fields that must hold)';
    expect(parseError([])).toBe(message);
    expect(parseError([null, undefined, []])).toBe(message);
  });

  it('a document that is not an object is refused, named by its place', () => {
    const ok = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
    expect(parseError([ok, 'just text'])).toBe('e.yaml document 2: must be an object (a partial Kubernetes object)');
    expect(parseError([42])).toBe('e.yaml document 1: must be an object (a partial Kubernetes object)');
    expect(parseError([[ok, [ok]]])).toBe('e.yaml document 2: must be an object (a partial Kubernetes object)');
  });

  it('apiVersion, kind and metadata.name are each required, as strings', () => {
    const message = 'e.yaml document 1: needs apiVersion, kind and metadata.name (they name the object to check)';
    expect(parseError([{ kind: 'Pod', metadata: { name: 'p' } }])).toBe(message);
    expect(parseError([{ apiVersion: 'v1', metadata: { name: 'p' } }])).toBe(message);
    expect(parseError([{ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'shop' } }])).toBe(message);
    expect(parseError([{ apiVersion: 'v1', kind: 'Pod' }])).toBe(message);
    expect(parseError([{ apiVersion: 1, kind: 'Pod', metadata: { name: 'p' } }])).toBe(message);
    expect(parseError([{ apiVersion: 'v1', kind: ['Pod'], metadata: { name: 'p' } }])).toBe(message);
    expect(parseError([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 3 } }])).toBe(message);
  });

  it('absent must be true or false', () => {
    for (const absent of ['yes', 1, null]) {
      expect(parseError([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, absent }])).toBe('e.yaml document 1: absent must be true or false');
    }
  });
});
