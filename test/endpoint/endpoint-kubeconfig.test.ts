// The kubeconfig a controller behind kwatch is given: read back as kubectl's loader reads it (kwatch's own
// resolveKubeconfig, which follows kubectl's merge rules), it must take the controller to the endpoint, with the run's
// token, in the target's namespace, verifying the endpoint's certificate when it has one. Mode 0600 and the planted
// symlink are endpoint-guarantees.test.ts's.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { ENDPOINT_KUBECONFIG_MARKER, endpointKubeconfigYaml, isEndpointKubeconfig, writeEndpointKubeconfig } from '../../src/endpoint/endpoint-kubeconfig.js';
import { resolveKubeconfig } from '../../src/kube/http/kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-endpoint-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('the endpoint\'s kubeconfig', () => {
  it('is exactly one cluster, one user and one context, marked as kwatch\'s', () => {
    const doc = parseYaml(endpointKubeconfigYaml({ server: 'http://127.0.0.1:4000/kwatch-abc', token: 'tok-123', namespace: 'demo' })) as unknown;
    expect(doc).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kwatch', cluster: { server: 'http://127.0.0.1:4000/kwatch-abc', 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'kwatch', user: { token: 'tok-123' } }],
      contexts: [{ name: 'kwatch', context: { cluster: 'kwatch', user: 'kwatch', namespace: 'demo' } }],
      'current-context': 'kwatch',
      preferences: { extensions: [{ name: ENDPOINT_KUBECONFIG_MARKER, extension: {} }] },
    });
  });

  it('takes a client to the endpoint with the run\'s token, in the target\'s namespace, TLS unverified on plain HTTP', async () => {
    const file = join(dir, 'plain.kubeconfig');
    await writeEndpointKubeconfig(file, { server: 'http://127.0.0.1:4000/kwatch-abc', token: 'tok-123', namespace: 'demo' });
    const k = await resolveKubeconfig({ kubeconfig: file });
    expect(k).toMatchObject({ server: 'http://127.0.0.1:4000/kwatch-abc', namespace: 'demo', contextName: 'kwatch', headers: { Authorization: 'Bearer tok-123' } });
    expect(k.tls.rejectUnauthorized).toBe(false);
    expect(k.tls.ca).toBeUndefined();
  });

  it('with the endpoint\'s CA, verifies its certificate against that CA (base64 in certificate-authority-data)', async () => {
    const file = join(dir, 'tls.kubeconfig');
    await writeEndpointKubeconfig(file, { server: 'https://127.0.0.1:4443', token: 'tok-456', namespace: 'default', caPem: CA });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`certificate-authority-data: ${Buffer.from(CA).toString('base64')}`);
    expect(text).not.toContain('insecure-skip-tls-verify');
    const k = await resolveKubeconfig({ kubeconfig: file });
    expect(k.tls.ca?.toString('utf8')).toBe(CA);
    expect(k.tls.rejectUnauthorized).not.toBe(false);
    expect(k).toMatchObject({ server: 'https://127.0.0.1:4443', namespace: 'default', headers: { Authorization: 'Bearer tok-456' } });
  });

  it('is told from a user\'s own kubeconfig by its marker, so that only kwatch\'s is ever replaced', () => {
    expect(isEndpointKubeconfig(endpointKubeconfigYaml({ server: 'http://127.0.0.1:1', token: 't', namespace: 'default' }))).toBe(true);
    const users = 'apiVersion: v1\nkind: Config\nclusters:\n- name: kwatch\n  cluster:\n    server: https://10.0.0.1\nusers:\n- name: kwatch\n  user:\n    token: mine\n';
    expect(isEndpointKubeconfig(users)).toBe(false);
    expect(isEndpointKubeconfig('# a note naming kwatch-endpoint\n')).toBe(false);
  });
});
