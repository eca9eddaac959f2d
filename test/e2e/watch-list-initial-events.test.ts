// End to end through the built CLI (run `npm run build` first): `kwatch events --watch-list` syncs by watch-list, as
// client-go 1.35's WatchListClient does; and against a server whose initial-events-end bookmark is dropped (the sim's
// drop-initial-events-end fault, a proxy that drops it) kwatch says so after --initial-events-timeout, and with
// --fallback syncs by LIST+WATCH instead of waiting forever; `kwatch index` and reconcile's module informers the same
// by default. --batch-process delivers the RealFIFO in batches.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { kwatch, Running } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

interface Rec { stage: string; op: string; message?: string; fallback?: boolean; from?: string }

let plain: SimServer;
let dropping: SimServer;
const env = (sim: 'plain' | 'dropping') => ({ KUBECONFIG: join(dirs[sim], 'config'), KUBECACHEDIR: join(dirs[sim], 'cache') });
const dirs = { plain: '', dropping: '' };
const reflectorOps = (stdout: string) =>
  stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec).filter((r) => r.stage === 'reflector');

/**
 * Runs a command against the dropping sim until its no-initial-events-end record, however long this machine takes to
 * start the CLI and open the watch, then 2 s more (where a sync client-go would never make would show), and stops
 * it with SIGINT. A fixed --for 3s after a 1 s timeout left a loaded machine's CLI little or no time past the notice.
 */
async function pastNoInitialEventsEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = new Running([...args, '--for', '120s', '-o', 'ndjson'], env('dropping'));
  let stopped: { code: number | null } | undefined;
  try {
    await run.waitFor((r) => r.stage === 'reflector' && r.op === 'no-initial-events-end', 'the no-initial-events-end record', 60_000);
    await new Promise((r) => setTimeout(r, 2000));
  } finally {
    stopped = await run.stop('SIGINT');
  }
  return { code: stopped.code, stdout: `${run.lines.join('\n')}\n`, stderr: run.stderr };
}

beforeAll(async () => {
  plain = await startSimServer({ nodes: 1, pods: 4, churn: 0 });
  dropping = await startSimServer({ nodes: 1, pods: 4, churn: 0, faults: { dropInitialEventsEnd: true } });
  dirs.plain = tempDir('kwatch-e2e-wl-plain-');
  dirs.dropping = tempDir('kwatch-e2e-wl-drop-');
  await plain.writeKubeconfig(join(dirs.plain, 'config'));
  await dropping.writeKubeconfig(join(dirs.dropping, 'config'));
});
afterAll(async () => {
  await Promise.all([plain?.close(), dropping?.close()]);
});

// One run against the plain sim serves the watch-list test and the --batch-process one below: both sync by
// watch-list with --until-synced, and each judges its own part of the trace (a CLI run less).
let syncedByWatchList: ReturnType<typeof kwatch> | undefined;
const watchListBatchRun = () => (syncedByWatchList ??= kwatch(['events', 'pods', '-A', '--watch-list', '--batch-process', '--until-synced', '-o', 'ndjson'], env('plain')));

describe('kwatch events --watch-list (built CLI)', () => {
  it('syncs by watch-list: sendInitialEvents with NotOlderThan, no LIST page', async () => {
    const r = await watchListBatchRun();
    expect(r.code, r.stderr).toBe(0);
    const recs = reflectorOps(r.stdout);
    expect(recs.find((x) => x.op === 'synced')).toMatchObject({ from: 'watch-list' });
    expect(recs.map((x) => x.op)).not.toContain('list-page');
    expect(plain.requests().some((q) => q.url.includes('sendInitialEvents=true') && q.url.includes('resourceVersionMatch=NotOlderThan'))).toBe(true);
  }, 60_000);

  // The two runs against the dropping sim go at once (neither reads the sim's request log): the waiting one's wait
  // then covers the other's.
  let dropped: Promise<[Awaited<ReturnType<typeof pastNoInitialEventsEnd>>, Awaited<ReturnType<typeof kwatch>>]> | undefined;
  const waitingAndFallback = () => (dropped ??= Promise.all([
    pastNoInitialEventsEnd(['events', 'pods', '-A', '--watch-list', '--initial-events-timeout', '1s']),
    kwatch(['events', 'pods', '-A', '--watch-list', '--initial-events-timeout', '1s', '--fallback', '--until-synced', '-o', 'ndjson'], env('dropping')),
  ]));

  it('without the bookmark: says so after --initial-events-timeout and, like client-go, does not sync', async () => {
    const [r] = await waitingAndFallback();
    expect(r.code, r.stderr).toBe(0);
    const recs = reflectorOps(r.stdout);
    expect(recs.filter((x) => x.op === 'no-initial-events-end')).toEqual([
      expect.objectContaining({ message: 'no initial-events-end after 1s: the server or a proxy in between drops it; client-go would wait forever', fallback: false }),
    ]);
    expect(recs.map((x) => x.op)).not.toContain('synced');
  }, 60_000);

  it('without the bookmark and with --fallback: lists and watches instead, and syncs', async () => {
    const [, r] = await waitingAndFallback();
    expect(r.code, r.stderr).toBe(0);
    const ops = reflectorOps(r.stdout).map((x) => x.op);
    expect(ops.indexOf('no-initial-events-end')).toBeGreaterThan(-1);
    expect(ops.indexOf('list-page')).toBeGreaterThan(ops.indexOf('no-initial-events-end'));
    expect(reflectorOps(r.stdout).find((x) => x.op === 'synced')).toMatchObject({ from: 'list' });
  }, 60_000);
});

describe('kwatch index: watch-list by default (built CLI)', () => {
  const podRequests = (sim: SimServer, since: number) => sim.requests().slice(since).filter((q) => /\/pods\b/.test(q.url));
  it('syncs by watch-list (sendInitialEvents, NotOlderThan) and sends no LIST; --no-watch-list lists first', async () => {
    let since = plain.requests().length;
    const r = await kwatch(['index', 'pods', '-A', '--by', 'nodeName', '-o', 'json'], env('plain'));
    expect(r.code, r.stderr).toBe(0);
    expect(Object.values(JSON.parse(r.stdout).nodeName as Record<string, string[]>).flat()).toHaveLength(4);
    const asked = podRequests(plain, since);
    expect(asked.map((q) => q.url.includes('watch=true') && q.url.includes('sendInitialEvents=true') && q.url.includes('resourceVersionMatch=NotOlderThan'))).toEqual([true]);

    since = plain.requests().length;
    const old = await kwatch(['index', 'pods', '-A', '--by', 'nodeName', '-o', 'json', '--no-watch-list'], env('plain'));
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).toBe(r.stdout);
    const listed = podRequests(plain, since);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.some((q) => q.url.includes('sendInitialEvents'))).toBe(false);
    expect(listed[0].url).not.toContain('watch=true');
  }, 60_000);

  it('without the bookmark: says so after --initial-events-timeout, and, like client-go, never syncs (until --sync-timeout)', async () => {
    const r = await kwatch(['index', 'pods', '-A', '--by', 'nodeName', '--initial-events-timeout', '1s', '--sync-timeout', '4s'], env('dropping'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^kwatch: pods: no initial-events-end after 1s: the server or a proxy in between drops it; client-go would wait forever; still waiting \(--fallback lists instead\)$/m);
    expect(r.stderr).toMatch(/^error: timed out after 4s waiting for the cache to sync: no initial-events-end after 1s/m);
  }, 60_000);

  it('without the bookmark and with --fallback: lists and watches instead, and syncs', async () => {
    const since = dropping.requests().length;
    const r = await kwatch(['index', 'pods', '-A', '--by', 'nodeName', '--initial-events-timeout', '1s', '--fallback', '-o', 'json'], env('dropping'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^kwatch: pods: no initial-events-end after 1s: .*client-go would wait forever; falling back to LIST\+WATCH \(--fallback\)$/m);
    expect(Object.values(JSON.parse(r.stdout).nodeName as Record<string, string[]>).flat()).toHaveLength(4);
    const asked = podRequests(dropping, since);
    expect(asked[0].url).toContain('sendInitialEvents=true');
    expect(asked.some((q) => !q.url.includes('watch=true'))).toBe(true);
  }, 60_000);
});

describe("kwatch reconcile: the module's informers sync by watch-list (built CLI)", () => {
  const module = () => {
    const file = join(dirs.plain, 'noop.mjs');
    writeFileSync(file, `export default { for: 'pods', reconcile() {} };`);
    return file;
  };
  it('without the bookmark: the bounded record, no sync; with --fallback: LIST+WATCH, synced, every pod reconciled', async () => {
    const [waiting, fallback] = await Promise.all([
      pastNoInitialEventsEnd(['reconcile', '--with', module(), '-A', '--initial-events-timeout', '1s', '--stages', 'reflector']),
      kwatch(['reconcile', '--with', module(), '-A', '--initial-events-timeout', '1s', '--fallback', '--once', '-o', 'ndjson', '--stages', 'reflector,reconcile'], env('dropping')),
    ]);
    const waited = reflectorOps(waiting.stdout);
    expect(waited.filter((x) => x.op === 'no-initial-events-end'), waiting.stderr).toEqual([
      expect.objectContaining({ message: 'no initial-events-end after 1s: the server or a proxy in between drops it; client-go would wait forever', fallback: false }),
    ]);
    expect(waited.map((x) => x.op)).not.toContain('synced');

    expect(fallback.code, fallback.stderr).toBe(0);
    const ops = reflectorOps(fallback.stdout).map((x) => x.op);
    expect(ops.indexOf('list-page')).toBeGreaterThan(ops.indexOf('no-initial-events-end'));
    expect(reflectorOps(fallback.stdout).find((x) => x.op === 'synced')).toMatchObject({ from: 'list' });
    const runs = fallback.stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec & { key?: string }).filter((x) => x.stage === 'reconcile' && x.op === 'start');
    expect(new Set(runs.map((x) => x.key)).size).toBe(4);
  }, 60_000);
});

describe('kwatch events --batch-process (built CLI)', () => {
  it('delivers the initial list as one fifo batch, each pop carrying its batch number', async () => {
    const r = await watchListBatchRun();
    expect(r.code, r.stderr).toBe(0);
    const recs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { stage: string; op: string; batch?: number; size?: number; isInInitialList?: boolean; key?: string });
    const batches = recs.filter((x) => x.stage === 'fifo' && x.op === 'batch');
    expect(batches).toEqual([expect.objectContaining({ batch: 1, size: 4, isInInitialList: true })]);
    expect(recs.filter((x) => x.stage === 'handler' && x.op === 'OnAdd')).toHaveLength(4);
    // After the summary, the informer's metrics in client-go 1.36's names.
    const rv = String(plain.api.currentRevision());
    expect(r.stderr).toMatch(new RegExp(`^informer pods: informer_queued_items 0 \\(peak 4\\), informer_processing_latency_seconds p50 [≤<]\\S+ p99 [≤<]\\S+ max \\S+ \\(1 sampled pops\\), informer_store_resource_version ${rv}$`, 'm'));
  }, 60_000);

  it('refuses --fifo delta in one line', async () => {
    const r = await kwatch(['events', 'pods', '-A', '--batch-process', '--fifo', 'delta'], env('plain'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('error: --batch-process batches the RealFIFO: it cannot be combined with --fifo delta');
  }, 60_000);
});
