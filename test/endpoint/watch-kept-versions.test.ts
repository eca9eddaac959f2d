// What the endpoint keeps of a forwarded watch as the client's newest version of each object (the base of its writes'
// diffs and stale-write checks) must be exactly what the client was sent, whatever reads the events came in and
// whatever the socket client reads after them into the buffer it shares between reads. A guard for any change to how
// the watch tap keeps those bytes (a view of the chunk instead of a copy was tried in round 8, docs/benchmarks.md).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startEndpoint, type Endpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer } from '../../src/informer/trace.js';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const USER_AGENT = 'kept-versions/v0.0.0 (linux/amd64) kubernetes/test';
/** Objects from a few hundred bytes to more than one read of the socket client (16 kB), with characters of 1 to 4 UTF-8 bytes. */
const SIZES = [150, 2_500, 5_000, 7_000, 11_000, 21_000];
const MAPS = 36;
const ROUNDS = 3;

let sim: SimServer;
let upstream: Connection;
let endpoint: Endpoint;
const dispatcher = new Agent();

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 0, churn: 0 });
  upstream = connectionFromUrl(sim.url, { tracer: new Tracer() });
  endpoint = await startEndpoint({ upstream, mode: 'intercept', tracer: new Tracer(), loopThreshold: 5, stallAfterMs: 300_000 });
});
afterAll(async () => {
  await endpoint?.close();
  await upstream?.close();
  await sim?.close();
  await dispatcher.close();
});

const blob = (i: number, round: number) => `${round}:${'aé日😀'.repeat(Math.ceil(SIZES[i % SIZES.length] / 10))}`.slice(0, SIZES[i % SIZES.length]);

/** A watch of configmaps through the endpoint from `rv`, read until `n` events came; the events' objects. */
async function watched(rv: string, n: number): Promise<Record<string, unknown>[]> {
  const ac = new AbortController();
  const res = await request(`${endpoint.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, { dispatcher, signal: ac.signal, headers: { 'user-agent': USER_AGENT, accept: 'application/json' } });
  expect(res.statusCode).toBe(200);
  const objects: Record<string, unknown>[] = [];
  // Text decoded across chunks: a character's bytes may be cut between two.
  const text = new TextDecoder();
  let carry = '';
  try {
    for await (const chunk of res.body) {
      const lines = (carry + text.decode(chunk as Buffer, { stream: true })).split('\n');
      carry = lines.pop()!;
      for (const line of lines) if (line) objects.push((JSON.parse(line) as { object: Record<string, unknown> }).object);
      if (objects.length >= n) break;
    }
  } finally {
    ac.abort();
  }
  return objects;
}

it('keeps, for every object a forwarded watch sent, exactly the newest version the client got, after more reads reused the socket client\'s buffer', async () => {
  const from = String(sim.api.currentRevision());
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < MAPS; i++) {
      const name = `m-${i}`;
      const data = { blob: blob(i, round), round: String(round) };
      if (round === 0) sim.api.create(CONFIGMAPS, { metadata: { name, namespace: 'default' }, data });
      else sim.api.update(CONFIGMAPS, { ...sim.api.get(CONFIGMAPS, 'default', name)!, data });
    }
  }
  const got = await watched(from, MAPS * ROUNDS);
  expect(got).toHaveLength(MAPS * ROUNDS);
  // More bytes through the same socket client and response path after the events were kept: a kept version that
  // still read memory a later read wrote into would change here.
  const more = await watched(from, MAPS * ROUNDS);
  expect(more).toEqual(got);

  const session = endpoint.clients().find((c) => c.userAgent === USER_AGENT)!;
  for (let i = 0; i < MAPS; i++) {
    const key = `default/m-${i}`;
    const newestSent = got.filter((o) => (o.metadata as { name: string }).name === `m-${i}`).at(-1);
    const current = sim.api.get(CONFIGMAPS, 'default', `m-${i}`);
    expect(newestSent, key).toEqual(current);
    expect(session.newest('configmaps', key)?.raw(), key).toEqual(current);
  }
});
