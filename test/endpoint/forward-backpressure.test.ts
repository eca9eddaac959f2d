// A long answer forwarded to a client that reads slower than the target sends (a big LIST, a busy watch) makes the
// endpoint wait for 'drain' again and again; each wait must leave no listener behind, or Node warns of a leak on the
// user's terminal and every watch keeps one more closure per stall for as long as it stays open.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startEndpoint, type Endpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const MAPS = 40;

let sim: SimServer;
let upstream: Connection;
let endpoint: Endpoint;

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 0, churn: 0 });
  // ~200 KB each: an 8 MB list body, far more than the socket and the response buffer hold at once.
  for (let i = 0; i < MAPS; i++) sim.api.create(CONFIGMAPS, { metadata: { name: `big-${i}`, namespace: 'default' }, data: { blob: 'x'.repeat(200_000) } });
  const tracer = new Tracer();
  upstream = connectionFromUrl(sim.url, { tracer });
  endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
});
afterAll(async () => {
  await endpoint?.close();
  await upstream?.close();
  await sim?.close();
});

it('forwards a big LIST to a slow reader whole, with no listener leak warning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const dispatcher = new Agent();
  try {
    const res = await request(`${endpoint.url}/api/v1/namespaces/default/configmaps`, { dispatcher, headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(200);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      // A controller busy with what it already has: the endpoint's writes back up meanwhile.
      await new Promise((r) => setTimeout(r, 2));
    }
    const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: unknown[] };
    expect(list.items).toHaveLength(MAPS);
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  } finally {
    process.off('warning', onWarning);
    await dispatcher.close();
  }
}, 60_000);
