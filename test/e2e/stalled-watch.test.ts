// End to end through the built CLI (run `npm run build` first): a stand-in API server whose watch sends one event and
// then goes silent, keeping the connection open — what an idle-dropping load balancer leaves a client with.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { kwatch, Running } from './events-helpers.js';
import { json } from '../kube/stub-server.js';
import { initialEventsEnd, isWatchList, podList, startMisbehavingServer, type MisbehavingServer } from '../kube/misbehaving-server.js';

const pod = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `u-${name}`, resourceVersion: rv } });
const open: ServerResponse[] = [];
let server: MisbehavingServer;

afterAll(async () => {
  for (const res of open) res.destroy();
  await server?.close();
});

/**
 * Lists one pod at rv 10; every watch sends one MODIFIED (rv 11) and then nothing, the connection left open. A
 * watch-list (the default sync) first gets what kube sends: the pod as an initial ADDED, then the end bookmark.
 */
function silentAfterOneEvent(req: IncomingMessage, res: ServerResponse, watch: boolean): void {
  if (!watch) return json(res, 200, podList('10', [pod('a', '10')]));
  res.writeHead(200, { 'Content-Type': 'application/json' });
  if (isWatchList(req)) res.write(`${JSON.stringify({ type: 'ADDED', object: pod('a', '10') })}\n${JSON.stringify(initialEventsEnd('Pod', 'v1', '10'))}\n`);
  res.write(`${JSON.stringify({ type: 'MODIFIED', object: pod('a', '11') })}\n`);
  open.push(res);
}

describe('stalled watches (built CLI, a server that goes silent mid-watch)', () => {
  // The stand-in answers a watch-list as kube does (initial ADDED, then the end bookmark), so both syncs are exercised.
  for (const sync of ['watch-list', 'list'] as const) {
    // Over 30 s only on a loaded machine: the bound is the wait's, the run itself ends a moment after the 3 s watchdog.
    it(`--stall-after: a stall record saying when the last event came; --watch-idle-timeout restarts the watch from its last resourceVersion (synced by ${sync})`, { timeout: 90_000 }, async () => {
      server ??= await startMisbehavingServer(silentAfterOneEvent);
      const [listsBefore, watchesBefore] = [server.lists(), server.watches()];
      // Ended once the watchdog fired and the server saw the restarted watch, however long a loaded machine takes.
      const run = new Running(['events', 'pods', '-n', 'default', ...(sync === 'list' ? ['--no-watch-list'] : []), '--stall-after', '1s', '--watch-idle-timeout', '3s', '-o', 'ndjson', '--stages', 'reflector'], server.env);
      try {
        await run.until(() => run.records.some((r) => r.op === 'watchdog') && server.watches() - watchesBefore >= 2, 'the watchdog and the restarted watch', 60_000);
      } finally {
        await run.stop();
      }
      const records = run.records;
      const stall = records.find((r) => r.op === 'stall')!;
      expect(stall).toMatchObject({ stage: 'reflector', rv: '11', resource: 'pods' });
      expect(stall.silentMs).toBeGreaterThanOrEqual(1000);
      const lastEventAt = Date.parse(stall.lastEventAt as string);
      expect(Date.parse(stall.time) - lastEventAt).toBe(stall.silentMs);
      expect(records.some((r) => r.op === 'watchdog')).toBe(true);
      // The restarted watch resumes from the last event's resourceVersion, a plain watch, with no relist.
      const watches = server.stub.requests.filter((r) => r.url.includes('watch=true')).slice(watchesBefore);
      expect(watches.length).toBeGreaterThanOrEqual(2);
      expect(watches[0].url.includes('sendInitialEvents=true')).toBe(sync === 'watch-list');
      expect(watches[1].url).toContain('resourceVersion=11');
      expect(watches[1].url).not.toContain('sendInitialEvents');
      expect(server.lists() - listsBefore).toBe(sync === 'list' ? 1 : 0);
    });
  }

  it('without --watch-idle-timeout the silent watch is kept (client-go\'s behaviour), and reported', async () => {
    const before = server.watches();
    const res = await kwatch(['events', 'pods', '-n', 'default', '--stall-after', '1s', '--for', '3s', '-o', 'ndjson', '--stages', 'reflector'], server.env);
    const records = res.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(records.filter((r) => r.op === 'stall')).toHaveLength(1);
    expect(records.some((r) => r.op === 'watchdog')).toBe(false);
    expect(server.watches() - before).toBe(1);
  });
});
