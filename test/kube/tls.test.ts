import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/informer/errors.js';
import { loadConnection } from '../../src/kube/http/connection.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-tls-');
let server: Server;
let url: string;
let seenClientCert = false;

beforeAll(async () => {
  // A self-signed server certificate for 127.0.0.1, and a client certificate signed by nobody in particular.
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'server.key'), '-out', join(dir, 'server.crt')], { stdio: 'ignore' });
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=jane', '-keyout', join(dir, 'client.key'), '-out', join(dir, 'client.crt')], { stdio: 'ignore' });
  server = createServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    seenClientCert = Boolean((req.socket as import('node:tls').TLSSocket).getPeerCertificate()?.subject);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"kind":"APIVersions","versions":["v1"]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function kubeconfig(name: string, cluster: string, user = '{}'): string {
  const file = join(dir, name);
  writeFileSync(file, `apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters: [{name: t, cluster: ${cluster}}]\nusers: [{name: u, user: ${user}}]\ncontexts: [{name: t, context: {cluster: t, user: u}}]\n`);
  return file;
}

describe('TLS from the kubeconfig', () => {
  it('refuses an unknown certificate authority', async () => {
    const conn = await loadConnection({ kubeconfig: kubeconfig('plain.yaml', `{server: "${url}"}`) });
    const err = await conn.request({ path: '/api' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toMatch(/^tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    await conn.close();
  });

  it('trusts certificate-authority (a relative path) and presents client-certificate-data / client-key-data', async () => {
    const certData = readFileSync(join(dir, 'client.crt')).toString('base64');
    const keyData = readFileSync(join(dir, 'client.key')).toString('base64');
    const conn = await loadConnection({ kubeconfig: kubeconfig('ca.yaml', `{server: "${url}", certificate-authority: server.crt}`, `{client-certificate-data: ${certData}, client-key-data: ${keyData}}`) });
    const res = await conn.request({ path: '/api' });
    expect(await res.body.json()).toEqual({ kind: 'APIVersions', versions: ['v1'] });
    expect(seenClientCert).toBe(true);
    await conn.close();
  });

  it('skips verification only when insecure-skip-tls-verify says so', async () => {
    const conn = await loadConnection({ kubeconfig: kubeconfig('insecure.yaml', `{server: "${url}", insecure-skip-tls-verify: true}`) });
    expect((await conn.request({ path: '/api' })).status).toBe(200);
    await conn.close();
  });
});

/** The body of a pushed answer (Connection.requestPushed, the endpoint's forwarding), read whole. */
async function pushedBody(conn: Awaited<ReturnType<typeof loadConnection>>, path: string): Promise<{ status: number; text: string }> {
  const answer = await conn.requestPushed!({ path });
  if (!answer) throw new Error('no pushed answer');
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => answer.pipe({ data: (c) => { chunks.push(c); return true; }, end: (err) => (err ? reject(err) : resolve()) }));
  return { status: answer.status, text: Buffer.concat(chunks).toString('utf8') };
}

describe('TLS from the kubeconfig, for the socket client of forwarded reads', () => {
  it('refuses an unknown certificate authority', async () => {
    const conn = await loadConnection({ kubeconfig: kubeconfig('plain.yaml', `{server: "${url}"}`) });
    const err = await pushedBody(conn, '/api').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toMatch(/^tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    await conn.close();
  });

  it('trusts certificate-authority and presents the client certificate', async () => {
    seenClientCert = false;
    const certData = readFileSync(join(dir, 'client.crt')).toString('base64');
    const keyData = readFileSync(join(dir, 'client.key')).toString('base64');
    const conn = await loadConnection({ kubeconfig: kubeconfig('ca.yaml', `{server: "${url}", certificate-authority: server.crt}`, `{client-certificate-data: ${certData}, client-key-data: ${keyData}}`) });
    expect(await pushedBody(conn, '/api')).toEqual({ status: 200, text: '{"kind":"APIVersions","versions":["v1"]}' });
    expect(seenClientCert).toBe(true);
    await conn.close();
  });

  it('skips verification only when insecure-skip-tls-verify says so', async () => {
    const conn = await loadConnection({ kubeconfig: kubeconfig('insecure.yaml', `{server: "${url}", insecure-skip-tls-verify: true}`) });
    expect((await pushedBody(conn, '/api')).status).toBe(200);
    await conn.close();
  });
});
