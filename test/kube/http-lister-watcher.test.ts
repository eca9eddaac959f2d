import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusError, StreamCutError } from '../../src/informer/errors.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { HttpListerWatcher, resourcePath } from '../../src/kube/lister-watchers/http-lister-watcher.js';
import { json, startStub, type StubServer } from './stub-server.js';

let stub: StubServer;
let conn: Connection;
const pod = (name: string, rv: string) => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'ns', resourceVersion: rv } });

beforeAll(async () => {
  stub = await startStub({
    '/api/v1/namespaces/ns/pods': (req, res) => {
      if (!req.url?.includes('watch=true')) return json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '10', continue: 'c1' }, items: [pod('a', '9')] });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const l1 = JSON.stringify({ type: 'ADDED', object: pod('b', '11') });
      res.write(l1.slice(0, 20));
      setTimeout(() => {
        res.write(`${l1.slice(20)}\n${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '12' } } })}\n`);
        if (req.url?.includes('cut=1') || req.url?.includes('labelSelector=cut')) res.end('{"type":"MODIFIED","obj');
      }, 20);
    },
    '/apis/apps/v1/deployments': (_req, res) => json(res, 410, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'The provided continue parameter is too old', reason: 'Expired', code: 410 }),
  });
  conn = connectionFromUrl(stub.url);
});
afterAll(async () => {
  await conn.close();
  await stub.close();
});

describe('HttpListerWatcher', () => {
  it('builds resource paths for core, grouped, namespaced and cluster-wide resources', () => {
    expect(resourcePath({ group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'ns' })).toBe('/api/v1/namespaces/ns/pods');
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true })).toBe('/apis/apps/v1/deployments');
    expect(resourcePath({ group: '', version: 'v1', resource: 'nodes', namespaced: false, namespace: 'ns' })).toBe('/api/v1/nodes');
  });

  it('lists with wire-named query parameters and records the body size', async () => {
    const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'ns', name: 'a', fieldSelector: 'spec.nodeName=n1' });
    const page = await lw.list({ limit: 2, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', labelSelector: 'app=x' });
    expect(page.items.map((p) => p.metadata.name)).toEqual(['a']);
    expect(page.metadata).toEqual({ resourceVersion: '10', continue: 'c1' });
    expect(page.bytes).toBeGreaterThan(50);
    const q = new URL(stub.requests.at(-1)!.url, 'http://x').searchParams;
    expect(Object.fromEntries(q)).toEqual({ labelSelector: 'app=x', fieldSelector: 'spec.nodeName=n1,metadata.name=a', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', limit: '2' });
  });

  it('throws StatusError for an HTTP 410 on list', async () => {
    const lw = new HttpListerWatcher(conn, { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true });
    await expect(lw.list({ continue: 'old' })).rejects.toBeInstanceOf(StatusError);
  });

  it('watches, decoding events split across chunks, and close() ends the iteration', async () => {
    const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'ns' });
    const w = await lw.watch({ resourceVersion: '10', allowWatchBookmarks: true, timeoutSeconds: 30 });
    const q = new URL(stub.requests.at(-1)!.url, 'http://x').searchParams;
    expect(q.get('watch')).toBe('true');
    expect(q.get('allowWatchBookmarks')).toBe('true');
    const seen: string[] = [];
    for await (const ev of w) {
      seen.push(`${ev.type} ${ev.object.metadata.resourceVersion}`);
      if (seen.length === 2) w.close();
    }
    expect(seen).toEqual(['ADDED 11', 'BOOKMARK 12']);
  });

  it('gives raw lines exactly as sent, and reports a stream cut mid-line', async () => {
    const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'ns', labelSelector: 'cut' });
    const w = await lw.rawWatch({});
    const lines: string[] = [];
    const err = await (async () => {
      for await (const { line, event } of w) {
        lines.push(line);
        expect(event.bytes).toBe(Buffer.byteLength(line) + 1);
      }
    })().catch((e: unknown) => e);
    expect(lines[0]).toBe(JSON.stringify({ type: 'ADDED', object: pod('b', '11') }));
    expect(lines).toHaveLength(2);
    expect(err).toBeInstanceOf(StreamCutError);
  });
});

describe('HttpListerWatcher with omitManagedFields, against kwatch sim', () => {
  it('lists and watches the same objects as without it, minus metadata.managedFields', async () => {
    const { startSimServer } = await import('../../src/sim/server.js');
    const { stripManagedFields } = await import('../../src/informer/transform.js');
    const sim = await startSimServer({ port: 0, pods: 20, nodes: 2, churn: 0, managedFields: true });
    const c = connectionFromUrl(sim.url);
    try {
      const target = { group: '', version: 'v1', resource: 'pods', namespaced: true } as const;
      const full = new HttpListerWatcher(c, target);
      const lean = new HttpListerWatcher(c, target, { omitManagedFields: true });
      const [a, b] = await Promise.all([full.list({}), lean.list({})]);
      expect(a.items.length).toBe(20);
      expect(a.items.every((p) => Array.isArray(p.metadata.managedFields))).toBe(true);
      expect(b.items).toEqual(a.items.map(stripManagedFields));
      expect(b.bytes).toBe(a.bytes); // what the server sent, not what was kept

      const from = a.metadata.resourceVersion!;
      const [wf, wl] = await Promise.all([full.watch({ resourceVersion: from }), lean.watch({ resourceVersion: from })]);
      const collect = async (w: typeof wf) => {
        const out = [];
        for await (const e of w) {
          out.push(e);
          if (out.length === 3) break;
        }
        return out;
      };
      const seen = Promise.all([collect(wf), collect(wl)]);
      for (const p of a.items.slice(0, 3)) sim.api.update({ group: '', version: 'v1', resource: 'pods' }, { ...p, metadata: { ...p.metadata, labels: { ...p.metadata.labels, touched: 'yes' } } } as never);
      const [ef, el] = await seen;
      expect(ef.every((e) => Array.isArray(e.object.metadata.managedFields))).toBe(true);
      expect(el).toEqual(ef.map((e) => ({ ...e, object: stripManagedFields(e.object) })));
    } finally {
      await c.close();
      await sim.close();
    }
  });
});
