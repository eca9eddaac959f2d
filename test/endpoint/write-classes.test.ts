// What the endpoint counts as a write, a question, or a reach into a running workload, in-process against the sim:
// a custom kind named like a review is a write; only the built-in reviews and TokenRequests are questions (traced as
// `question` records); proxy, exec, attach and portforward are refused where nothing may reach the cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type EndpointWriteMode } from '../../src/endpoint/endpoint-server.js';
import { Fork } from '../../src/endpoint/fork.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { PODS, pod } from '../sim/sim-helpers.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const CODEREVIEWS = { group: 'example.com', version: 'v1', resource: 'codereviews' };

let sim: SimServer;
let upstream: Connection;
beforeAll(async () => {
  sim = await startSimServer({ port: 0, churn: 0 });
  upstream = connectionFromUrl(sim.url);
  sim.api.create(CRDS, {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'codereviews.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'codereviews', singular: 'codereview', kind: 'CodeReview' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  sim.api.create(PODS, pod('web'));
});
afterAll(async () => {
  await upstream?.close();
  await sim?.close();
});

async function start(mode: EndpointWriteMode) {
  const tracer = new Tracer();
  const records: TraceRecord[] = [];
  tracer.subscribe((r) => records.push(r));
  const fork = mode === 'overlay' ? new Fork({ upstream, tracer, maxObjects: 10_000, notice: () => {} }) : undefined;
  const endpoint = await startEndpoint({ upstream, mode, fork, tracer, loopThreshold: 5, stallAfterMs: 300_000 });
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${endpoint.url}${path}`, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}) });
  return { endpoint, records, call };
}

describe('a custom kind whose plural ends in "reviews"', () => {
  it('is a write like any other: intercepted (a dry run), a write record, nothing stored', async () => {
    const { endpoint, records, call } = await start('intercept');
    try {
      const r = await call('POST', '/apis/example.com/v1/namespaces/default/codereviews', { apiVersion: 'example.com/v1', kind: 'CodeReview', metadata: { name: 'pr-1' }, spec: { approved: true } });
      expect(r.status).toBe(201);
      expect(records.find((x) => x.op === 'http' && x.method === 'POST')).toMatchObject({ query: 'dryRun=All' });
      expect(records.filter((x) => x.op === 'write')).toEqual([expect.objectContaining({ verb: 'create', resource: 'codereviews.example.com', mode: 'intercept', code: 201, key: 'default/pr-1' })]);
      expect(records.some((x) => x.op === 'question')).toBe(false);
      expect(sim.api.get(CODEREVIEWS, 'default', 'pr-1')).toBeUndefined();
    } finally {
      await endpoint.close();
    }
  });
});

describe('questions: the built-in reviews and TokenRequests', () => {
  it.each(['intercept', 'overlay'] as const)('are answered by the target under %s and traced as question records, not writes', async (mode) => {
    const { endpoint, records, call } = await start(mode);
    try {
      const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } } };
      const r = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review);
      const http = records.find((x) => x.op === 'http' && x.method === 'POST');
      expect(http?.query ?? '').not.toMatch(/dryRun/);
      expect(records.filter((x) => x.op === 'write')).toEqual([]);
      expect(records.filter((x) => x.op === 'question')).toEqual([expect.objectContaining({ stage: 'endpoint', verb: 'create', resource: 'selfsubjectaccessreviews.authorization.k8s.io', mode, code: r.status, note: 'answered by the target, in every --writes mode' })]);
    } finally {
      await endpoint.close();
    }
  });
});

describe('proxy, exec, attach and portforward', () => {
  const refusedIn: EndpointWriteMode[] = ['intercept', 'server-dry-run', 'overlay'];
  it.each(refusedIn)('are refused under --writes %s with a 403 naming kwatch and the mode, traced as a refused write', async (mode) => {
    const { endpoint, records, call } = await start(mode);
    try {
      const requests: [string, string][] = [
        ['POST', '/api/v1/namespaces/default/pods/web/proxy/admin/reset'],
        ['PUT', '/api/v1/namespaces/default/services/web:8080/proxy/config'],
        ['DELETE', '/api/v1/nodes/node-1/proxy/pods'],
        ['PATCH', '/api/v1/namespaces/default/pods/web/proxy'],
        ['POST', '/api/v1/namespaces/default/pods/web/exec?command=sh&stdin=true'],
        ['GET', '/api/v1/namespaces/default/pods/web/exec?command=ls'],
        ['GET', '/api/v1/namespaces/default/pods/web/attach?stdout=true'],
        ['POST', '/api/v1/namespaces/default/pods/web/portforward?ports=80'],
      ];
      for (const [method, path] of requests) {
        const r = await call(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
        expect(r.status, `${method} ${path}`).toBe(403);
        const status = (await r.json()) as { reason: string; message: string };
        expect(status.reason).toBe('Forbidden');
        expect(status.message).toMatch(new RegExp(`^kwatch endpoint: .* is refused under --writes ${mode}: it acts on the running workload itself`));
      }
      const writes = records.filter((x) => x.op === 'write');
      expect(writes).toHaveLength(requests.length);
      for (const w of writes) expect(w).toMatchObject({ mode, code: 403, refused: 'acts on the running workload: no dry run possible', subresource: expect.stringMatching(/^(proxy|exec|attach|portforward)$/) });
      // A proxy GET reads: it reaches the target (the sim serves no proxy, so its own answer comes back, not kwatch's).
      const read = await call('GET', '/api/v1/namespaces/default/pods/web/proxy/healthz');
      expect(read.status).not.toBe(403);
      expect(await read.text()).not.toMatch(/kwatch/);
    } finally {
      await endpoint.close();
    }
  });

  it('go through under --writes apply, traced', async () => {
    const { endpoint, records, call } = await start('apply');
    try {
      const r = await call('POST', '/api/v1/namespaces/default/pods/web/proxy/admin/reset', {});
      expect(await r.text()).not.toMatch(/kwatch/);
      expect(records.find((x) => x.op === 'http' && x.method === 'POST')).toMatchObject({ path: '/api/v1/namespaces/default/pods/web/proxy/admin/reset', status: r.status });
      const write = records.find((x) => x.op === 'write');
      expect(write).toMatchObject({ verb: 'create', subresource: 'proxy', mode: 'apply', code: r.status });
      expect(write).not.toHaveProperty('refused');
      const exec = await call('GET', '/api/v1/namespaces/default/pods/web/exec?command=ls');
      expect(exec.status).not.toBe(403);
      expect(records.filter((x) => x.op === 'http' && String(x.path).endsWith('/exec'))).toHaveLength(1);
    } finally {
      await endpoint.close();
    }
  });
});
