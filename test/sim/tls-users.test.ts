// `sim --tls --users`: HTTPS with a CA made for the run, an admin authenticated by client certificate, a user "dev"
// by bearer token and bound to namespace dev, kube-apiserver's 401 and 403 answers — judged over raw HTTPS and by
// real kubectl, which must accept the certificate without insecure-skip-tls-verify.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { issueCertificate } from '../../src/wire/certificates.js';
import { kubectlSim, pod, PODS } from './sim-helpers.js';

const k = kubectlSim({ tls: true, users: true }, 'kwatch-tls-users-');
const users = () => k.sim.credentials!.users!;

interface Answer { status: number; json: any }
function https(path: string, auth: { token?: string; cert?: string; key?: string; ca?: string } = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(k.sim.url + path, { method, ca: auth.ca ?? k.sim.credentials!.caPem, cert: auth.cert, key: auth.key, headers: auth.token ? { Authorization: `Bearer ${auth.token}` } : {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text.startsWith('{') ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
const admin = () => ({ cert: users().admin.certPem, key: users().admin.keyPem });
const dev = () => ({ token: users().dev.token });

describe('the TLS sim', () => {
  it('serves https with a certificate for 127.0.0.1 and localhost, signed by the CA in the kubeconfig', () => {
    expect(k.sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = new X509Certificate(k.sim.credentials!.caPem);
    const server = new X509Certificate(k.sim.credentials!.server.certPem);
    expect(ca.ca).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkHost('localhost')).toBe('localhost');
    const kubeconfig = readFileSync(k.kubeconfig, 'utf8');
    expect(kubeconfig).toContain(`certificate-authority-data: ${Buffer.from(k.sim.credentials!.caPem).toString('base64')}`);
    expect(kubeconfig).not.toContain('insecure-skip-tls-verify');
  });

  it('is refused by a client that does not trust the CA', async () => {
    const other = issueCertificate({ subject: { commonName: 'another-ca' }, usage: 'ca' });
    await expect(https('/api', { ...dev(), ca: other.certPem })).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  });
});

describe('authentication', () => {
  it('knows the admin by its client certificate and dev by its token', async () => {
    expect((await https('/api/v1/pods', admin())).status).toBe(200);
    expect((await https('/api/v1/namespaces/dev/pods', dev())).status).toBe(200);
  });

  it('answers 401 Unauthorized for a bad token and for no credentials at all', async () => {
    const expected = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
    for (const auth of [{ token: 'not-a-token' }, { token: `${users().dev.token}x` }, {}]) {
      const a = await https('/api/v1/namespaces/dev/pods', auth);
      expect(a.status).toBe(401);
      expect(a.json).toEqual(expected);
    }
  });

  it('does not trust a client certificate from another CA, whatever its subject says', async () => {
    const rogueCa = issueCertificate({ subject: { commonName: 'rogue' }, usage: 'ca' });
    const rogue = issueCertificate({ subject: { commonName: 'admin', organizations: ['system:masters'] }, usage: 'client', issuer: rogueCa });
    expect((await https('/api/v1/pods', { cert: rogue.certPem, key: rogue.keyPem })).status).toBe(401);
  });
});

describe('RBAC', () => {
  it('creates the dev namespace, and dev may read it and use every verb inside it', async () => {
    expect((await https('/api/v1/namespaces/dev', dev())).status).toBe(200);
    k.sim.api.create(PODS, pod('web', { namespace: 'dev' }));
    expect((await https('/api/v1/namespaces/dev/pods/web', dev())).json.metadata.name).toBe('web');
    expect((await https('/api/v1/namespaces/dev/pods?watch=1&timeoutSeconds=1', dev())).status).toBe(200);
  });

  it('lets dev read discovery, OpenAPI and the version', async () => {
    for (const path of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version', '/openapi/v3']) expect((await https(path, dev())).status, path).toBe(200);
  });

  it('lets dev only read discovery: any other method on a discovery path is kube\'s 403', async () => {
    const cases: [string, string][] = [['POST', '/api'], ['DELETE', '/version'], ['PUT', '/apis'], ['PATCH', '/apis/apps/v1'], ['DELETE', '/api/v1'], ['POST', '/openapi/v3'], ['POST', '/healthz']];
    for (const [method, path] of cases) {
      const a = await https(path, dev(), method);
      expect(a.status, `${method} ${path}`).toBe(403);
      expect(a.json, `${method} ${path}`).toMatchObject({ reason: 'Forbidden', code: 403, message: `forbidden: User "dev" cannot ${method.toLowerCase()} path "${path}"` });
    }
  });

  it('answers kube\'s 403 outside dev\'s namespace, at the cluster scope and in another namespace', async () => {
    const all = await https('/api/v1/pods', dev());
    expect(all.status).toBe(403);
    expect(all.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { kind: 'pods' },
      message: 'pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope' });
    expect((await https('/api/v1/pods?watch=1', dev())).json.message).toBe('pods is forbidden: User "dev" cannot watch resource "pods" in API group "" at the cluster scope');
    const other = await https('/apis/apps/v1/namespaces/default/deployments/web', dev());
    expect(other.json).toMatchObject({ reason: 'Forbidden', code: 403, details: { name: 'web', group: 'apps', kind: 'deployments' },
      message: 'deployments.apps "web" is forbidden: User "dev" cannot get resource "deployments" in API group "apps" in the namespace "default"' });
    expect((await https('/api/v1/nodes', dev())).json.message).toBe('nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope');
    expect((await https('/metrics', dev())).json).toMatchObject({ code: 403, message: 'forbidden: User "dev" cannot get path "/metrics"' });
  });

  it('lets the admin (system:masters) do everything', async () => {
    for (const path of ['/api/v1/nodes', '/api/v1/namespaces/default/pods', '/apis/apps/v1/deployments']) expect((await https(path, admin())).status, path).toBe(200);
  });
});

describe('kubectl against the TLS sim', () => {
  it('gets pods as the admin (client certificate) and as dev (token), verifying the server with the CA', async () => {
    const a = await k.kubectl('get', 'pods', '-A');
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/^dev\s+web\s/m);
    const d = await k.kubectl('--context', 'kwatch-sim-dev', 'get', 'pods');
    expect(d.stderr).toBe('');
    expect(d.stdout).toMatch(/^web\s/m);
  });

  it('prints kube\'s Forbidden message for dev with -A, and Unauthorized for a bad token', async () => {
    const d = await k.kubectl('--context', 'kwatch-sim-dev', 'get', 'pods', '-A');
    expect(d.code).not.toBe(0);
    expect(d.stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope');
    const bad = k.file('bad-token', readFileSync(k.kubeconfig, 'utf8').replace(users().dev.token, 'wrong-token'));
    const u = await k.kubectl('--kubeconfig', bad, '--context', 'kwatch-sim-dev', 'get', 'pods');
    expect(u.code).not.toBe(0);
    expect(u.stderr.trim()).toBe('error: You must be logged in to the server (Unauthorized)');
  });
});
