import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFromUrl, type Connection } from '../../src/kube/http/connection.js';
import { runRawWatch } from '../../src/kube/lister-watchers/raw-watch.js';
import { json, startStub, type StubServer } from './stub-server.js';

let stub: StubServer;
let conn: Connection;
const pod = (name: string, rv: string) => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'ns', resourceVersion: rv } });
const tooMany = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 6 } };

beforeAll(async () => {
  let watches = 0;
  stub = await startStub({
    '/api/v1/namespaces/ns/pods': (_req, res) => {
      watches++;
      // 1: one event, then the server ends the watch at once; 2: 429 with Retry-After: 6; then a watch left open.
      if (watches === 2) return json(res, 429, tooMany, { 'Retry-After': '6' });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: pod(`p${watches}`, String(10 + watches)) })}\n`);
      if (watches === 1) res.end();
    },
  });
  conn = connectionFromUrl(stub.url);
});
afterAll(async () => {
  await conn.close();
  await stub.close();
});

describe('runRawWatch (events --raw)', () => {
  it("waits a failed re-watch's Retry-After, as the informer path does, and says so in one clean sentence", async () => {
    const stop = new AbortController();
    const waits: number[] = [];
    const notices: string[] = [];
    const events: string[] = [];
    await runRawWatch(conn, [{ group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'ns' }], {
      signal: stop.signal,
      random: () => 0,
      sleep: async (ms) => {
        waits.push(ms);
      },
      onNotice: (n) => notices.push(n.message),
      onEvent: (e) => {
        events.push(e.event.object.metadata.name ?? '');
        if (events.length === 2) stop.abort();
      },
    });
    expect(events).toEqual(['p1', 'p3']);
    // The first wait is the backoff after a watch that ended within a second; the second is the server's Retry-After.
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBe(6000);
    expect(notices[1]).toContain('please try again later; the server asked to wait 6.0s (Retry-After); re-watching from resourceVersion 11');
    expect(notices.join('\n')).not.toMatch(/\.;/);
  });
});
