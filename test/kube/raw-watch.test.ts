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
  let quiet = 0;
  stub.routes.set('/api/v1/namespaces/quiet/pods', (_req, res) => {
    quiet++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    // 1: one event, then the end; 2: nothing at all, then the end; 3: 410 for the RV that did not move; then left open.
    if (quiet === 1) res.end(`${JSON.stringify({ type: 'ADDED', object: pod('q', '11') })}\n`);
    else if (quiet === 2) res.end();
    else if (quiet === 3) res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 11 (40)', reason: 'Expired', code: 410 } })}\n`);
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

  it('explains a 410 in words, and links it to the bookmarks a watch that closed with events=0 did not ask for', async () => {
    const stop = new AbortController();
    const notices: string[] = [];
    await runRawWatch(conn, [{ group: '', version: 'v1', resource: 'pods', namespaced: true, namespace: 'quiet' }], {
      signal: stop.signal,
      random: () => 0,
      sleep: async () => {},
      onNotice: (n) => {
        notices.push(n.message);
        if (n.message.includes('too old')) stop.abort();
      },
      onEvent: () => {},
    });
    const expired = notices.find((n) => n.includes('410') || n.includes('too old'))!;
    expect(expired).toContain('resourceVersion 11 is too old: the server no longer has the changes after it; the oldest it can still resume from is 40');
    expect(expired).toContain('etcd compacts old revisions');
    expect(expired).toContain('kwatch watches again from the current state');
    expect(expired).toMatch(/The watch before it closed after \d+\.\ds with events=0: nothing moved its resourceVersion 11 .*did not ask for bookmarks/);
  });
});
