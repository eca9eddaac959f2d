// Redirects are followed as Go's http.Client (kubectl) follows them: up to 10, credentials only to the same
// host (or a subdomain), 303 turning a write into a GET.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/error-message.js';
import { connectionFromUrl } from '../../src/kube/http/connection.js';
import { keepsCredentials } from '../../src/kube/http/redirects.js';
import { json, startStub, type StubServer } from './stub-server.js';

const TOKEN = 'redirect-token-123456';
let stub: StubServer;
/** Another host: 127.0.0.2 is loopback too, but not the same host name as 127.0.0.1. */
let other: Server;
let otherUrl: string;
const otherSeen: IncomingMessage['headers'][] = [];

const redirect = (code: number, to: () => string) => (_req: IncomingMessage, res: import('node:http').ServerResponse) => {
  res.writeHead(code, { Location: to() });
  res.end();
};
const ok = (_req: IncomingMessage, res: import('node:http').ServerResponse) => json(res, 200, { kind: 'APIVersions', versions: ['v1'] });

beforeAll(async () => {
  other = createServer((req, res) => {
    otherSeen.push(req.headers);
    json(res, 200, { kind: 'APIVersions', versions: ['v1'], seenAuthorization: req.headers.authorization ?? null });
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
  otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
  const routes: Record<string, ReturnType<typeof redirect>> = {
    '/start': redirect(302, () => '/hop'),
    '/hop': redirect(307, () => `${stub.url}/final`),
    '/final': (req, res) => json(res, 200, { kind: 'APIVersions', versions: ['v1'], seenAuthorization: req.headers.authorization ?? null }),
    '/away': redirect(301, () => `${otherUrl}/api`),
    '/write': redirect(303, () => '/final-write'),
    '/final-write': (req, res) => json(res, 200, { method: req.method }),
  };
  // /loop/N redirects to /loop/N-1 … /loop/0 answers.
  for (let n = 0; n <= 11; n++) routes[`/loop/${n}`] = n === 0 ? ok : redirect(302, () => `/loop/${n - 1}`);
  stub = await startStub(routes);
});
afterAll(async () => {
  await stub.close();
  other.closeAllConnections();
  await new Promise<void>((r) => other.close(() => r()));
});

describe('redirects', () => {
  it('are followed on the same host, with the credentials', async () => {
    const conn = connectionFromUrl(stub.url, { token: TOKEN });
    try {
      const res = await conn.request({ path: '/start' });
      expect(res.status).toBe(200);
      expect(await res.body.json()).toMatchObject({ seenAuthorization: `Bearer ${TOKEN}` });
    } finally {
      await conn.close();
    }
  });

  it('to another host are followed without Authorization', async () => {
    const conn = connectionFromUrl(stub.url, { token: TOKEN });
    try {
      const res = await conn.request({ path: '/away' });
      expect(res.status).toBe(200);
      expect(await res.body.json()).toMatchObject({ seenAuthorization: null });
      expect(otherSeen.at(-1)!.authorization).toBeUndefined();
    } finally {
      await conn.close();
    }
  });

  it('stop after 10, as Go and kubectl do, in one line', async () => {
    const conn = connectionFromUrl(stub.url);
    try {
      expect((await conn.request({ path: '/loop/10' })).status).toBe(200);
      const err = await conn.request({ path: '/loop/11' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(describeError(err).message).toBe(`Unable to connect to the server: Get "${stub.url}/loop/0": stopped after 10 redirects (check the server address in your kubeconfig, or try --sim)`);
    } finally {
      await conn.close();
    }
  });

  it('303 turns a write into a GET without its body', async () => {
    const conn = connectionFromUrl(stub.url);
    try {
      const res = await conn.request({ path: '/write', method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } });
      expect(await res.body.json()).toEqual({ method: 'GET' });
    } finally {
      await conn.close();
    }
  });

  it('keep credentials for the same host or a subdomain only (Go\'s rule)', () => {
    const from = new URL('https://k8s.example.com:6443/api');
    expect(keepsCredentials(from, new URL('https://k8s.example.com:8443/x'))).toBe(true);
    expect(keepsCredentials(from, new URL('https://a.k8s.example.com/x'))).toBe(true);
    expect(keepsCredentials(from, new URL('https://example.com/x'))).toBe(false);
    expect(keepsCredentials(from, new URL('https://evilk8s.example.com/x'))).toBe(false);
  });
});
