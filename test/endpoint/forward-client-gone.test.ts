// A client that goes away while its forwarded request waits for the target (a controller stopped mid-request, as
// --once stops it on a loop) is no failed request: before, the endpoint counted it in `requests failed` and
// `reconcile --exec --once` exited 2 (reconcile errors) instead of 1, whenever the stop landed on such a request.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startEndpoint, type Endpoint } from '../../src/endpoint/endpoint-server.js';
import { Tracer } from '../../src/informer/trace.js';
import type { Connection } from '../../src/kube/http/connection.js';

/** A target that never answers: each request waits until the endpoint gives up on it (its signal). */
let gaveUp = 0;
const silentTarget = {
  server: 'https://silent.test',
  request: (o: { signal?: AbortSignal }) =>
    new Promise((_resolve, reject) => {
      o.signal?.addEventListener('abort', () => {
        gaveUp++;
        reject(new DOMException('This operation was aborted', 'AbortError'));
      }, { once: true });
    }),
  close: async () => {},
} as unknown as Connection;

let endpoint: Endpoint;
beforeAll(async () => {
  endpoint = await startEndpoint({ upstream: silentTarget, mode: 'intercept', tracer: new Tracer(), loopThreshold: 5, stallAfterMs: 300_000 });
});
afterAll(async () => {
  await endpoint?.close();
});

it('a request the client abandons before the target answers is not counted as failed', async () => {
  const dispatcher = new Agent();
  const ac = new AbortController();
  const pending = request(`${endpoint.url}/version`, { dispatcher, signal: ac.signal }).catch((e: unknown) => e);
  // Gone once the endpoint has passed the request on (the target holds it).
  for (let i = 0; i < 10_000 && endpoint.clients().every((c) => c.requests === 0); i++) await new Promise((r) => setTimeout(r, 1));
  ac.abort();
  await pending;
  for (let i = 0; i < 10_000 && gaveUp === 0; i++) await new Promise((r) => setTimeout(r, 1));
  expect(gaveUp).toBe(1);
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  expect(endpoint.failures).toEqual([]);
  expect(endpoint.clients().map((c) => c.failedRequests)).toEqual([0]);
  await dispatcher.close();
});
