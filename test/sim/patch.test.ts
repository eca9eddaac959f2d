import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError, strategicMergeSupported } from '../../src/sim/patch.js';

const frozen = <T>(v: T): T => {
  if (typeof v === 'object' && v !== null) {
    Object.values(v).forEach(frozen);
    Object.freeze(v);
  }
  return v;
};

const pod = () => frozen({
  metadata: { name: 'web', labels: { app: 'web', tier: 'fe' }, finalizers: ['a'], ownerReferences: [{ uid: 'u1', name: 'rs' }] },
  spec: {
    containers: [
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] },
      { name: 'sidecar', image: 'side:1' },
    ],
    volumes: [{ name: 'config', configMap: { name: 'cfg' } }],
    tolerations: [{ key: 'a', operator: 'Exists' }],
  },
  status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }] },
});

describe('merge patch (RFC 7386)', () => {
  it('merges objects, deletes on null, replaces arrays and scalars', () => {
    const out = applyMergePatch(pod(), { metadata: { labels: { tier: null, canary: 'yes' } }, spec: { tolerations: [] } }) as any;
    expect(out.metadata.labels).toEqual({ app: 'web', canary: 'yes' });
    expect(out.spec.tolerations).toEqual([]);
    expect(out.spec.containers).toHaveLength(2);
  });

  it('follows the RFC 7386 examples', () => {
    expect(applyMergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(applyMergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(applyMergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(applyMergePatch(['a', 'b'], ['c', 'd'])).toEqual(['c', 'd']);
    expect(applyMergePatch({ a: 'foo' }, 'bar')).toEqual('bar');
    expect(applyMergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(applyMergePatch([1, 2], { a: 'b', c: null })).toEqual({ a: 'b' });
    expect(applyMergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });

  it('never mutates its inputs and shares nothing with them', () => {
    const target = pod();
    const out = applyMergePatch(target, { metadata: { labels: { x: '1' } } }) as any;
    out.spec.containers[0].image = 'changed';
    expect(target.spec.containers[0].image).toBe('app:1');
  });
});

describe('JSON patch (RFC 6902)', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'test', path: '/metadata/name', value: 'web' },
      { op: 'add', path: '/metadata/labels/canary', value: 'yes' },
      { op: 'remove', path: '/metadata/labels/tier' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'app:2' },
      { op: 'add', path: '/spec/containers/-', value: { name: 'third' } },
      { op: 'add', path: '/metadata/finalizers/0', value: 'first' },
      { op: 'copy', from: '/metadata/labels/app', path: '/metadata/labels/copied' },
      { op: 'move', from: '/metadata/labels/canary', path: '/metadata/labels/moved' },
      { op: 'add', path: '/metadata/labels/a~1b', value: 'slash' },
    ]) as any;
    expect(out.metadata.labels).toEqual({ app: 'web', copied: 'web', moved: 'yes', 'a/b': 'slash' });
    expect(out.spec.containers.map((c: any) => c.name)).toEqual(['app', 'sidecar', 'third']);
    expect(out.spec.containers[0].image).toBe('app:2');
    expect(out.metadata.finalizers).toEqual(['first', 'a']);
  });

  it('answers a failed operation with kube\'s generic 422 and keeps the detail', () => {
    const cases: [unknown[], string][] = [
      [[{ op: 'test', path: '/metadata/name', value: 'other' }], 'testing value /metadata/name failed: test failed'],
      [[{ op: 'remove', path: '/metadata/nope' }], 'Unable to remove nonexistent key: nope: missing value'],
      [[{ op: 'replace', path: '/spec/nope', value: 1 }], 'replace operation does not apply: doc is missing key: /spec/nope: missing value'],
      [[{ op: 'add', path: '/missing/child', value: 1 }], 'add operation does not apply: doc is missing path: "/missing/child": missing value'],
      [[{ op: 'add', path: '/spec/containers/9', value: 1 }], 'add operation does not apply: doc is missing path: "/spec/containers/9": missing value'],
      [[{ op: 'frobnicate', path: '/a' }], 'Unexpected kind: frobnicate'],
    ];
    for (const [ops, detail] of cases) {
      try {
        applyJsonPatch(pod(), ops);
        expect.fail('expected a PatchError');
      } catch (e) {
        expect(e).toBeInstanceOf(PatchError);
        expect(e).toMatchObject({ code: 422, message: 'the server rejected our request due to an error in our request', detail });
      }
    }
  });

  it('rejects a body that is not a list with 400', () => {
    expect(() => applyJsonPatch({}, { op: 'add' })).toThrow(expect.objectContaining({ code: 400, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' }));
  });

  it('is atomic: a failing operation leaves the input untouched', () => {
    const target = pod();
    expect(() => applyJsonPatch(target, [{ op: 'add', path: '/metadata/labels/x', value: '1' }, { op: 'test', path: '/metadata/name', value: 'no' }])).toThrow(PatchError);
    expect(target.metadata.labels).toEqual({ app: 'web', tier: 'fe' });
  });
});

describe('strategic merge patch', () => {
  it('merges containers by name and their env by name', () => {
    const out = applyStrategicMergePatch(pod(), { spec: { containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }] }] } }, 'Pod') as any;
    expect(out.spec.containers.map((c: any) => c.name)).toEqual(['app', 'sidecar']);
    expect(out.spec.containers[0].image).toBe('app:2');
    expect(out.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: 'two' }, { name: 'C', value: '3' }]);
    expect(out.spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('merges through a Deployment\'s pod template', () => {
    const deployment = frozen({ spec: { template: { spec: pod().spec } } });
    const out = applyStrategicMergePatch(deployment, { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'side:2' }] } } } }, 'Deployment') as any;
    expect(out.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['app=app:1', 'sidecar=side:2']);
  });

  it('deletes list elements with $patch: delete and keys with null', () => {
    const out = applyStrategicMergePatch(pod(), { metadata: { labels: { tier: null } }, spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } }, 'Pod') as any;
    expect(out.spec.containers.map((c: any) => c.name)).toEqual(['app']);
    expect(out.metadata.labels).toEqual({ app: 'web' });
  });

  it('replaces a whole list with a $patch: replace element, and a map with $patch: replace', () => {
    const out = applyStrategicMergePatch(pod(), {
      spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] },
      metadata: { labels: { $patch: 'replace', fresh: 'yes' } },
    }, 'Pod') as any;
    expect(out.spec.containers).toEqual([{ name: 'only', image: 'x' }]);
    expect(out.metadata.labels).toEqual({ fresh: 'yes' });
  });

  it('replaces lists without a merge strategy (tolerations)', () => {
    const out = applyStrategicMergePatch(pod(), { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } }, 'Pod') as any;
    expect(out.spec.tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
  });

  it('merges status conditions by type, ownerReferences by uid, finalizers as a set', () => {
    const out = applyStrategicMergePatch(pod(), {
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
      metadata: { finalizers: ['a', 'b'], ownerReferences: [{ uid: 'u2', name: 'other' }] },
    }, 'Pod') as any;
    expect(out.status.conditions).toEqual([{ type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }]);
    expect(out.metadata.finalizers).toEqual(['a', 'b']);
    // A new element goes ahead of the live ones (kube's mergeSortedSlice, strategicpatch/patch.go).
    expect(out.metadata.ownerReferences.map((o: any) => o.uid)).toEqual(['u2', 'u1']);
  });

  it('puts what the patch names ahead of server-only elements unless both are live and the server one is earlier', () => {
    const names = (list: any[]) => list.map((e: any) => e.name);
    const out = applyStrategicMergePatch(pod(), { spec: { containers: [{ name: 'app', env: [{ name: 'C', value: '3' }] }, { name: 'init' }] } }, 'Pod') as any;
    // env [A, B] + [C] → [C, A, B]; containers [app, sidecar] + [app, init] → [app, init, sidecar].
    expect(names(out.spec.containers[0].env)).toEqual(['C', 'A', 'B']);
    expect(names(out.spec.containers)).toEqual(['app', 'init', 'sidecar']);
    const live = applyStrategicMergePatch(pod(), { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '9' }, { name: 'Z', value: '0' }] }] } }, 'Pod') as any;
    // A (server-only) is live before B (named), so it stays first; Z follows B as the patch lists it.
    expect(names(live.spec.containers[0].env)).toEqual(['A', 'B', 'Z']);
    expect(live.spec.containers[0].env[1]).toEqual({ name: 'B', value: '9' });
  });

  it('puts a new finalizer ahead of the live ones, and keeps the patch order for the named ones', () => {
    expect((applyStrategicMergePatch(pod(), { metadata: { finalizers: ['b'] } }, 'Pod') as any).metadata.finalizers).toEqual(['b', 'a']);
    const target = frozen({ metadata: { finalizers: ['x', 'y', 'z'] } });
    // Named z, new, x keep the patch order; server-only y is live before z (the first named), so it goes ahead.
    expect((applyStrategicMergePatch(target, { metadata: { finalizers: ['z', 'new', 'x'] } }, 'Pod') as any).metadata.finalizers).toEqual(['y', 'z', 'new', 'x']);
  });

  it('interleaves server-only elements with the $setElementOrder ones by live order', () => {
    const target = frozen({ spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } });
    const out = applyStrategicMergePatch(target, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'new' }], containers: [{ name: 'new' }] } }, 'Pod') as any;
    // a and b are server-only and live before c, so they go first; then c and new in the order given.
    expect(out.spec.containers.map((c: any) => c.name)).toEqual(['a', 'b', 'c', 'new']);
  });

  it('removes primitives with $deleteFromPrimitiveList', () => {
    const out = applyStrategicMergePatch(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, 'Pod') as any;
    expect(out.metadata.finalizers).toEqual([]);
  });

  it('stores the $deleteFromPrimitiveList list as the field when the field is absent, like kube', () => {
    // kube's mergeMap takes the patch value for a key the original lacks (strategicpatch/patch.go), directive or not.
    const out = applyStrategicMergePatch({ metadata: { name: 'x' } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['gone'] } }, 'Pod') as any;
    expect(out.metadata).toEqual({ name: 'x', finalizers: ['gone'] });
  });

  it('drops keys outside $retainKeys', () => {
    const out = applyStrategicMergePatch(pod(), { spec: { volumes: [{ name: 'config', $retainKeys: ['name', 'secret'], secret: { secretName: 's' } }] } }, 'Pod') as any;
    expect(out.spec.volumes).toEqual([{ name: 'config', secret: { secretName: 's' } }]);
  });

  it('orders a merged list by $setElementOrder', () => {
    const out = applyStrategicMergePatch(pod(), { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'app', image: 'app:3' }] } }, 'Pod') as any;
    expect(out.spec.containers.map((c: any) => c.name)).toEqual(['sidecar', 'app']);
  });

  it('merges Service ports by port', () => {
    const svc = frozen({ spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 8443 }] } });
    const out = applyStrategicMergePatch(svc, { spec: { ports: [{ port: 443, targetPort: 9443 }] } }, 'Service') as any;
    expect(out.spec.ports).toEqual([{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 9443 }]);
  });

  it('behaves like a merge patch for kinds without a schema', () => {
    const out = applyStrategicMergePatch({ spec: { items: [{ name: 'a' }], keep: 1 } }, { spec: { items: [{ name: 'b' }] } }, 'Widget');
    expect(out).toEqual({ spec: { items: [{ name: 'b' }], keep: 1 } });
  });

  it('rejects a list element without the merge key', () => {
    expect(() => applyStrategicMergePatch(pod(), { spec: { containers: [{ image: 'x' }] } }, 'Pod')).toThrow('does not contain declared merge key: name');
  });

  it('never mutates its inputs', () => {
    const target = pod();
    const patch = frozen({ spec: { containers: [{ name: 'app', env: [{ name: 'Z', value: '26' }] }] } });
    applyStrategicMergePatch(target, patch, 'Pod');
    expect(target.spec.containers[0].env).toHaveLength(2);
  });

  it('is supported for built-in groups only (custom resources get 415)', () => {
    expect(strategicMergeSupported('', 'Pod')).toBe(true);
    expect(strategicMergeSupported('apps', 'Deployment')).toBe(true);
    expect(strategicMergeSupported('example.com', 'Widget')).toBe(false);
  });
});
