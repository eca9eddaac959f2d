import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch, applyPatch, applyStrategicMergePatch, createMergePatch, jsonEqual, PatchError } from '../../src/reconcile/patch.js';

const deploy = {
  metadata: { name: 'web', labels: { app: 'web', tier: 'front' } },
  spec: { template: { spec: { containers: [{ name: 'app', image: 'a:1', env: [{ name: 'A', value: '1' }] }, { name: 'side', image: 's:1' }] } } },
};

describe('local patches, as the API server applies them', () => {
  it('merge patch (RFC 7386): objects merge, null deletes, lists replace; createMergePatch inverts it', () => {
    const out = applyMergePatch(deploy, { metadata: { labels: { tier: null, team: 'x' } }, spec: { template: { spec: { containers: [{ name: 'only' }] } } } });
    expect(out).toEqual({ metadata: { name: 'web', labels: { app: 'web', team: 'x' } }, spec: { template: { spec: { containers: [{ name: 'only' }] } } } });
    expect(deploy.metadata.labels.tier).toBe('front'); // the input is never mutated
    expect(applyMergePatch(deploy, createMergePatch(deploy, out))).toEqual(out);
  });

  it('JSON patch (RFC 6902): all six operations, and a failed test or a missing path fails as a 422 would', () => {
    const out = applyJsonPatch({ a: { b: [1, 2] }, c: 1 }, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'replace', path: '/c', value: 2 },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'remove', path: '/a/b/0' },
      { op: 'test', path: '/e', value: 2 },
    ]);
    expect(out).toEqual({ a: { b: [2, 3] }, c: 2, e: 2 });
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(PatchError);
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toThrow(/does not exist/);
  });

  it('strategic merge patch merges containers and env by name, and $patch: delete removes one', () => {
    const out = applyStrategicMergePatch(deploy, {
      spec: { template: { spec: { containers: [{ name: 'app', image: 'a:2', env: [{ name: 'B', value: '2' }] }, { name: 'side', $patch: 'delete' }] } } },
    }) as typeof deploy;
    // kube puts a new element ahead of the live ones (mergeSortedSlice): B before A.
    expect(out.spec.template.spec.containers).toEqual([{ name: 'app', image: 'a:2', env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }] }]);
    expect(applyPatch(deploy as never, { metadata: { labels: { app: 'api' } } }, 'apply').metadata.labels).toEqual({ app: 'api', tier: 'front' });
  });
});

/** The PatchError's message (a 422 the writer reports): fails the test when it is not a PatchError. */
function patchError(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PatchError);
    return (err as Error).message;
  }
  throw new Error('the patch applied');
}

describe('merge patch and createMergePatch, edge by edge', () => {
  it('a patch that is not an object replaces the target whole (a copy); a target that is not one starts empty', () => {
    const list = [{ a: 1 }];
    const out = applyMergePatch({ a: 1 }, list) as unknown[];
    expect(out).toEqual([{ a: 1 }]);
    expect(out).not.toBe(list);
    expect(out[0]).not.toBe(list[0]);
    expect(applyMergePatch({ a: 1 }, 'x')).toBe('x');
    expect(applyMergePatch('x', { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(applyMergePatch([1, 2], { a: null, b: 2 })).toEqual({ b: 2 });
    expect(applyMergePatch({ a: { b: 1, c: 2 } }, { a: { c: null, d: 3 } })).toEqual({ a: { b: 1, d: 3 } });
  });

  it('createMergePatch: null for a removed field, the new value for an added or changed one, nested maps as patches, nothing for equal ones', () => {
    const from = { keep: { x: 1 }, gone: 1, list: [1, 2], deep: { a: 1, b: { c: 1 } }, same: [{ k: 1 }] };
    const to = { keep: { x: 1 }, added: { y: [1] }, list: [2, 1], deep: { a: 1, b: { c: 2 } }, same: [{ k: 1 }] };
    const patch = createMergePatch(from, to);
    expect(patch).toEqual({ gone: null, added: { y: [1] }, list: [2, 1], deep: { b: { c: 2 } } });
    expect(applyMergePatch(from, patch)).toEqual(to);
    expect(createMergePatch(from, from)).toEqual({});
    // A map turned into a scalar (or back) is replaced, not patched; not-a-map on either side gives `to` whole.
    expect(createMergePatch({ a: { b: 1 } }, { a: 'flat' })).toEqual({ a: 'flat' });
    expect(createMergePatch({ a: 'flat' }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(createMergePatch([1], { a: 1 })).toEqual({ a: 1 });
    expect(createMergePatch({ a: 1 }, [1])).toEqual([1]);
    // The patch holds copies: changing it later changes neither object.
    const added = createMergePatch({}, to) as { added: { y: number[] } };
    added.added.y.push(9);
    expect(to.added.y).toEqual([1]);
  });

  it('jsonEqual: deep, order-sensitive for lists, key-set-sensitive for maps', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1, 2], [1, 3])).toBe(false);
    expect(jsonEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ 0: 1 }, [1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual({}, null)).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});

describe('JSON patch (RFC 6902), operation by operation', () => {
  it('add inserts into a list at an index (the rest move up), `-` appends; replace overwrites in place', () => {
    expect(applyJsonPatch({ l: ['a', 'c'] }, [{ op: 'add', path: '/l/1', value: 'b' }])).toEqual({ l: ['a', 'b', 'c'] });
    expect(applyJsonPatch({ l: ['a', 'c'] }, [{ op: 'add', path: '/l/2', value: 'd' }])).toEqual({ l: ['a', 'c', 'd'] });
    expect(applyJsonPatch({ l: ['a', 'c'] }, [{ op: 'add', path: '/l/-', value: 'd' }])).toEqual({ l: ['a', 'c', 'd'] });
    expect(applyJsonPatch({ l: ['a', 'c'] }, [{ op: 'replace', path: '/l/1', value: 'b' }])).toEqual({ l: ['a', 'b'] });
    expect(applyJsonPatch({ m: { a: 1 } }, [{ op: 'add', path: '/m/a', value: 2 }])).toEqual({ m: { a: 2 } });
    // The whole document: an empty path.
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
  });

  it('an index out of range, negative or not a number is refused', () => {
    expect(patchError(() => applyJsonPatch({ l: ['a'] }, [{ op: 'add', path: '/l/2', value: 'x' }]))).toBe('index 2 is out of range');
    expect(patchError(() => applyJsonPatch({ l: ['a'] }, [{ op: 'add', path: '/l/-1', value: 'x' }]))).toBe('index -1 is out of range');
    expect(patchError(() => applyJsonPatch({ l: ['a'] }, [{ op: 'add', path: '/l/x', value: 'x' }]))).toBe('index x is out of range');
    expect(patchError(() => applyJsonPatch({ l: ['a'] }, [{ op: 'add', path: '/l/0.5', value: 'x' }]))).toBe('index 0.5 is out of range');
  });

  it('remove takes a list element out (the rest move down) or a map key; a missing one is refused', () => {
    expect(applyJsonPatch({ l: ['a', 'b', 'c'] }, [{ op: 'remove', path: '/l/1' }])).toEqual({ l: ['a', 'c'] });
    expect(applyJsonPatch({ m: { a: 1, b: 2 } }, [{ op: 'remove', path: '/m/a' }])).toEqual({ m: { b: 2 } });
    expect(patchError(() => applyJsonPatch({ m: { a: 1 } }, [{ op: 'remove', path: '/m/b' }]))).toBe('the path "/m/b" does not exist');
    expect(patchError(() => applyJsonPatch({ l: ['a'] }, [{ op: 'remove', path: '/l/3' }]))).toBe('the path "/l/3" does not exist');
    expect(patchError(() => applyJsonPatch({ m: { a: 1 } }, [{ op: 'remove', path: '/x/a' }]))).toBe('the path "/x/a" does not exist');
  });

  it('move and copy: from a path that must exist; a copy is independent of its source', () => {
    expect(applyJsonPatch({ a: { x: 1 }, l: [] }, [{ op: 'move', from: '/a', path: '/l/0' }])).toEqual({ l: [{ x: 1 }] });
    const copied = applyJsonPatch({ a: { x: 1 } }, [{ op: 'copy', from: '/a', path: '/b' }, { op: 'replace', path: '/b/x', value: 2 }]);
    expect(copied).toEqual({ a: { x: 1 }, b: { x: 2 } });
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/nope', path: '/b' }]))).toBe('the path "/nope" does not exist');
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'copy', from: '/nope', path: '/b' }]))).toBe('the path "/nope" does not exist');
    // Into a list at an index, both insert (the element there moves up), as add does.
    expect(applyJsonPatch({ a: 'm', l: ['x'] }, [{ op: 'move', from: '/a', path: '/l/0' }])).toEqual({ l: ['m', 'x'] });
    expect(applyJsonPatch({ a: 'c', l: ['x'] }, [{ op: 'copy', from: '/a', path: '/l/0' }])).toEqual({ a: 'c', l: ['c', 'x'] });
    // No `from` is refused (it used to copy or move the whole document).
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'copy', path: '/b' }]))).toBe('the "copy" operation needs a "from" path: {"op":"copy","path":"/b"}');
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'move', path: '/b' }]))).toBe('the "move" operation needs a "from" path: {"op":"move","path":"/b"}');
  });

  it('test compares deeply; a failed test names its path', () => {
    expect(applyJsonPatch({ a: { b: [1, 2] } }, [{ op: 'test', path: '/a', value: { b: [1, 2] } }])).toEqual({ a: { b: [1, 2] } });
    expect(patchError(() => applyJsonPatch({ a: { b: [1, 2] } }, [{ op: 'test', path: '/a/b', value: [2, 1] }]))).toBe('testing value /a/b failed');
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/b', value: 1 }]))).toBe('the path "/b" does not exist');
    // A path does not reach into a string's own properties.
    expect(patchError(() => applyJsonPatch({ a: 'abc' }, [{ op: 'test', path: '/a/length', value: 3 }]))).toBe('the path "/a/length" does not exist');
  });

  it('pointers: ~1 is a slash and ~0 a tilde (in that order), and a pointer must start with /', () => {
    const obj = { metadata: { annotations: { 'example.com/owner': 'a', 'x~1y': 'b' } } };
    expect(applyJsonPatch(obj, [{ op: 'replace', path: '/metadata/annotations/example.com~1owner', value: 'c' }])).toEqual({ metadata: { annotations: { 'example.com/owner': 'c', 'x~1y': 'b' } } });
    expect(applyJsonPatch(obj, [{ op: 'remove', path: '/metadata/annotations/x~01y' }])).toEqual({ metadata: { annotations: { 'example.com/owner': 'a' } } });
    expect(patchError(() => applyJsonPatch(obj, [{ op: 'add', path: 'metadata/x', value: 1 }]))).toBe('invalid JSON pointer "metadata/x"');
  });

  it('refuses what is not a patch, with the server\'s kind of message', () => {
    expect(patchError(() => applyJsonPatch({}, { op: 'add' }))).toBe('a JSON patch must be an array of operations');
    expect(patchError(() => applyJsonPatch({}, ['add']))).toBe('invalid JSON patch operation "add"');
    expect(patchError(() => applyJsonPatch({}, [{ op: 'add', path: 3 }]))).toBe('invalid JSON patch operation {"op":"add","path":3}');
    expect(patchError(() => applyJsonPatch({}, [{ op: 'append', path: '/a' }]))).toBe('unknown JSON patch operation "append"');
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a/b', value: 1 }]))).toBe('cannot set "b" inside a number');
    expect(patchError(() => applyJsonPatch({ a: null }, [{ op: 'add', path: '/a/b', value: 1 }]))).toBe('cannot set "b" inside a null');
    expect(patchError(() => applyJsonPatch({ a: {} }, [{ op: 'add', path: '/a/b/c', value: 1 }]))).toBe('the path "/a/b" does not exist');
  });

  it('never changes its input, nor a value it adds', () => {
    const input = { l: [1, 2], m: { a: 1 } };
    applyJsonPatch(input, [{ op: 'add', path: '/l/0', value: 0 }, { op: 'remove', path: '/m/a' }]);
    expect(input).toEqual({ l: [1, 2], m: { a: 1 } });
    const value = { v: 1 };
    const out = applyJsonPatch(input, [{ op: 'add', path: '/n', value }]) as { n: { v: number } };
    out.n.v = 2;
    expect(value.v).toBe(1);
  });
});

describe('strategic merge patch, edge by edge', () => {
  const pod = { spec: { containers: [{ name: 'a', image: 'a:1', ports: [{ containerPort: 80, name: 'http' }] }], args: ['x', 'y'], tolerations: [{ key: 'k1', effect: 'NoSchedule' }] }, status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Synced', status: 'True' }] } };

  it('merges list elements by their key, recursively; a new key appends; lists kube does not merge replace', () => {
    const out = applyStrategicMergePatch(pod, {
      spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }] }, { name: 'b', image: 'b:1' }], args: ['z'] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(out).toEqual({
      spec: { containers: [{ name: 'a', image: 'a:1', ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }] }, { name: 'b', image: 'b:1' }], args: ['z'], tolerations: [{ key: 'k1', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'True' }] },
    });
    expect(pod.spec.containers[0].ports).toEqual([{ containerPort: 80, name: 'http' }]); // the input is never mutated
  });

  it('$patch: replace replaces a map; $patch: delete of an element not there changes nothing; other $ directives are not stored', () => {
    expect(applyStrategicMergePatch({ a: { x: 1, y: 2 } }, { a: { $patch: 'replace', z: 3 } })).toEqual({ a: { z: 3 } });
    expect(applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'zz', $patch: 'delete' }] } })).toEqual(pod);
    // The first element can be deleted too.
    expect(applyStrategicMergePatch(pod, { status: { conditions: [{ type: 'Ready', $patch: 'delete' }] } })).toMatchObject({ status: { conditions: [{ type: 'Synced', status: 'True' }] } });
    expect(applyStrategicMergePatch({ a: 1 }, { $setElementOrder: [{ name: 'a' }], $retainKeys: ['a'], b: 2 })).toEqual({ a: 1, b: 2 });
    // A new element's own $patch is not stored with it.
    expect(applyStrategicMergePatch({ spec: { volumes: [] } }, { spec: { volumes: [{ name: 'v', $patch: 'merge' }] } })).toEqual({ spec: { volumes: [{ name: 'v' }] } });
  });

  it('null deletes; an element without its key appends as it is; a keyed list where there was none is set whole', () => {
    expect(applyStrategicMergePatch(pod, { spec: null, status: { conditions: null } })).toEqual({ status: {} });
    const withEnv = { spec: { env: [{ name: 'A', value: '1' }] } };
    expect(applyStrategicMergePatch(withEnv, { spec: { env: [{ value: '2' }, 'odd'] } })).toEqual({ spec: { env: [{ name: 'A', value: '1' }, { value: '2' }, 'odd'] } });
    expect(applyStrategicMergePatch({ spec: { env: 'x' } }, { spec: { env: [{ name: 'A' }] } })).toEqual({ spec: { env: [{ name: 'A' }] } });
    expect(applyStrategicMergePatch({ spec: {} }, { spec: { volumes: [{ name: 'v', emptyDir: {} }] } })).toEqual({ spec: { volumes: [{ name: 'v', emptyDir: {} }] } });
    expect(applyStrategicMergePatch({ a: 1 }, 'x')).toBe('x');
  });

  it('tolerations replace as kube replaces them (PodSpec gives them no patch strategy), they do not merge by key', () => {
    const out = applyStrategicMergePatch(pod, { spec: { tolerations: [{ key: 'k2', operator: 'Exists' }] } }) as typeof pod;
    expect(out.spec.tolerations).toEqual([{ key: 'k2', operator: 'Exists' }]);
    expect((applyStrategicMergePatch(pod, { spec: { tolerations: [{ key: 'k1', effect: 'NoExecute' }] } }) as typeof pod).spec.tolerations).toEqual([{ key: 'k1', effect: 'NoExecute' }]);
  });

  it('a Service\'s ports merge by port, a container\'s by containerPort', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } } as never;
    const patch = { spec: { ports: [{ port: 80, targetPort: 9090 }, { name: 'https', port: 443 }] } };
    const merged = { name: 'http', port: 80, targetPort: 9090 };
    expect((applyPatch(svc, patch, 'strategic') as unknown as { spec: { ports: unknown[] } }).spec.ports).toEqual([merged, { name: 'https', port: 443 }]);
    expect((applyPatch(svc, patch, 'apply') as unknown as { spec: { ports: unknown[] } }).spec.ports).toEqual([merged, { name: 'https', port: 443 }]);
    expect((applyStrategicMergePatch(svc, patch, 'Service') as { spec: { ports: unknown[] } }).spec.ports).toEqual([merged, { name: 'https', port: 443 }]);
    // Another kind: ports are a container's, keyed by containerPort.
    expect((applyStrategicMergePatch({ ports: [{ containerPort: 80, name: 'a' }] }, { ports: [{ containerPort: 80, protocol: 'TCP' }] }, 'Pod') as { ports: unknown[] }).ports).toEqual([{ containerPort: 80, name: 'a', protocol: 'TCP' }]);
  });

  it('only the field names kube merges count: an inherited name such as "constructor" replaces', () => {
    expect(applyStrategicMergePatch({ constructor: [{ name: 'a' }] }, { constructor: [{ name: 'b' }] })).toEqual({ constructor: [{ name: 'b' }] });
  });

  it('applyPatch: merge replaces lists, strategic and apply merge them, json applies operations', () => {
    const base = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'a:1' }] } } as never;
    const patch = { spec: { containers: [{ name: 'b', image: 'b:1' }] } };
    expect((applyPatch(base, patch, 'merge') as unknown as typeof pod).spec.containers).toEqual([{ name: 'b', image: 'b:1' }]);
    // A strategic merge puts the new element first, as kube does; the apply approximation appends it.
    expect((applyPatch(base, patch, 'strategic') as unknown as typeof pod).spec.containers).toEqual([{ name: 'b', image: 'b:1' }, { name: 'a', image: 'a:1' }]);
    expect((applyPatch(base, patch, 'apply') as unknown as typeof pod).spec.containers).toEqual([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]);
    expect(applyPatch(base, [{ op: 'replace', path: '/metadata/name', value: 'q' }], 'json').metadata).toEqual({ name: 'q' });
  });
});

describe('strategic merge patch: scalar sets and the directives kubectl sends', () => {
  const meta = (finalizers?: string[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(finalizers ? { finalizers } : {}) } }) as never;
  const finalizersOf = (o: unknown) => (o as { metadata: { finalizers?: unknown[] } }).metadata.finalizers;

  it('metadata.finalizers merge as a set: no duplicates, the live order kept, a new one first (kube mergeSlice)', () => {
    expect(finalizersOf(applyPatch(meta(['a', 'b']), { metadata: { finalizers: ['b', 'c'] } }, 'strategic'))).toEqual(['a', 'b', 'c']);
    expect(finalizersOf(applyPatch(meta(['a', 'b']), { metadata: { finalizers: ['a'] } }, 'strategic'))).toEqual(['a', 'b']);
    expect(finalizersOf(applyPatch(meta(['a']), { metadata: { finalizers: ['x/new'] } }, 'strategic'))).toEqual(['x/new', 'a']);
    expect(finalizersOf(applyPatch(meta(['a', 'a']), { metadata: { finalizers: ['b', 'b'] } }, 'strategic'))).toEqual(['b', 'a']);
    // Patch elements keep the patch's order; a live one before a patched one stays before it.
    expect(finalizersOf(applyPatch(meta(['a', 'b', 'c']), { metadata: { finalizers: ['c', 'new', 'a'] } }, 'strategic'))).toEqual(['b', 'c', 'new', 'a']);
    expect(finalizersOf(applyPatch(meta(), { metadata: { finalizers: ['a'] } }, 'strategic'))).toEqual(['a']);
    // A pod template's metadata too; the apply approximation dedupes and appends.
    const rs = { kind: 'ReplicaSet', spec: { template: { metadata: { finalizers: ['a'] } } } };
    expect(applyStrategicMergePatch(rs, { spec: { template: { metadata: { finalizers: ['b', 'a'] } } } })).toEqual({ kind: 'ReplicaSet', spec: { template: { metadata: { finalizers: ['b', 'a'] } } } });
    expect(finalizersOf(applyPatch(meta(['a']), { metadata: { finalizers: ['b', 'a'] } }, 'apply'))).toEqual(['a', 'b']);
    // A merge patch still replaces the list.
    expect(finalizersOf(applyPatch(meta(['a']), { metadata: { finalizers: ['b'] } }, 'merge'))).toEqual(['b']);
  });

  it('a finalizers list elsewhere (a Namespace\'s spec) has no patch strategy and replaces; a Node\'s spec.podCIDRs is a set', () => {
    const ns = { kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['kubernetes'] } };
    expect(applyStrategicMergePatch(ns, { spec: { finalizers: ['other'] } }, 'Namespace')).toEqual({ kind: 'Namespace', metadata: { name: 'n' }, spec: { finalizers: ['other'] } });
    const node = { kind: 'Node', spec: { podCIDRs: ['10.0.0.0/24'] } };
    expect(applyStrategicMergePatch(node, { spec: { podCIDRs: ['fd00::/64'] } }, 'Node')).toEqual({ kind: 'Node', spec: { podCIDRs: ['fd00::/64', '10.0.0.0/24'] } });
  });

  it('$deleteFromPrimitiveList/finalizers removes the named ones (what kubectl edit and apply send to drop a finalizer)', () => {
    expect(finalizersOf(applyPatch(meta(['a', 'b', 'c']), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'zz'] } }, 'strategic'))).toEqual(['a', 'c']);
    // client-go's CreateTwoWayMergePatch for ['a','b','c'] → ['a','c']: the deletion list and the order of what stays.
    const patch = { metadata: { '$setElementOrder/finalizers': ['a', 'c'], '$deleteFromPrimitiveList/finalizers': ['b'] } };
    const out = applyPatch(meta(['a', 'b', 'c']), patch, 'strategic');
    expect(finalizersOf(out)).toEqual(['a', 'c']);
    expect(Object.keys((out as { metadata: object }).metadata)).toEqual(['name', 'finalizers']); // no directive is stored
    // A removal and an addition in one patch.
    expect(finalizersOf(applyPatch(meta(['a', 'b']), { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['c'] } }, 'strategic'))).toEqual(['c', 'b']);
    // kube (mergeMap) stores the deletion list when the field is absent.
    expect(finalizersOf(applyPatch(meta(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, 'strategic'))).toEqual(['a']);
    expect(patchError(() => applyPatch(meta(['a']), { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, 'strategic'))).toBe('invalid patch: $deleteFromPrimitiveList/finalizers must be a list');
  });

  it('$setElementOrder/finalizers places an added finalizer where kubectl put it', () => {
    const patch = { metadata: { '$setElementOrder/finalizers': ['a', 'new', 'b'], finalizers: ['new'] } };
    expect(finalizersOf(applyPatch(meta(['a', 'b']), patch, 'strategic'))).toEqual(['a', 'new', 'b']);
    // The order alone reorders; a live element it does not name goes before the named ones it was before.
    expect(finalizersOf(applyPatch(meta(['a', 'b']), { metadata: { '$setElementOrder/finalizers': ['b', 'a'] } }, 'strategic'))).toEqual(['b', 'a']);
    expect(finalizersOf(applyPatch(meta(['a', 'x', 'b']), { metadata: { '$setElementOrder/finalizers': ['b', 'a'] } }, 'strategic'))).toEqual(['x', 'b', 'a']);
    expect(finalizersOf(applyPatch(meta(['a', 'b', 'x']), { metadata: { '$setElementOrder/finalizers': ['b', 'a'] } }, 'strategic'))).toEqual(['b', 'a', 'x']);
    // No live list: the patch's list; a patch list out of the order's order is refused, as kube refuses it.
    expect(finalizersOf(applyPatch(meta(), { metadata: { '$setElementOrder/finalizers': ['b', 'a'], finalizers: ['b', 'a'] } }, 'strategic'))).toEqual(['b', 'a']);
    expect(patchError(() => applyPatch(meta(), { metadata: { '$setElementOrder/finalizers': ['b', 'a'], finalizers: ['a', 'b'] } }, 'strategic'))).toMatch(/does not match the \$setElementOrder\/finalizers list/);
    // Neither: nothing is added.
    expect(finalizersOf(applyPatch(meta(), { metadata: { '$setElementOrder/finalizers': ['a'] } }, 'strategic'))).toBeUndefined();
  });

  it('$setElementOrder/containers orders a keyed list by its key, with the patched elements merged', () => {
    const pod = { kind: 'Pod', spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } };
    const out = applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }, { name: 'b' }], containers: [{ name: 'c', image: 'c:1' }] } }, 'Pod');
    expect(out).toEqual({ kind: 'Pod', spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'c', image: 'c:1' }, { name: 'b', image: 'b:1' }] } });
    const swapped = applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'b', image: 'b:2' }] } }, 'Pod');
    expect(swapped).toEqual({ kind: 'Pod', spec: { containers: [{ name: 'b', image: 'b:2' }, { name: 'a', image: 'a:1' }] } });
    // A list without a patch strategy replaces, then takes the order.
    const tol = applyStrategicMergePatch({ spec: { tolerations: [{ key: 'x' }] } }, { spec: { '$setElementOrder/tolerations': [{ key: 'b' }, { key: 'a' }], tolerations: [{ key: 'b' }, { key: 'a' }] } });
    expect(tol).toEqual({ spec: { tolerations: [{ key: 'b' }, { key: 'a' }] } });
    // The patch list must follow the order list (kube: "doesn't match $setElementOrder list").
    expect(patchError(() => applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b' }, { name: 'a' }] } }, 'Pod')))
      .toBe('invalid patch: the order in the patch list does not match the $setElementOrder/containers list');
    expect(patchError(() => applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'z' }] } }, 'Pod'))).toMatch(/does not match/);
    expect(patchError(() => applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': 'a' } }, 'Pod'))).toBe('invalid patch: $setElementOrder/containers must be a list');
    // A deleted element is not checked against the order, and is gone.
    const dropped = applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'b' }], containers: [{ name: 'a', $patch: 'delete' }] } }, 'Pod');
    expect(dropped).toEqual({ kind: 'Pod', spec: { containers: [{ name: 'b', image: 'b:1' }] } });
  });

  it('a keyed list: new elements go ahead of the live ones, patched ones keep their place, and a {$patch: replace} element replaces the list', () => {
    const pod = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
    expect(applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'd' }, { name: 'b', image: 'b:2' }] } })).toEqual({ spec: { containers: [{ name: 'd' }, { name: 'a' }, { name: 'b', image: 'b:2' }, { name: 'c' }] } });
    expect(applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'c', image: 'c:2' }, { name: 'a', image: 'a:2' }] } })).toEqual({ spec: { containers: [{ name: 'b' }, { name: 'c', image: 'c:2' }, { name: 'a', image: 'a:2' }] } });
    expect(applyStrategicMergePatch(pod, { spec: { containers: [{ $patch: 'replace' }, { name: 'z', image: 'z:1' }] } })).toEqual({ spec: { containers: [{ name: 'z', image: 'z:1' }] } });
    expect(applyStrategicMergePatch(pod, { spec: { containers: [{ $patch: 'replace' }] } })).toEqual({ spec: { containers: [] } });
  });
});
