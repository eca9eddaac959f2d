import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maskSecretChanges, maskSecrets } from '../../src/render/secrets.js';

const secret = () => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'db',
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}', note: 'keep' },
  },
  data: { password: Buffer.from('hunter2').toString('base64'), key: Buffer.from('twelve bytes').toString('base64') },
  stringData: { token: 'abc' },
  type: 'Opaque',
});

describe('maskSecrets', () => {
  it('masks Secret data values keeping their decoded byte length', () => {
    const m = maskSecrets(secret());
    expect(m.data).toEqual({ password: '<masked 7 bytes>', key: '<masked 12 bytes>' });
    expect(m.stringData).toEqual({ token: '<masked 3 bytes>' });
    expect(m.type).toBe('Opaque');
  });

  it("masks a Secret's last-applied annotation, which holds its data", () => {
    const m = maskSecrets(secret());
    expect(m.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toMatch(/^<masked \d+ bytes>$/);
    expect(m.metadata.annotations.note).toBe('keep');
  });

  it('masks secrets nested in lists and watch events', () => {
    const m = maskSecrets({ type: 'ADDED', object: { kind: 'List', items: [secret()] } });
    expect(m.object.items[0].data.password).toBe('<masked 7 bytes>');
  });

  it('masks credential fields and keeps the Authorization scheme', () => {
    const m = maskSecrets({ headers: { Authorization: 'Bearer abcdef', accept: 'json' }, user: { token: 'xyz', password: 'pw' } });
    expect(m).toEqual({ headers: { Authorization: 'Bearer <masked 6 bytes>', accept: 'json' }, user: { token: '<masked 3 bytes>', password: '<masked 2 bytes>' } });
  });

  it('masks a Secret in a mixed list and leaves the pod beside it untouched (the same object, not a copy)', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{}}' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } };
    const [maskedSecret, maskedPod] = maskSecrets([secret(), pod] as const);
    expect(maskedSecret.data.password).toBe('<masked 7 bytes>');
    expect(maskedSecret.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toMatch(/^<masked \d+ bytes>$/);
    expect(maskedPod).toBe(pod);
    // Typed-list items carry no kind: the list's kind decides.
    const { kind: _k, ...bare } = secret();
    expect(maskSecrets([bare], { assumeKind: 'Secret' })[0].data.password).toBe('<masked 7 bytes>');
    expect(maskSecrets([pod], { assumeKind: 'Pod' })[0]).toBe(pod);
  });

  it('leaves ConfigMap data alone', () => {
    const cm = { kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    expect(maskSecrets(cm)).toBe(cm);
  });

  it('never mutates its input', () => {
    const s = secret();
    const before = JSON.stringify(s);
    maskSecrets({ list: [s], headers: { authorization: 'Bearer x' } });
    expect(JSON.stringify(s)).toBe(before);
  });

  it('returns the input unchanged with reveal', () => {
    const s = secret();
    expect(maskSecrets(s, { reveal: true })).toBe(s);
  });
});

describe('maskSecretChanges', () => {
  const secret = { kind: 'Secret', metadata: { name: 'db' }, data: { password: 'c3dvcmRmaXNo' } };

  it('keeps a changed Secret value listed but shows only sizes and a keyed hash per value', () => {
    const out = maskSecretChanges(secret, [{ path: 'data.password', old: 'aHVudGVyMg==', new: 'c3dvcmRmaXNo' }]);
    expect(out).toEqual([{ path: 'data.password', old: expect.stringMatching(/^<masked 7 bytes #[0-9a-f]{8}>$/), new: expect.stringMatching(/^<masked 9 bytes #[0-9a-f]{8}>$/) }]);
  });

  it('a masked diff says whether the value changed: equal values hash alike, different values of one size do not', () => {
    const [same] = maskSecretChanges(secret, [{ path: 'data.password', old: 'aHVudGVyMg==', new: 'aHVudGVyMg==' }]);
    expect(same.old).toBe(same.new);
    const [changed] = maskSecretChanges(secret, [{ path: 'data.password', old: 'aHVudGVyMg==', new: 'aHVudGVyMw==' }]);
    expect(changed.old).toMatch(/^<masked 7 bytes #/);
    expect(changed.new).toMatch(/^<masked 7 bytes #/);
    expect(changed.old).not.toBe(changed.new);
    // The hash is keyed: it is not a plain digest of the value anyone could compute.
    expect(String(changed.old)).not.toContain(createHash('sha256').update('hunter2').digest('hex').slice(0, 8));
    const [token] = maskSecretChanges({ kind: 'ConfigMap' }, [{ path: 'spec.token', old: 'abc', new: 'abd' }]);
    expect(token.old).not.toBe(token.new);
  });

  it('masks the last-applied annotation of a Secret and credential fields of any object', () => {
    const out = maskSecretChanges(secret, [
      { path: 'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]', old: '{"data":1}', new: '{"data":2}' },
      { path: 'metadata.labels.app', old: 'a', new: 'b' },
    ]);
    expect(out[0]).toMatchObject({ old: expect.stringMatching(/^<masked 10 bytes #/), new: expect.stringMatching(/^<masked 10 bytes #/) });
    expect(out[1]).toEqual({ path: 'metadata.labels.app', old: 'a', new: 'b' });
    const cm = maskSecretChanges({ kind: 'ConfigMap' }, [{ path: 'spec.token', old: 'abc', new: 'abcd' }]);
    expect(cm).toEqual([{ path: 'spec.token', old: expect.stringMatching(/^<masked 3 bytes #[0-9a-f]{8}>$/), new: expect.stringMatching(/^<masked 4 bytes #[0-9a-f]{8}>$/) }]);
  });

  it('reveals everything with --show-secrets', () => {
    const changes = [{ path: 'data.password', old: 'aHVudGVyMg==', new: 'c3dvcmRmaXNo' }];
    expect(maskSecretChanges(secret, changes, { reveal: true })).toBe(changes);
  });
});
