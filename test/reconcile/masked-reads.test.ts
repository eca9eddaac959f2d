// Replaying a masked recording: each masked value a reconciler reads is reported by its path, then returns
// the placeholder; values that are not masked stay plain properties. In-process (the e2e file drives the CLI).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/informer/types.js';
import { reportMaskedReads } from '../../src/reconcile/masked-reads.js';

const guarded = (obj: Record<string, unknown>) => {
  const reads: string[] = [];
  const o = reportMaskedReads(obj as KubeObject, (p) => reads.push(p)) as Record<string, any>;
  return { o, reads };
};

describe('reportMaskedReads', () => {
  it('reports a masked field read with its dotted path and returns the placeholder', () => {
    const { o, reads } = guarded({ metadata: { name: 's' }, data: { password: '<masked 7 bytes>', user: 'YWRtaW4=' } });
    expect(reads).toEqual([]);
    expect(o.data.user).toBe('YWRtaW4=');
    expect(o.metadata.name).toBe('s');
    expect(reads).toEqual([]);
    expect(o.data.password).toBe('<masked 7 bytes>');
    expect(reads).toEqual(['data.password']);
  });

  it('leaves unmasked strings as plain data properties', () => {
    const { o } = guarded({ data: { user: 'YWRtaW4=', note: 'not <masked 3 bytes> here', tail: '<masked 3 bytes>x' } });
    for (const k of ['user', 'note', 'tail']) expect(Object.getOwnPropertyDescriptor(o.data, k)).toHaveProperty('value');
    expect(Object.getOwnPropertyDescriptor(o.data, 'user')?.get).toBeUndefined();
  });

  it('matches only the whole placeholder at the end of the value, with digits', () => {
    const { o, reads } = guarded({ a: 'x<masked 12 bytes>', b: '<masked  bytes>', c: '<masked 1 byte>' });
    void o.a;
    void o.b;
    void o.c;
    expect(reads).toEqual(['a']);
  });

  it('names array items, nested objects and keys that are not identifiers', () => {
    const { o, reads } = guarded({
      spec: { containers: [{ env: [{ name: 'A', value: 'plain' }, { name: 'B', value: '<masked 4 bytes>' }] }] },
      data: { 'tls.crt': '<masked 9 bytes>', _ok$1: '<masked 2 bytes>' },
      args: ['plain', '<masked 5 bytes>'],
    });
    void o.spec.containers[0].env[0].value;
    void o.spec.containers[0].env[1].value;
    void o.data['tls.crt'];
    void o.data._ok$1;
    void o.args[0];
    void o.args[1];
    expect(reads).toEqual(['spec.containers[0].env[1].value', 'data["tls.crt"]', 'data._ok$1', 'args[1]']);
  });

  it('names nested arrays and a key starting with a digit by index and quoted key', () => {
    const { o, reads } = guarded({ m: [['<masked 1 bytes>']], d: { '1a': '<masked 1 bytes>' }, 'top-level': '<masked 1 bytes>' });
    void o.m[0][0];
    void o.d['1a'];
    void o['top-level'];
    expect(reads).toEqual(['m[0][0]', 'd["1a"]', 'top-level']);
  });

  it('reports every read, keeps the field enumerable (spread and JSON copy it) and lets the reconciler overwrite it', () => {
    const { o, reads } = guarded({ data: { password: '<masked 7 bytes>' } });
    expect(Object.keys(o.data)).toEqual(['password']);
    expect(JSON.stringify(o.data)).toBe('{"password":"<masked 7 bytes>"}');
    expect({ ...o.data }).toEqual({ password: '<masked 7 bytes>' });
    expect(reads).toEqual(['data.password', 'data.password']);
    o.data.password = 'bmV3';
    expect(o.data.password).toBe('bmV3');
    expect(Object.getOwnPropertyDescriptor(o.data, 'password')).toEqual({ value: 'bmV3', enumerable: true, configurable: true, writable: true });
    o.data.password = 'again';
    expect(o.data.password).toBe('again');
    expect(reads).toHaveLength(2);
    delete o.data.password;
    expect(o.data).toEqual({});
  });

  it('returns the same object, mutated in place, and ignores null and numbers', () => {
    const obj = { metadata: { name: 'x', generation: 2, deletionTimestamp: null }, data: { p: '<masked 1 bytes>' } };
    const reads: string[] = [];
    expect(reportMaskedReads(obj as unknown as KubeObject, (p) => reads.push(p))).toBe(obj);
    expect(obj.metadata).toEqual({ name: 'x', generation: 2, deletionTimestamp: null });
    void obj.data.p;
    expect(reads).toEqual(['data.p']);
  });
});
