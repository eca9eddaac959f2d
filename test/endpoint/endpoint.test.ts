// The endpoint in-process over real HTTP against the embedded API server: the fork's conflicts and bound, stalled
// watches, TLS, a port in use, and what a client that does not speak the API gets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { ListenError, startEndpoint, type EndpointOptions } from '../../src/endpoint/endpoint-server.js';
import { Fork } from '../../src/endpoint/fork.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { until } from '../sim/sim-helpers.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
let sim: SimServer;
let upstream: Connection;
let dir: string;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0 });
  upstream = connectionFromUrl(sim.url);
  dir = mkdtempSync(join(tmpdir(), 'kwatch-endpoint-'));
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(extra: Partial<EndpointOptions> & { maxObjects?: number } = {}) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  const notices: string[] = [];
  tracer.subscribe((r) => records.push(r));
  const mode = extra.mode ?? 'overlay';
  const fork = mode === 'overlay' ? new Fork({ upstream, tracer, maxObjects: extra.maxObjects ?? 10_000, notice: (l) => notices.push(l) }) : undefined;
  const endpoint = await startEndpoint({ upstream, mode, fork, tracer, loopThreshold: 5, stallAfterMs: 300_000, ...extra });
  const call = (path: string, init: RequestInit = {}) => fetch(`${endpoint.url}${path}`, { ...init, headers: { 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) } });
  return { endpoint, records, notices, call, fork };
}

describe('the fork (overlay)', () => {
  it('keeps the controller\'s version of an object the target changes afterwards, and reports the conflict', async () => {
    sim.api.create(CM, { metadata: { name: 'shared', namespace: 'default' }, data: { v: 'target-1' } });
    const { endpoint, records, call, fork } = await start();
    try {
      const got = await (await call('/api/v1/namespaces/default/configmaps/shared')).json() as { data: { v: string } };
      expect(got.data.v).toBe('target-1');
      const patched = await call('/api/v1/namespaces/default/configmaps/shared', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { v: 'controller' } }) });
      expect(patched.status).toBe(200);
      const cur = sim.api.get(CM, 'default', 'shared')!;
      sim.api.update(CM, { ...cur, data: { v: 'target-2' } });
      await until(() => records.some((r) => r.op === 'conflict'), 5000);
      expect(records.find((r) => r.op === 'conflict')).toMatchObject({ stage: 'endpoint', key: 'default/shared', resource: 'configmaps', upstream: 'updated', local: 'updated', kept: 'local' });
      const now = await (await call('/api/v1/namespaces/default/configmaps/shared')).json() as { data: { v: string } };
      expect(now.data.v).toBe('controller');
      expect(fork!.divergences()).toEqual([{ resource: 'configmaps', key: 'default/shared', change: 'updated', conflicts: 1 }]);
    } finally {
      await endpoint.close();
    }
  });

  it('stops mirroring a kind past --max-objects with one line and a 507, never growing without bound', async () => {
    for (let i = 0; i < 5; i++) sim.api.create(CM, { metadata: { name: `many-${i}`, namespace: 'default' }, data: {} });
    const { endpoint, notices, call } = await start({ maxObjects: 8 });
    try {
      const r = await call('/api/v1/configmaps');
      expect(r.status).toBe(507);
      expect(((await r.json()) as { message: string }).message).toMatch(/past --max-objects 8; mirroring configmaps stopped/);
      expect(notices).toEqual([expect.stringMatching(/^kwatch: kwatch fork: the fork holds \d+ objects, past --max-objects 8/)]);
    } finally {
      await endpoint.close();
    }
  });
});

describe('watches', () => {
  it('a watch that receives nothing for --stall-after gets a stall record', async () => {
    const { endpoint, records, call } = await start({ mode: 'intercept', stallAfterMs: 300 });
    try {
      const ac = new AbortController();
      const res = await call('/api/v1/namespaces/kube-public/configmaps?watch=true&resourceVersion=0', { signal: ac.signal });
      expect(res.status).toBe(200);
      await until(() => records.some((r) => r.op === 'stall'), 5000);
      expect(records.find((r) => r.op === 'stall')).toMatchObject({ resource: 'configmaps', client: expect.any(String), idleMs: expect.any(Number) });
      ac.abort();
    } finally {
      await endpoint.close();
    }
  });
});

describe('the wire', () => {
  it('--tls serves HTTPS with the run\'s CA', async () => {
    const { endpoint } = await start({ mode: 'intercept', tls: true });
    try {
      expect(endpoint.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/kwatch-/);
      expect(endpoint.caPem).toMatch(/BEGIN CERTIFICATE/);
      const { Agent, request } = await import('undici');
      const dispatcher = new Agent({ connect: { ca: endpoint.caPem } });
      const r = await request(`${endpoint.url}/api/v1/namespaces`, { dispatcher });
      expect(r.statusCode).toBe(200);
      await r.body.json();
      await dispatcher.close();
    } finally {
      await endpoint.close();
    }
  });

  it('a port in use is one clear error', async () => {
    const { endpoint } = await start({ mode: 'intercept' });
    try {
      const port = Number(new URL(endpoint.url).port);
      await expect(start({ mode: 'intercept', port })).rejects.toThrow(ListenError);
      await expect(start({ mode: 'intercept', port })).rejects.toThrow(/127\.0\.0\.1:\d+ is in use: choose another --listen address/);
    } finally {
      await endpoint.close();
    }
  });

  it('a client asking for a media type no API server speaks gets 406; a body no API server decodes gets 415', async () => {
    const { endpoint, call } = await start({ mode: 'intercept' });
    try {
      const html = await call('/api/v1/namespaces/default/configmaps', { headers: { Accept: 'text/html' } });
      expect(html.status).toBe(406);
      expect(((await html.json()) as { reason: string }).reason).toBe('NotAcceptable');
      expect((await call('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'name: x' })).status).toBe(415);
      expect((await call('/api/v1/namespaces/default/configmaps', { headers: { Accept: 'application/vnd.kubernetes.protobuf, application/json' } })).status).toBe(200);
    } finally {
      await endpoint.close();
    }
  });
});

describe('a client that sends no Content-Type (as Patroni\'s Kubernetes DCS does)', () => {
  it('has its JSON create accepted in every write mode, as kube-apiserver takes an empty media type for JSON', async () => {
    for (const mode of ['intercept', 'overlay', 'server-dry-run', 'apply'] as const) {
      const { endpoint } = await start({ mode });
      try {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `untyped-${mode}`, namespace: 'default' }, data: { leader: 'pg-0' } });
        const r = await bareRequest(`${endpoint.url}/api/v1/namespaces/default/configmaps`, 'POST', body);
        expect({ mode, status: r.status }).toEqual({ mode, status: 201 });
        expect((JSON.parse(r.body) as { metadata: { name: string } }).metadata.name).toBe(`untyped-${mode}`);
        // A PATCH still names its patch type, as kube-apiserver requires.
        expect((await bareRequest(`${endpoint.url}/api/v1/namespaces/default/configmaps/untyped-${mode}`, 'PATCH', '{"data":{"a":"b"}}')).status).toBe(415);
      } finally {
        await endpoint.close();
      }
    }
    expect(sim.api.get(CM, 'default', 'untyped-apply')?.data).toEqual({ leader: 'pg-0' });
  });
});

describe('the client\'s identity reaches the target', () => {
  it('a write without fieldManager is stored with the manager its User-Agent names, not kwatch (apply), and answered so (intercept)', async () => {
    const ua = 'patroni/4.0.4 (linux; python 3.11)';
    for (const mode of ['apply', 'intercept'] as const) {
      const { endpoint } = await start({ mode });
      try {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `managed-${mode}`, namespace: 'default' }, data: { leader: 'pg-0' } });
        const r = await bareRequest(`${endpoint.url}/api/v1/namespaces/default/configmaps`, 'POST', body, { 'Content-Type': 'application/json', 'User-Agent': ua });
        expect(r.status).toBe(201);
        const answered = JSON.parse(r.body) as { metadata: { managedFields?: { manager: string }[] } };
        expect(answered.metadata.managedFields?.map((f) => f.manager)).toEqual(['patroni']);
      } finally {
        await endpoint.close();
      }
    }
    expect((sim.api.get(CM, 'default', 'managed-apply')?.metadata.managedFields as { manager: string }[] | undefined)?.map((f) => f.manager)).toEqual(['patroni']);
  });
});

/** A request with only the headers given (fetch adds a text/plain Content-Type to a string body; Patroni sends none). */
async function bareRequest(url: string, method: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('deletes in the fork', () => {
  it('an object with finalizers stays, with its deletionTimestamp, until the controller removes them', async () => {
    const { endpoint, call } = await start();
    try {
      const created = await call('/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'held', finalizers: ['example.com/cleanup'] }, data: {} }) });
      expect(created.status).toBe(201);
      expect((await call('/api/v1/namespaces/default/configmaps/held', { method: 'DELETE' })).status).toBe(200);
      const held = (await (await call('/api/v1/namespaces/default/configmaps/held')).json()) as { metadata: { deletionTimestamp?: string } };
      expect(held.metadata.deletionTimestamp).toEqual(expect.any(String));
      const released = await call('/api/v1/namespaces/default/configmaps/held', { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { finalizers: null } }) });
      expect(released.status).toBe(200);
      expect((await call('/api/v1/namespaces/default/configmaps/held')).status).toBe(404);
    } finally {
      await endpoint.close();
    }
  });
});

describe('the fork with namespace-scoped credentials', () => {
  it('mirrors the request\'s namespace alone when the target refuses a list across namespaces', async () => {
    const scoped = await startSimServer({ port: 0, churn: 0, tls: true, users: true });
    const kubeconfig = join(dir, 'scoped.kubeconfig');
    await scoped.writeKubeconfig(kubeconfig);
    const { loadConnection } = await import('../../src/kube/http/connection.js');
    const dev = await loadConnection({ kubeconfig, context: 'kwatch-sim-dev' });
    const tracer = new Tracer();
    const fork = new Fork({ upstream: dev, tracer, maxObjects: 1000, notice: () => {} });
    const endpoint = await startEndpoint({ upstream: dev, mode: 'overlay', fork, tracer, loopThreshold: 5, stallAfterMs: 300_000 });
    const call = (path: string, init: RequestInit = {}) => fetch(`${endpoint.url}${path}`, { ...init, headers: { 'Content-Type': 'application/json' } });
    try {
      scoped.api.create(CM, { metadata: { name: 'in-dev', namespace: 'dev' }, data: {} });
      const listed = (await (await call('/api/v1/namespaces/dev/configmaps')).json()) as { items: { metadata: { name: string } }[] };
      expect(listed.items.map((i) => i.metadata.name)).toContain('in-dev');
      expect((await call('/api/v1/namespaces/dev/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'local' }, data: {} }) })).status).toBe(201);
      expect(fork.divergences()).toEqual([expect.objectContaining({ key: 'dev/local', change: 'created' })]);
    } finally {
      await endpoint.close();
      await dev.close();
      await scoped.close();
    }
  });
});
