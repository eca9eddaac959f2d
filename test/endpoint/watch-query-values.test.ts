// `?watch=yes` and `?watch=` are watches to kube-apiserver: it decodes ListOptions' booleans with apimachinery's
// Convert_Slice_string_To_bool, where only an absent value, "0" and "false" are false (src/wire/query-bool.ts). The
// endpoint read them with strconv.ParseBool's true values and traced such a request as a list: no watch start, no
// events, and a list record of the stream's size when it closed (the bytes still went through).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startEndpoint, type Endpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

let sim: SimServer;
let upstream: Connection;
let endpoint: Endpoint;
const records: TraceRecord[] = [];
const dispatcher = new Agent();

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 0, churn: 0 });
  upstream = connectionFromUrl(sim.url, { tracer: new Tracer() });
  const tracer = new Tracer();
  tracer.subscribe((r) => records.push(r));
  endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
  const created = await request(`${sim.url}/api/v1/namespaces/default/configmaps`, { dispatcher, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } }) });
  expect(created.statusCode).toBe(201);
  await created.body.dump();
});
afterAll(async () => {
  await endpoint?.close();
  await upstream?.close();
  await sim?.close();
  await dispatcher.close();
});

/** The first line a watch of configmaps in default sends with `?watch=VALUE`, while the watch stays open. */
async function firstLine(value: string): Promise<Record<string, unknown>> {
  const ac = new AbortController();
  const res = await request(`${endpoint.url}/api/v1/namespaces/default/configmaps?watch=${value}`, { dispatcher, signal: ac.signal, headers: { accept: 'application/json' } });
  expect(res.statusCode).toBe(200);
  let text = '';
  try {
    for await (const chunk of res.body) {
      text += (chunk as Buffer).toString();
      if (text.includes('\n')) break;
    }
  } finally {
    ac.abort();
  }
  return JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, unknown>;
}

it('a watch asked for with ?watch=yes or ?watch= is traced as the watch it is, with its events, as with ?watch=1', async () => {
  for (const value of ['1', 'yes', '']) {
    records.length = 0;
    const line = await firstLine(value);
    expect(line.type, `watch=${value}`).toBe('ADDED');
    await expect.poll(() => records.filter((r) => r.stage === 'endpoint').map((r) => `${r.op} ${(r as { event?: string }).event ?? ''}`.trim()), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['watch start', 'watch close']));
    expect(records.some((r) => r.stage === 'endpoint' && r.op === 'list'), `watch=${value}`).toBe(false);
  }
}, 30_000);
