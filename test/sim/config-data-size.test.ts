// kube-apiserver refuses a ConfigMap or Secret whose data passes 1 MiB (core/validation ValidateConfigMap,
// ValidateSecret); the sim once stored a 2 MB ConfigMap, hiding the bug from users whose real cluster refuses it.
// Every write path is checked: create, update, merge patch, server-side apply, and kubectl.
import { describe, expect, it } from 'vitest';
import { http, kubectlSim } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-config-size-');
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(fx.sim.url, path, { method, body, headers });
const CM = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';
const MIB = 1024 * 1024;
const TOO_LONG = 'Too long: may not be more than 1048576 bytes';

const configMap = (name: string, data: Record<string, string>, binaryData?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data, ...(binaryData ? { binaryData } : {}) });

describe('ConfigMap and Secret data size', () => {
  it('refuses a ConfigMap of 1 MiB + 1 byte with kube\'s 422 and stores nothing', async () => {
    const r = await req('POST', CM, configMap('too-big', { blob: 'x'.repeat(MIB + 1) }));
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: `ConfigMap "too-big" is invalid: []: ${TOO_LONG}`,
      details: { name: 'too-big', kind: 'ConfigMap', causes: [{ reason: 'FieldValueTooLong', field: '[]', message: TOO_LONG }] },
    });
    expect((await req('GET', `${CM}/too-big`)).status).toBe(404);
  });

  it('stores a ConfigMap of exactly 1 MiB (data plus decoded binaryData; keys do not count), then refuses any write that grows it', async () => {
    const at = configMap('at-limit', { text: 'x'.repeat(MIB - 3) }, { bin: Buffer.from([1, 2, 3]).toString('base64') });
    expect((await req('POST', CM, at)).status).toBe(201);
    const refused = `ConfigMap "at-limit" is invalid: []: ${TOO_LONG}`;
    const put = await req('PUT', `${CM}/at-limit`, { ...at, data: { text: 'x'.repeat(MIB - 2) } });
    expect([put.status, put.json.message]).toEqual([422, refused]);
    const merge = await req('PATCH', `${CM}/at-limit`, { data: { more: 'y' } }, { 'Content-Type': 'application/merge-patch+json' });
    expect([merge.status, merge.json.message]).toEqual([422, refused]);
    const apply = await req('PATCH', `${CM}/at-limit?fieldManager=sizer&force=true`, { ...at, data: { text: 'x'.repeat(MIB - 3), more: 'y' } }, { 'Content-Type': 'application/apply-patch+yaml' });
    expect([apply.status, apply.json.message]).toEqual([422, refused]);
    const applyCreate = await req('PATCH', `${CM}/applied?fieldManager=sizer`, configMap('applied', { blob: 'x'.repeat(MIB + 1) }), { 'Content-Type': 'application/apply-patch+yaml' });
    expect([applyCreate.status, applyCreate.json.message]).toEqual([422, `ConfigMap "applied" is invalid: []: ${TOO_LONG}`]);
    const stored = await req('GET', `${CM}/at-limit`);
    expect(Object.keys(stored.json.data)).toEqual(['text']);
    expect(stored.json.data.text.length).toBe(MIB - 3);
  });

  it('refuses a Secret whose decoded data passes 1 MiB on data, and stores one of exactly 1 MiB given as stringData', async () => {
    const big = await req('POST', SECRETS, { metadata: { name: 'too-big' }, data: { blob: Buffer.alloc(MIB + 1, 7).toString('base64') } });
    expect(big.status).toBe(422);
    expect(big.json.message).toBe(`Secret "too-big" is invalid: data: ${TOO_LONG}`);
    expect(big.json.details.causes).toEqual([{ reason: 'FieldValueTooLong', field: 'data', message: TOO_LONG }]);
    expect((await req('POST', SECRETS, { metadata: { name: 'at-limit' }, stringData: { blob: 'x'.repeat(MIB) } })).status).toBe(201);
    const grown = await req('PATCH', `${SECRETS}/at-limit`, { stringData: { more: 'y' } }, { 'Content-Type': 'application/merge-patch+json' });
    expect([grown.status, grown.json.message]).toEqual([422, `Secret "at-limit" is invalid: data: ${TOO_LONG}`]);
  });

  it('kubectl create configmap --from-file of 1 MiB + 1 byte fails with kube\'s message; of 1 MiB it succeeds', async () => {
    const over = await fx.kubectl('create', 'configmap', 'kc-over', `--from-file=blob=${fx.file('over.txt', 'x'.repeat(MIB + 1))}`);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(`ConfigMap "kc-over" is invalid: []: ${TOO_LONG}`);
    const at = await fx.kubectl('create', 'configmap', 'kc-at', `--from-file=blob=${fx.file('at.txt', 'x'.repeat(MIB))}`);
    expect([at.code, at.stderr]).toEqual([0, '']);
  });
});
