// The exit summary's totals line of a replay against the run it replays: kwatch replay and reconcile
// --from-recording count the bytes the live run received (failed requests' answers too) and the time span the
// recording holds.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { HEADER, pod, recordingText } from '../informer/recording/recording-fixture.js';
import { kwatch } from './events-helpers.js';
import { reportRows } from './report-rows.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-replay-counters-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { KUBECONFIG: join(dir, 'no-kubeconfig'), KUBECACHEDIR: join(dir, 'cache') };

/** The totals line's key=value pairs (reconnects=0 relists=0 … bytes=1.2kB elapsed=3s). */
function totals(stderr: string): Record<string, string> {
  const line = stderr.split('\n').find((l) => l.startsWith('reconnects=')) ?? '';
  return Object.fromEntries(line.split(' ').map((kv) => kv.split('=') as [string, string]));
}

function noopModule(): string {
  const module = join(dir, 'noop.mjs');
  writeFileSync(module, "export default { name: 'noop', for: 'pods', async reconcile() {} };\n");
  return module;
}

describe('replay counters (built CLI)', () => {
  it('reconcile --from-recording of a live watch-list recording counts the bytes the live run received', async () => {
    const file = join(dir, 'watch-list.ndjson');
    // A watch-list sync (the sim serves 1.35, WatchList on): the initial events arrive on the watch, not in a list.
    const live = await kwatch(['events', 'pods', '--sim', '--sim-churn', '0', '--sim-pods', '5', '--record', file, '--until-synced'], env);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr).toMatch(/initial-events-end=1/);
    const replayed = await kwatch(['reconcile', '--with', noopModule(), '--from-recording', file], env);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(totals(replayed.stderr).bytes).toBe(totals(live.stderr).bytes);
  }, 60_000);

  it("reconcile --from-recording spans the recording's clock, as kwatch replay of the file does", async () => {
    const file = join(dir, 'three-seconds.ndjson');
    const bookmark = (rv: string) => ({ kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: rv } });
    writeFileSync(
      file,
      recordingText(HEADER, [
        { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { metadata: { resourceVersion: '100' }, items: [pod('a', 90)] } },
        { rec: 'watch-start', t: 12, res: 0, conn: 2, options: { resourceVersion: '100', allowWatchBookmarks: true, timeoutSeconds: 400 } },
        { rec: 'event', t: 1500, res: 0, conn: 2, event: { type: 'MODIFIED', object: pod('a', 101, 'nginx:2') } },
        { rec: 'event', t: 3010, res: 0, conn: 2, event: { type: 'BOOKMARK', object: bookmark('102') } },
        { rec: 'watch-end', t: 3010, res: 0, conn: 2, reason: 'aborted' },
      ]),
    );
    const replay = await kwatch(['replay', file], env);
    expect(replay.code, replay.stderr).toBe(0);
    expect(totals(replay.stderr).elapsed).toBe('3s');
    const reconciled = await kwatch(['reconcile', '--with', noopModule(), '--from-recording', file], env);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(totals(reconciled.stderr).elapsed).toBe(totals(replay.stderr).elapsed);
  }, 60_000);

  it("kwatch replay counts the bytes of a failed request's answer, as the live run did", async () => {
    // The watch after the LIST is refused once with kube's 429 (its Status body is bytes the live run received).
    const sim = await startSimServer({ port: 0, pods: 0, nodes: 0, churn: 0, faults: { fail: [{ code: 429, count: 1, verb: 'watch', retryAfterSeconds: 1 }] } });
    try {
      const kubeconfig = join(dir, 'fault-config');
      await sim.writeKubeconfig(kubeconfig);
      const file = join(dir, 'refused-watch.ndjson');
      const live = await kwatch(['events', 'configmaps', '-n', 'default', '--no-watch-list', '--record', file, '--for', '8s'], { ...env, KUBECONFIG: kubeconfig });
      expect(live.code, live.stderr).toBe(0);
      expect(live.stderr).toMatch(/retry-after=1/);
      const replay = await kwatch(['replay', file], env);
      expect(replay.code, replay.stderr).toBe(0);
      expect(totals(replay.stderr).bytes).toBe(totals(live.stderr).bytes);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('a recording stopped while a watch was starting replays without a failure the live run never had', async () => {
    // The watch after the LIST hangs (delayed a minute): --until-synced stops the run while it is still being answered.
    const sim = await startSimServer({ port: 0, pods: 3, nodes: 1, churn: 0, faults: { delay: [{ ms: 60_000, verb: 'watch' }] } });
    try {
      const kubeconfig = join(dir, 'hung-watch-config');
      await sim.writeKubeconfig(kubeconfig);
      const file = join(dir, 'stopped-mid-watch-start.ndjson');
      const live = await kwatch(['events', 'pods', '-A', '--no-watch-list', '--record', file, '--until-synced'], { ...env, KUBECONFIG: kubeconfig });
      expect(live.code, live.stderr).toBe(0);
      expect(totals(live.stderr)).toMatchObject({ relists: '0', backoffs: '0' });
      expect(readFileSync(file, 'utf8')).not.toMatch(/"rec":"error"/);
      const replay = await kwatch(['replay', file], env);
      expect(replay.code, replay.stderr).toBe(0);
      expect(totals(replay.stderr)).toMatchObject({ relists: '0', backoffs: '0', bytes: totals(live.stderr).bytes });
      expect(replay.stderr).not.toMatch(/watch-error/);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('a recording whose watch-list fell back to LIST+WATCH (--fallback) replays to its end, each object handled as live', async () => {
    // The server drops the initial-events-end bookmark: the live run gives up on the watch-list after 1s and lists.
    const sim = await startSimServer({ port: 0, pods: 2, nodes: 1, churn: 0, faults: { dropInitialEventsEnd: true } });
    try {
      const kubeconfig = join(dir, 'no-end-config');
      await sim.writeKubeconfig(kubeconfig);
      const file = join(dir, 'fell-back.ndjson');
      const live = await kwatch(['events', 'pods', '-A', '--initial-events-timeout', '1s', '--fallback', '--record', file, '--for', '5s'], { ...env, KUBECONFIG: kubeconfig });
      expect(live.code, live.stderr).toBe(0);
      expect(live.stderr).toMatch(/fallback=1/);
      // Before: the replayed watch-list met the recording's LIST, was answered 410, and retried forever (killed here).
      const replay = await kwatch(['replay', file], env);
      expect(replay.signal, replay.stderr).toBeUndefined();
      expect(replay.code, replay.stderr).toBe(0);
      const handled = (stderr: string) => reportRows(stderr).find((r) => r.STAGE === 'handler')?.OPS;
      expect(handled(replay.stderr)).toBe(handled(live.stderr));
    } finally {
      await sim.close();
    }
  }, 90_000);

  it("reconcile --record keeps its informers' watch-list bound and --fallback in the header, as events --record does (none with --no-watch-list)", async () => {
    const header = (file: string) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0]) as { watchList?: unknown };
    const withList = join(dir, 'reconcile-watch-list.ndjson');
    const a = await kwatch(['reconcile', '--with', noopModule(), '--sim', '--initial-events-timeout', '7s', '--fallback', '--record', withList, '--once'], env);
    expect(a.code, a.stderr).toBe(0);
    expect(header(withList).watchList).toEqual({ initialEventsEndTimeoutMs: 7000, fallbackWithoutInitialEventsEnd: true });
    const listFirst = join(dir, 'reconcile-list-first.ndjson');
    const b = await kwatch(['reconcile', '--with', noopModule(), '--sim', '--no-watch-list', '--record', listFirst, '--once'], env);
    expect(b.code, b.stderr).toBe(0);
    expect(header(listFirst).watchList).toBeUndefined();
  }, 60_000);

  it("the replay of a --fallback recording traces the live reflector's lines: no-initial-events-end, one fallback, the same watches, and the informer metrics line", async () => {
    const sim = await startSimServer({ port: 0, pods: 2, nodes: 1, churn: 0, faults: { dropInitialEventsEnd: true } });
    try {
      const kubeconfig = join(dir, 'no-end-config-2');
      await sim.writeKubeconfig(kubeconfig);
      const file = join(dir, 'fell-back-reflector.ndjson');
      const live = await kwatch(['events', 'pods', '-A', '--initial-events-timeout', '1s', '--fallback', '--record', file, '--for', '5s'], { ...env, KUBECONFIG: kubeconfig });
      expect(live.code, live.stderr).toBe(0);
      const reflector = (stderr: string) => reportRows(stderr).find((r) => r.STAGE === 'reflector')?.OPS;
      expect(reflector(live.stderr)).toMatch(/no-initial-events-end=1/);
      const replay = await kwatch(['replay', file], env);
      expect(replay.code, replay.stderr).toBe(0);
      // Before: watch-start=3 watch-close=1 watch-error=1 and no no-initial-events-end, reconnects=2 against 1 (the
      // replayed reflector kept the default 30 s bound: it saw the watch-list end where the live one gave up on it,
      // started another, and fell back on the error that one met).
      expect(reflector(replay.stderr)).toBe(reflector(live.stderr));
      expect(totals(replay.stderr).reconnects).toBe(totals(live.stderr).reconnects);
      // The informer metrics line the live run prints after its summary: the same queue and store resourceVersion.
      const metrics = (stderr: string) => /^informer pods: informer_queued_items (\d+ \(peak \d+\)), informer_processing_latency_seconds .*, informer_store_resource_version (\S+)$/m.exec(stderr)?.slice(1);
      expect(metrics(live.stderr), live.stderr).toBeDefined();
      expect(metrics(replay.stderr), replay.stderr).toEqual(metrics(live.stderr));
    } finally {
      await sim.close();
    }
  }, 90_000);
});
