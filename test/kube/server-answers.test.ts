// What a reached server may answer that is not a plain Kubernetes success, and what the user then reads:
// credentials the server echoes back masked, a password in the server URL never shown, an HTML page named
// for what it is, a malformed list body reported in one line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/error-message.js';
import { StatusError } from '../../src/informer/errors.js';
import { connectionFromUrl, loadConnection } from '../../src/kube/http/connection.js';
import { DiscoveryClient } from '../../src/kube/discovery/discovery-client.js';
import { HttpListerWatcher } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { UnexpectedAnswerError } from '../../src/kube/http/unexpected-answer.js';
import { json, startStub, type StubServer } from './stub-server.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-answers-');
const TOKEN = 'tok-9f8e7d6c5b4a';
let stub: StubServer;

const html = (code: number) => (_req: unknown, res: import('node:http').ServerResponse) => {
  res.writeHead(code, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end('<html><body><h1>Sign in</h1></body></html>');
};
const list = (items: unknown) => (_req: unknown, res: import('node:http').ServerResponse) => json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items });

beforeAll(async () => {
  stub = await startStub({
    '/echo-json': (req, res) => json(res, 401, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `invalid bearer token: ${req.headers.authorization}`, reason: 'Unauthorized', code: 401 }),
    '/echo-text': (req, res) => {
      res.writeHead(403, { 'Content-Type': 'text/plain' });
      res.end(`token ${TOKEN} is not allowed (${req.headers.authorization})`);
    },
    '/html-200': html(200),
    '/html-502': html(502),
    '/api/v1/namespaces/a/pods': list(null),
    '/api/v1/namespaces/b/pods': list('pods'),
    '/api/v1/namespaces/c/pods': list([{ metadata: { name: 'x' } }, 7]),
    '/api/v1/namespaces/d/pods': (_req, res) => json(res, 200, [1, 2]),
    '/api/v1/namespaces/e/pods': html(200),
    '/api/v1/namespaces/f/pods': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"PodList","items":[');
    },
    '/api/v1/namespaces/default/pods': (req, res) => json(res, 403, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `forbidden for ${req.headers.authorization}`, reason: 'Forbidden', code: 403 }),
  });
});
afterAll(() => stub.close());

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('credentials a server echoes back', () => {
  it('are masked in the Status message and in the line the user reads', async () => {
    const conn = connectionFromUrl(stub.url, { token: TOKEN });
    try {
      const a = await failure(conn.request({ path: '/echo-json' }));
      expect(a).toBeInstanceOf(StatusError);
      expect((a as Error).message).toBe('invalid bearer token: Bearer ***');
      const b = await failure(conn.request({ path: '/echo-text' }));
      const line = describeError(b).message;
      expect(line).toBe('Error from server (Forbidden): token *** is not allowed (Bearer ***)');
      expect(JSON.stringify(b)).not.toContain(TOKEN);
    } finally {
      await conn.close();
    }
  });
});

describe('a password in the server URL', () => {
  const withUserinfo = () => stub.url.replace('http://', 'http://alice:pa%40ss-w0rd@');

  it('is sent as basic auth (as Go and kubectl do) but never shown: server, errors, cache folder', async () => {
    const kubeconfig = join(dir, 'userinfo.yaml');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {server: "${withUserinfo()}"}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n`);
    const conn = await loadConnection({ kubeconfig });
    try {
      expect(conn.server).toBe(stub.url.replace('http://', 'http://alice:***@'));
      const err = await failure(conn.request({ path: '/api/v1/namespaces/default/pods' }));
      expect(stub.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('alice:pa@ss-w0rd').toString('base64')}`);
      expect(describeError(err).message).toBe('Error from server (Forbidden): forbidden for Basic ***');

      // kubectl's folder name keeps the password (shared with it); the name printed does not.
      const client = new DiscoveryClient(conn, { cacheDir: join(dir, 'cache') });
      const port = new URL(stub.url).port;
      expect(client.cache.dir).toBe(join(dir, 'cache', 'discovery', `alice_pa_40ss_w0rd_127.0.0.1_${port}`));
      expect(client.cache.shownDir).toBe(join(dir, 'cache', 'discovery', `alice_***_127.0.0.1_${port}`));
      // A warning about a file in that folder names the folder as shown.
      mkdirSync(client.cache.dir, { recursive: true });
      writeFileSync(join(client.cache.dir, 'servergroups.json'), '{not json');
      const warnings: string[] = [];
      await failure(new DiscoveryClient(conn, { cacheDir: join(dir, 'cache'), warn: (m) => warnings.push(m) }).discover());
      expect(warnings[0]).toContain(`ignoring corrupt discovery cache file ${join(client.cache.shownDir, 'servergroups.json')}`);
      expect(warnings.join('\n')).not.toContain('pa_40ss');
    } finally {
      await conn.close();
    }
  });

  it('is masked in the one line for an unreachable server and in a timeout', async () => {
    const conn = connectionFromUrl('http://bob:hunter22@127.0.0.1:1', { requestTimeoutMs: 2000 });
    try {
      expect(conn.server).toBe('http://bob:***@127.0.0.1:1');
      const err = await failure(conn.request({ path: '/api' }));
      expect(describeError(err).message).not.toContain('hunter22');
      expect(describeError(new Error('Get "https://bob:hunter22@k8s.test/api": EOF')).message).toContain('https://bob:***@k8s.test/api');
    } finally {
      await conn.close();
    }
  });
});

describe('an HTML answer from a reached server', () => {
  it('is named for what it is, for a 200 and a 502, not as "Unable to connect"', async () => {
    const conn = connectionFromUrl(stub.url);
    try {
      for (const code of [200, 502]) {
        const err = await failure(conn.request({ path: `/html-${code}` }));
        expect(err).toBeInstanceOf(UnexpectedAnswerError);
        expect(describeError(err).message).toBe(`the server at ${stub.url} answered ${code} with text/html, not a Kubernetes API response (is this the API server's address?)`);
      }
    } finally {
      await conn.close();
    }
  });

  it('stops discovery with that line too', async () => {
    const html200 = await startStub({ '/api': html(200), '/apis': html(200) });
    const conn = connectionFromUrl(html200.url);
    try {
      const err = await failure(new DiscoveryClient(conn, { cacheDir: join(dir, 'cache-html') }).discover());
      expect(describeError(err).message).toBe(`the server at ${html200.url} answered 200 with text/html, not a Kubernetes API response (is this the API server's address?)`);
    } finally {
      await conn.close();
      await html200.close();
    }
  });
});

describe('a malformed list body', () => {
  const listIn = async (namespace: string) => {
    const conn = connectionFromUrl(stub.url);
    try {
      return await new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true, namespace }).list({});
    } finally {
      await conn.close();
    }
  };

  it('"items": null is an empty list, as Go decodes it (kubectl prints "No resources found")', async () => {
    expect((await listIn('a')).items).toEqual([]);
  });

  it('items that are not an array of objects, a body that is not an object, cut JSON: one line each, no kwatch bug', async () => {
    const at = (ns: string) => `the server at ${stub.url} sent a list for /api/v1/namespaces/${ns}/pods`;
    const lines: string[] = [];
    for (const ns of ['b', 'c', 'd', 'f']) {
      const report = describeError(await failure(listIn(ns)));
      expect(report.bug).toBe(false);
      lines.push(report.message);
    }
    expect(lines.slice(0, 3)).toEqual([
      `${at('b')} whose "items" is a string, not an array (not a Kubernetes API response)`,
      `${at('c')} whose item 1 is a number, not an object (not a Kubernetes API response)`,
      `${at('d')} that is an array, not an object (not a Kubernetes API response)`,
    ]);
    expect(lines[3]).toMatch(/^the server at .* sent an unreadable list body for \/api\/v1\/namespaces\/f\/pods: /);
    expect(describeError(await failure(listIn('e'))).message).toContain('answered 200 with text/html');
  });
});
