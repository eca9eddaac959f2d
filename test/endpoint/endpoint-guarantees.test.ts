// What the endpoint promises, each asserted so that the plausible bug breaking it fails a test: server-dry-run's
// valid writes are dry runs, subresource creates are writes, the fork keeps the controller's version over an upstream
// delete, the kubeconfig is private, and only this run's token opens the endpoint.
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEndpointKubeconfig } from '../../src/endpoint/endpoint-kubeconfig.js';
import { startEndpoint, type EndpointWriteMode } from '../../src/endpoint/endpoint-server.js';
import { Fork } from '../../src/endpoint/fork.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { PODS, pod, until } from '../sim/sim-helpers.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
let sim: SimServer;
let upstream: Connection;
let dir: string;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0, nodes: 1, pods: 0 });
  upstream = connectionFromUrl(sim.url);
  dir = mkdtempSync(join(tmpdir(), 'kwatch-endpoint-guarantees-'));
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(mode: EndpointWriteMode) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const fork = mode === 'overlay' ? new Fork({ upstream, tracer, maxObjects: 10_000, notice: () => {} }) : undefined;
  const endpoint = await startEndpoint({ upstream, mode, fork, tracer, loopThreshold: 5, stallAfterMs: 300_000 });
  const call = (method: string, path: string, body?: unknown, contentType = 'application/json') =>
    fetch(`${endpoint.url}${path}`, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': contentType } } : {}) });
  return { endpoint, records, call };
}

describe('--writes server-dry-run', () => {
  it('sends a valid create with dryRun=All: 201 from the target, nothing stored', async () => {
    const { endpoint, records, call } = await start('server-dry-run');
    try {
      const r = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sdr-valid' }, data: { a: 'b' } });
      expect(r.status).toBe(201);
      expect(records.find((x) => x.op === 'write')).toMatchObject({ verb: 'create', mode: 'server-dry-run', code: 201, key: 'default/sdr-valid', answer: 'the object the server would store' });
      expect(records.find((x) => x.op === 'http' && x.method === 'POST')).toMatchObject({ query: 'dryRun=All', status: 201 });
      expect(sim.api.get(CM, 'default', 'sdr-valid')).toBeUndefined();
    } finally {
      await endpoint.close();
    }
  });
});

describe('subresource creates', () => {
  it('pods/NAME/eviction and pods/NAME/binding are writes: intercepted (a dry run), traced with their subresource', async () => {
    sim.api.create(PODS, pod('evict-me'));
    sim.api.create(PODS, pod('bind-me'));
    const { endpoint, records, call } = await start('intercept');
    try {
      const evicted = await call('POST', '/api/v1/namespaces/default/pods/evict-me/eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evict-me', namespace: 'default' } });
      expect(evicted.status).toBe(201);
      const bound = await call('POST', '/api/v1/namespaces/default/pods/bind-me/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me' }, target: { kind: 'Node', name: 'node-x' } });
      expect(bound.status).toBe(201);
      const writes = records.filter((x) => x.op === 'write');
      expect(writes).toEqual([
        expect.objectContaining({ verb: 'create', resource: 'pods', subresource: 'eviction', key: 'default/evict-me', mode: 'intercept', code: 201 }),
        expect.objectContaining({ verb: 'create', resource: 'pods', subresource: 'binding', key: 'default/bind-me', mode: 'intercept', code: bound.status }),
      ]);
      for (const h of records.filter((x) => x.op === 'http' && x.method === 'POST')) expect(h.query).toBe('dryRun=All');
      expect(records.some((x) => x.op === 'question')).toBe(false);
      const kept = sim.api.get(PODS, 'default', 'evict-me') as { metadata: { deletionTimestamp?: string } } | undefined;
      expect(kept?.metadata.deletionTimestamp).toBeUndefined();
      expect((sim.api.get(PODS, 'default', 'bind-me') as unknown as { spec: { nodeName?: string } }).spec.nodeName).not.toBe('node-x');
    } finally {
      await endpoint.close();
    }
  });
});

describe('the fork (overlay) and an upstream delete', () => {
  it('keeps the controller\'s version of an object the target deletes, and reports the conflict', async () => {
    sim.api.create(CM, { metadata: { name: 'doomed', namespace: 'default' }, data: { v: 'target' } });
    const { endpoint, records, call } = await start('overlay');
    try {
      expect((await call('GET', '/api/v1/namespaces/default/configmaps/doomed')).status).toBe(200);
      const patched = await call('PATCH', '/api/v1/namespaces/default/configmaps/doomed', { data: { v: 'controller' } }, 'application/merge-patch+json');
      expect(patched.status).toBe(200);
      sim.api.delete(CM, 'default', 'doomed');
      await until(() => records.some((r) => r.op === 'conflict'), 5000);
      expect(records.filter((r) => r.op === 'conflict')).toEqual([expect.objectContaining({ stage: 'endpoint', key: 'default/doomed', resource: 'configmaps', upstream: 'deleted', local: 'updated', kept: 'local' })]);
      const now = await call('GET', '/api/v1/namespaces/default/configmaps/doomed');
      expect(now.status).toBe(200);
      expect(((await now.json()) as { data: { v: string } }).data.v).toBe('controller');
    } finally {
      await endpoint.close();
    }
  });
});

describe('the endpoint\'s kubeconfig', () => {
  const config = { server: 'http://127.0.0.1:1/kwatch-secret', token: 'secret-token', namespace: 'default' };

  it('is written mode 0600', async () => {
    const file = join(dir, 'fresh.kubeconfig');
    await writeEndpointKubeconfig(file, config);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('replaces a symlink planted at its path, never writing through it', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'the user\'s own file\n', { mode: 0o644 });
    const file = join(dir, 'planted.kubeconfig');
    symlinkSync(victim, file);
    await writeEndpointKubeconfig(file, config);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('token: secret-token');
    expect(readFileSync(victim, 'utf8')).toBe('the user\'s own file\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
  });
});

describe('the endpoint\'s token', () => {
  it('a bearer token of the right length but other characters gets 401; the run\'s own token gets through', async () => {
    const { endpoint } = await start('intercept');
    try {
      const bare = endpoint.url.replace(/\/kwatch-[^/]*$/, '');
      const wrong = [...endpoint.token].map((ch) => (ch === 'A' ? 'B' : 'A')).join('');
      expect(wrong).toHaveLength(endpoint.token.length);
      const refused = await fetch(`${bare}/api/v1/namespaces`, { headers: { Authorization: `Bearer ${wrong}` } });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ reason: 'Unauthorized', message: expect.stringMatching(/^kwatch endpoint: this request does not come from the kubeconfig kwatch wrote for this run/) });
      // One character off, at the end.
      const last = endpoint.token.slice(0, -1) + (endpoint.token.endsWith('x') ? 'y' : 'x');
      expect((await fetch(`${bare}/api/v1/namespaces`, { headers: { Authorization: `Bearer ${last}` } })).status).toBe(401);
      const allowed = await fetch(`${bare}/api/v1/namespaces`, { headers: { Authorization: `Bearer ${endpoint.token}` } });
      expect(allowed.status).toBe(200);
      await allowed.body?.cancel();
    } finally {
      await endpoint.close();
    }
  });

  it('the secret path prefix passes only as a whole path segment, and is taken off the path the target sees', async () => {
    const { endpoint } = await start('intercept');
    try {
      const bare = endpoint.url.replace(/\/kwatch-[^/]*$/, '');
      const prefix = endpoint.url.slice(bare.length);
      expect((await fetch(`${bare}${prefix}/api/v1/namespaces`)).status).toBe(200);
      // The prefix alone, or followed by a query, is the root path: the target's answer for / (not the guard's 401).
      const direct = async (path: string) => { const r = await fetch(`${sim.url}${path}`); return [r.status, await r.text()]; };
      const through = async (path: string) => { const r = await fetch(`${bare}${prefix}${path}`); return [r.status, await r.text()]; };
      expect(await through('')).toEqual(await direct('/'));
      expect(await through('?limit=1')).toEqual(await direct('/?limit=1'));
      // The token with more after it is another path, not this run's.
      expect((await fetch(`${bare}${prefix}x/api/v1/namespaces`)).status).toBe(401);
      expect((await fetch(`${bare}${prefix.slice(0, -1)}/api/v1/namespaces`)).status).toBe(401);
    } finally {
      await endpoint.close();
    }
  });

  it('takes the token with any case of "Bearer" and trailing spaces; no header, or another scheme, gets 401', async () => {
    const { endpoint } = await start('intercept');
    try {
      const bare = endpoint.url.replace(/\/kwatch-[^/]*$/, '');
      const status = async (authorization?: string) => {
        const r = await fetch(`${bare}/api/v1/namespaces`, authorization === undefined ? {} : { headers: { Authorization: authorization } });
        await r.body?.cancel();
        return r.status;
      };
      expect(await status(`bearer ${endpoint.token}`)).toBe(200);
      expect(await status(`Bearer   ${endpoint.token}  `)).toBe(200);
      expect(await status()).toBe(401);
      expect(await status(`Basic ${endpoint.token}`)).toBe(401);
      expect(await status(`Bearer ${endpoint.token} extra`)).toBe(401);
      expect(await status(`XBearer ${endpoint.token}`)).toBe(401);
    } finally {
      await endpoint.close();
    }
  });

  it('refuses a Host naming the endpoint by a DNS name other than localhost (DNS rebinding), with the token', async () => {
    const { endpoint } = await start('intercept');
    try {
      const url = new URL(endpoint.url);
      const statusFor = (host: string) => new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}/api/v1/namespaces`, headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(await statusFor(`evil.example:${url.port}`)).toBe(403);
      const refused = await new Promise<{ reason: string; message: string }>((resolve, reject) => {
        const req = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}/api`, headers: { host: 'evil.example' } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve(JSON.parse(body) as { reason: string; message: string }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(refused).toMatchObject({ reason: 'Forbidden', message: 'Host "evil.example" is not this endpoint\'s address: name it by IP address or as localhost' });
      // An HTTP/1.0 request may carry no Host at all: refused too, naming none.
      const bare = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: url.hostname, port: Number(url.port) }, () => socket.end(`GET ${url.pathname}/api HTTP/1.0\r\n\r\n`));
        let text = '';
        socket.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text)).on('error', reject);
      });
      expect(bare).toMatch(/^HTTP\/1\.[01] 403 /);
      expect(bare).toContain('Host \\"\\" is not this endpoint');
      expect(await statusFor('localhost.evil.example')).toBe(403);
      expect(await statusFor(`localhost:${url.port}`)).toBe(200);
      expect(await statusFor(`127.0.0.1:${url.port}`)).toBe(200);
      expect(await statusFor(`[::1]:${url.port}`)).toBe(200);
    } finally {
      await endpoint.close();
    }
  });
});
