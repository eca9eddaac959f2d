import { writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, StatusError } from '../../src/informer/errors.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { KubeconfigError } from '../../src/kube/http/config-error.js';
import { connectionFromUrl, loadConnection, type Connection, type HttpRequest } from '../../src/kube/http/connection.js';
import { DiscoveryClient } from '../../src/kube/discovery/discovery-client.js';
import { json, startStub, type StubServer } from './stub-server.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-conn-');
let stub: StubServer;

function kubeconfig(file: string, body: string): string {
  const path = join(dir, file);
  writeFileSync(path, body);
  return path;
}

beforeAll(async () => {
  stub = await startStub({
    '/api/v1/namespaces/default/pods': (_req, res) => json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }),
    '/api/v1/namespaces/default/pods/missing': (_req, res) =>
      json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'pods' }, code: 404 }),
    '/apf': (_req, res) => {
      res.writeHead(429, { 'Content-Type': 'text/plain', 'Retry-After': '3' });
      res.end('Too many requests, please try again later.\n');
    },
    '/slow': () => undefined,
  });
});
afterAll(() => stub.close());

const cfg = (server: string, extra = '') => `apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c1
  cluster: {server: "${server}"}
users:
- name: u1
  user: {token: s3cr3t-token-value}
contexts:
- name: main
  context: {cluster: c1, user: u1, namespace: team-a}
- name: other
  context: {cluster: c1, user: u1}
${extra}`;

describe('loadConnection', () => {
  it('sends the kubeconfig bearer token and takes the namespace from the context', async () => {
    const conn = await loadConnection({ kubeconfig: kubeconfig('a.yaml', cfg(stub.url)) });
    try {
      expect(conn.namespace).toBe('team-a');
      expect(conn.contextName).toBe('main');
      const res = await conn.request({ path: '/api/v1/namespaces/default/pods', query: { limit: 5, labelSelector: 'a=b', continue: undefined } });
      expect(res.status).toBe(200);
      expect(((await res.body.json()) as { kind: string }).kind).toBe('PodList');
      const last = stub.requests.at(-1)!;
      expect(last.url).toBe('/api/v1/namespaces/default/pods?limit=5&labelSelector=a%3Db');
      expect(last.headers.authorization).toBe('Bearer s3cr3t-token-value');
    } finally {
      await conn.close();
    }
  });

  it('honours --context and -n, and defaults the namespace to "default"', async () => {
    const file = kubeconfig('b.yaml', cfg(stub.url));
    const other = await loadConnection({ kubeconfig: file, context: 'other' });
    expect(other.namespace).toBe('default');
    await other.close();
    const ns = await loadConnection({ kubeconfig: file, namespace: 'x' });
    expect(ns.namespace).toBe('x');
    await ns.close();
  });

  it('merges several KUBECONFIG files, the first file winning', async () => {
    const first = kubeconfig('m1.yaml', `apiVersion: v1\nkind: Config\ncurrent-context: second\n`);
    const second = kubeconfig('m2.yaml', cfg(stub.url, '- name: second\n  context: {cluster: c1, user: u1, namespace: from-second}\n'));
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = [join(dir, 'does-not-exist.yaml'), first, second].join(delimiter);
    try {
      const conn = await loadConnection({});
      expect(conn.contextName).toBe('second');
      expect(conn.namespace).toBe('from-second');
      await conn.close();
    } finally {
      process.env.KUBECONFIG = saved;
    }
  });

  it('says clearly when no configuration exists', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = join(dir, 'nothing-here.yaml');
    try {
      await expect(loadConnection({})).rejects.toThrow(/no configuration has been provided.*--kubeconfig.*--sim/);
    } finally {
      process.env.KUBECONFIG = saved;
    }
    await expect(loadConnection({ kubeconfig: join(dir, 'nope.yaml') })).rejects.toBeInstanceOf(KubeconfigError);
  });

  it('names the file and the problem of a malformed kubeconfig', async () => {
    const file = kubeconfig('bad.yaml', 'clusters:\n- name: x\n  cluster: {}\n');
    await expect(loadConnection({ kubeconfig: file })).rejects.toThrow(`error loading config file "${file}": clusters[0].cluster.server is missing`);
    const yamlBad = kubeconfig('bad2.yaml', 'clusters: [\n  : : :');
    await expect(loadConnection({ kubeconfig: yamlBad })).rejects.toThrow(new RegExp(`error loading config file "${yamlBad}"`));
  });

  it('reads a token file, and runs an exec credential plugin through client-node', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'file-token-abcdef\n');
    const plugin = join(dir, 'plugin.cjs');
    writeFileSync(plugin, `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 'exec-token-123456' } }))`);
    const file = kubeconfig(
      'auth.yaml',
      cfg(
        stub.url,
        `- name: by-file\n  context: {cluster: c1, user: file-user}\n- name: by-exec\n  context: {cluster: c1, user: exec-user}\n`,
      ).replace(
        'users:\n',
        `users:\n- name: file-user\n  user: {token-file: token}\n- name: exec-user\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "${process.execPath}", args: ["${plugin}"], interactiveMode: Never}\n`,
      ),
    );
    for (const [context, want] of [['by-file', 'Bearer file-token-abcdef'], ['by-exec', 'Bearer exec-token-123456']]) {
      const conn = await loadConnection({ kubeconfig: file, context });
      await (await conn.request({ path: '/api/v1/namespaces/default/pods' })).body.text();
      expect(stub.requests.at(-1)!.headers.authorization).toBe(want);
      await conn.close();
    }
  });

  it('rejects an unknown context', async () => {
    await expect(loadConnection({ kubeconfig: kubeconfig('c.yaml', cfg(stub.url)), context: 'x' })).rejects.toThrow(/^context "x" does not exist/);
  });
});

describe('Connection.request', () => {
  it('throws StatusError from a Status body', async () => {
    const conn = connectionFromUrl(stub.url);
    const err = await conn.request({ path: '/api/v1/namespaces/default/pods/missing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).reason).toBe('NotFound');
    expect((err as StatusError).message).toBe('pods "missing" not found');
    await conn.close();
  });

  it('builds a Status for a plain-text 429 with Retry-After', async () => {
    const conn = connectionFromUrl(stub.url);
    const err = (await conn.request({ path: '/apf' }).catch((e: unknown) => e)) as StatusError;
    expect(err).toBeInstanceOf(StatusError);
    expect(err.httpCode).toBe(429);
    expect(err.reason).toBe('TooManyRequests');
    expect(err.retryAfterSeconds).toBe(3);
    const notFound = (await conn.request({ path: '/nothing' }).catch((e: unknown) => e)) as StatusError;
    expect(notFound.message).toBe('the server could not find the requested resource');
    const allowed = await conn.request({ path: '/nothing', allowErrorStatus: true });
    expect(allowed.status).toBe(404);
    expect(await allowed.body.text()).toBe('404 page not found\n');
    await conn.close();
  });

  it('reports an unreachable server as ConnectionError in dial wording', async () => {
    const conn = connectionFromUrl('http://127.0.0.1:1');
    const err = (await conn.request({ path: '/api' }).catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.sysCode).toBe('ECONNREFUSED');
    expect(err.message).toBe('dial tcp 127.0.0.1:1: connect: connection refused');
    await conn.close();
  });

  it('times out by --request-timeout', async () => {
    const conn = connectionFromUrl(stub.url, { requestTimeoutMs: 100 });
    const err = (await conn.request({ path: '/slow' }).catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/context deadline exceeded/);
    await conn.close();
  });

  it('without --request-timeout, a request\'s fallback timeout bounds the wait on a server that never answers', async () => {
    const conn = connectionFromUrl(stub.url);
    const started = Date.now();
    const err = (await conn.request({ path: '/slow', fallbackTimeoutMs: 100 }).catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/context deadline exceeded \(Client\.Timeout exceeded after 100ms\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await conn.close();
  });

  it('--request-timeout wins over a request\'s fallback timeout', async () => {
    const conn = connectionFromUrl(stub.url, { requestTimeoutMs: 100 });
    const err = (await conn.request({ path: '/slow', fallbackTimeoutMs: 60_000 }).catch((e: unknown) => e)) as ConnectionError;
    expect(err.message).toMatch(/Client\.Timeout exceeded after 100ms/);
    await conn.close();
  });

  it('discovery requests carry client-go\'s 32 s timeout as their fallback', async () => {
    const seen: HttpRequest[] = [];
    const fake: Connection = {
      server: 'http://127.0.0.1:9',
      namespace: 'default',
      tracer: new Tracer(),
      request: async (req) => {
        seen.push(req);
        throw new ConnectionError('refused', 'ECONNREFUSED');
      },
      close: async () => undefined,
    };
    const cacheDir = tempDir('kwatch-disc-timeout-');
    await new DiscoveryClient(fake, { cacheDir }).discover().catch(() => undefined);
    expect(seen.length).toBeGreaterThan(0);
    for (const req of seen) expect(req.fallbackTimeoutMs).toBe(32_000);
  });

  it('emits http trace records with status, latency, bytes and the connection number, never the token', async () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const conn = connectionFromUrl(stub.url, { tracer, token: 'tok-123456' });
    for (let i = 0; i < 2; i++) await (await conn.request({ path: '/api/v1/namespaces/default/pods' })).body.text();
    await conn.close();
    expect(records.map((r) => r.op)).toEqual(['request', 'response', 'request', 'response']);
    const res = records[1];
    expect(res).toMatchObject({ stage: 'http', method: 'GET', url: '/api/v1/namespaces/default/pods', status: 200 });
    expect(res.bytes).toBeGreaterThan(10);
    expect(typeof res.ms).toBe('number');
    expect(res.conn).toBe(1);
    expect(records[3].conn).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(records)).not.toContain('tok-123456');
  });
});
