// The `list` records of a paged LIST through the endpoint (issue 43: its pages are now counted and held unread rather
// than read item by item). The -o ndjson output is a contract: each page's record must say what that page held — its
// item count, resourceVersion, continue and remaining count — as it did when every item was read.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startEndpoint } from '../../src/endpoint/endpoint-server.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { until } from '../sim/sim-helpers.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };

function get(base: string, path: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    request(base + path, { headers: { Accept: 'application/json', 'User-Agent': 'pager/1.0' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>));
    }).on('error', reject).end();
  });
}

describe('a paged LIST through the endpoint', () => {
  let sim: SimServer;
  let upstream: Connection;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, churn: 0, pods: 0, nodes: 0 });
    upstream = connectionFromUrl(sim.url);
    // Objects large enough that a page crosses the endpoint in many chunks.
    for (let i = 0; i < 23; i++) sim.api.create(CM, { metadata: { name: `cm-${String(i).padStart(2, '0')}`, namespace: 'default', labels: { i: String(i) } }, data: { k: 'v'.repeat(20_000 + i * 500) } });
  });
  afterAll(async () => {
    await upstream?.close();
    await sim?.close();
  });

  it('traces each page with its item count, resourceVersion, continue and remaining count', async () => {
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000, tls: false });
    try {
      const pages: Record<string, unknown>[] = [];
      let next: string | undefined;
      do {
        const body = await get(endpoint.url, `/api/v1/namespaces/default/configmaps?limit=5${next ? `&continue=${encodeURIComponent(next)}` : ''}`);
        pages.push(body);
        next = (body.metadata as { continue?: string }).continue || undefined;
      } while (next);
      expect(pages.map((p) => (p.items as unknown[]).length)).toEqual([5, 5, 5, 5, 3]);
      await until(() => records.filter((r) => r.op === 'list').length === pages.length, 10_000);
      const lists = records.filter((r) => r.op === 'list').map(({ time: _t, id: _i, ...r }) => r);
      expect(lists).toEqual(pages.map((p, i) => {
        const meta = p.metadata as { resourceVersion: string; continue?: string; remainingItemCount?: number };
        return {
          stage: 'endpoint', op: 'list', key: 'default', rv: meta.resourceVersion, client: 'pager', resource: 'configmaps', items: (p.items as unknown[]).length,
          ...(i > 0 ? { page: 'next' } : {}),
          ...(meta.continue ? { continue: true } : {}),
          ...(meta.remainingItemCount !== undefined ? { remaining: meta.remainingItemCount } : {}),
        };
      }));
      expect(lists.slice(0, 2)).toEqual([
        expect.objectContaining({ items: 5, continue: true, remaining: 18 }),
        expect.objectContaining({ items: 5, page: 'next', continue: true, remaining: 13 }),
      ]);
    } finally {
      await endpoint.close();
    }
  });
});
