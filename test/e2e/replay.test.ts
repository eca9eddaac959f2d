// End to end through the built CLI (node bin/run.js): a live session against the embedded server is
// recorded (churn, a dropped watch, a 410 with a relist and a tombstone, a cut watch), then
// `kwatch replay` must reproduce it offline, resume it on the server, explain compaction and inject faults.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, readFileSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingEntry } from '../../src/informer/recording/recording-format.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { recordSession, waitFor, type RecordedSession } from './replay-session.js';
import { tempDir } from '../temp-dir.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
const dir = tempDir('kwatch-e2e-replay-');
const rec = join(dir, 'pods.ndjson');
let sim: SimServer;
let kubeconfig: string;
let live: RecordedSession;
let recorded: Extract<RecordingEntry, { rec: 'event' }>[];

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

function kwatch(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

const ndjson = (s: string) => s.split('\n').filter(Boolean).map((l) => JSON.parse(l) as TraceRecord & { time: string });
/** A handler record without its time: what a controller's handler was told. */
const told = (r: TraceRecord) => `${r.op} ${r.key}@${r.rv}${r.tombstone ? ' tombstone' : ''}${r.sync ? ' sync' : ''}${r.isInInitialList ? ' initial' : ''}`;
const handlerLines = (rs: TraceRecord[]) => rs.filter((r) => r.stage === 'handler').map(told);
const objectEvents = () => recorded.filter((e) => e.event.type !== 'BOOKMARK' && e.event.type !== 'ERROR');
const rvOf = (e: { event: { object: { metadata: { resourceVersion?: string } } } }) => e.event.object.metadata.resourceVersion!;
const keyOf = (e: { event: { object: { metadata: { namespace?: string; name?: string } } } }) => `${e.event.object.metadata.namespace}/${e.event.object.metadata.name}`;

beforeAll(async () => {
  sim = await startSimServer({ port: 0, pods: 12, nodes: 2, churn: 25, seed: 11 });
  kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  live = await recordSession(sim, rec);
  const lines = readFileSync(rec, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as RecordingEntry);
  recorded = lines.filter((e): e is Extract<RecordingEntry, { rec: 'event' }> => e.rec === 'event');
}, 60_000);
afterAll(() => sim?.close());

// Offline replays of the one recording beforeAll made (the cut copy and the notes file are the test's own): they run at
// once, 60 s each, as a test's wall time holds its neighbours' processes too.
describe('kwatch replay FILE (offline, built CLI)', { timeout: 60_000 }, () => {
  // Two whole replays of every stage: the first test reads the handler's records of one, the second compares both.
  let twoReplays: Promise<Run[]> | undefined;
  const replayedTwice = () => (twoReplays ??= Promise.all([kwatch(['replay', rec, '-o', 'ndjson', '--stages', 'all']), kwatch(['replay', rec, '-o', 'ndjson', '--stages', 'all'])]));

  it('reproduces the live run\'s handler events exactly, relist and tombstone included', async () => {
    const [res] = await replayedTwice();
    expect(res.code).toBe(0);
    const replayed = handlerLines(ndjson(res.stdout));
    expect(replayed).toEqual(handlerLines(live.records));
    expect(replayed).toContain(`OnDelete default/doomed@${live.doomedRv} tombstone`);
  });

  it('is deterministic: two runs print the same -o ndjson trace', async () => {
    const [a, b] = await replayedTwice();
    expect(a.code).toBe(0);
    expect(a.stdout.length).toBeGreaterThan(1000);
    expect(b.stdout).toBe(a.stdout);
  });

  it('--from-rv in the middle reproduces the tail', async () => {
    const events = objectEvents();
    const mid = events[Math.floor(events.length / 3)];
    const next = events[events.indexOf(mid) + 1];
    const res = await kwatch(['replay', rec, '--from-rv', rvOf(mid), '-o', 'ndjson', '--stages', 'handler']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`rebuilt the cache at resourceVersion ${rvOf(mid)}`);
    const all = handlerLines(live.records);
    const from = live.records.filter((r) => r.stage === 'handler').findIndex((r) => r.rv === rvOf(next) && r.key === keyOf(next));
    expect(from).toBeGreaterThan(0);
    expect(handlerLines(ndjson(res.stdout))).toEqual(all.slice(from));
  });

  it('--inject drop-connection@RV: a reconnect from RV, no handler event lost or doubled', async () => {
    const rv = rvOf(objectEvents()[5]);
    const res = await kwatch(['replay', rec, '--inject', `drop-connection@${rv}`, '-o', 'ndjson', '--stages', 'reflector,watch,handler']);
    expect(res.code).toBe(0);
    const out = ndjson(res.stdout);
    const at = out.findIndex((r) => r.stage === 'watch' && r.rv === rv);
    // The fault says where it acted, then the reflector sees the connection break.
    expect(out[at + 1]).toMatchObject({ stage: 'reflector', op: 'fault', fault: `drop-connection@${rv}`, rv });
    const after = out.slice(at + 2).filter((r) => r.stage === 'reflector');
    expect(after[0]).toMatchObject({ op: 'watch-close', reason: 'connection' });
    expect(after[1]).toMatchObject({ op: 'watch-start', rv });
    expect(handlerLines(out)).toEqual(handlerLines(live.records));
  });

  it('--inject expire@RV: ERROR 410, a relist at RV served from the recording, then the same handler events', async () => {
    const rv = rvOf(objectEvents()[5]);
    const res = await kwatch(['replay', rec, '--inject', `expire@${rv}`, '-o', 'ndjson', '--stages', 'reflector,watch,handler']);
    expect(res.code).toBe(0);
    const out = ndjson(res.stdout);
    const at = out.findIndex((r) => r.stage === 'watch' && r.rv === rv);
    expect(out.slice(at + 1).find((r) => r.stage === 'watch')).toMatchObject({ op: 'ERROR', error: expect.stringContaining(`too old resource version: ${rv}`) });
    const reflector = out.slice(at + 1).filter((r) => r.stage === 'reflector').map((r) => `${r.op}@${r.rv ?? ''}`);
    expect(reflector).toEqual(expect.arrayContaining([`expired@${rv}`, `relist@${rv}`, `listed@${rv}`]));
    const changes = (rs: TraceRecord[]) => handlerLines(rs).filter((l) => !l.endsWith(' sync'));
    expect(changes(out)).toEqual(changes(live.records));
    expect(res.stderr).toContain('1 relists answered from the recording\'s state');
  });

  it('--inject hide-delete:KEY: no OnDelete when it happened; a tombstone at the next relist', async () => {
    const res = await kwatch(['replay', rec, '--inject', 'hide-delete:default/victim', '-o', 'ndjson', '--stages', 'handler']);
    expect(res.code).toBe(0);
    const victim = handlerLines(ndjson(res.stdout)).filter((l) => l.includes('default/victim'));
    expect(victim).toHaveLength(2);
    expect(victim[0]).toMatch(/^OnAdd /);
    expect(victim[1]).toMatch(/^OnDelete default\/victim@\d+ tombstone$/);
    expect(handlerLines(live.records).filter((l) => l.includes('default/victim'))[1]).not.toContain('tombstone');
  });

  it('--inject duplicate@RV: the event twice on the wire, a no-change update for the handler', async () => {
    const ev = objectEvents().find((e) => e.event.type === 'MODIFIED')!;
    const res = await kwatch(['replay', rec, '--inject', `duplicate@${rvOf(ev)}`, '-o', 'ndjson', '--stages', 'watch,handler']);
    const out = ndjson(res.stdout).filter((r) => r.rv === rvOf(ev));
    // (later relists, where the object is unchanged, add no-change updates of their own)
    expect(out.slice(0, 4).map((r) => `${r.stage} ${r.op}${r.sync ? ' sync' : ''}`)).toEqual(['watch MODIFIED', 'handler OnUpdate', 'watch MODIFIED', 'handler OnUpdate sync']);
  });

  it('--key follows one object with a diff between its versions', async () => {
    const ev = objectEvents().find((e) => e.event.type === 'MODIFIED')!;
    const res = await kwatch(['replay', rec, '--key', keyOf(ev), '--diff']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    // The key's records, and the reflector records that explain them (the list that filled the cache, relists, 410s).
    expect(lines.slice(1).every((l) => l.startsWith('    ') || l.includes(keyOf(ev)) || /^\S+\s+reflector\s+(listed|seeded|relist|expired|fault)\b/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {4}\S.*→/.test(l))).toBe(true);
  });

  it('tolerates a cut-off last line and says so; refuses a file that is not a recording', async () => {
    const cut = join(dir, 'cut.ndjson');
    copyFileSync(rec, cut);
    truncateSync(cut, statSync(cut).size - 25);
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'shopping list\n');
    const [res, bad] = await Promise.all([kwatch(['replay', cut, '-o', 'name', '--stages', 'handler']), kwatch(['replay', notes])]);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/Warning: .*cut\.ndjson: the last line \(line \d+, \d+ bytes\) is incomplete/);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`error: ${notes} is not a kwatch recording: its first line is not JSON (recordings are written by kwatch events --record)\n`);
  });
});

describe('kwatch events --record, then kwatch replay (both through the built CLI)', () => {
  it('the replay prints the handler events the live run printed', async () => {
    const rec2 = join(dir, 'cli.ndjson');
    const child = spawn(process.execPath, [BIN, 'events', 'pods', '-A', '--record', rec2, '--max-events', '30', '-o', 'ndjson', '--stages', 'handler'], {
      env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    const eventLines = () => {
      try {
        return readFileSync(rec2, 'utf8').split('\n').filter((l) => l.startsWith('{"rec":"event"')).length;
      } catch {
        return 0;
      }
    };
    // A dropped watch in the middle: the live reflector re-watches, and so must the replayed one.
    await waitFor(() => eventLines() >= 10, 'ten recorded events');
    sim.faults.dropWatches('end');
    expect(await exited).toBe(0);
    const liveHandlers = handlerLines(ndjson(stdout));
    expect(readFileSync(rec2, 'utf8')).toMatch(/"rec":"watch-end".*"reason":"eof"/);
    const res = await kwatch(['replay', rec2, '--max-events', '30', '-o', 'ndjson', '--stages', 'handler']);
    expect(res.code).toBe(0);
    expect(handlerLines(ndjson(res.stdout))).toEqual(liveHandlers);
  });
});

describe('kwatch replay RESOURCE --from-rv (server, built CLI)', () => {
  it('resumes inside the server\'s history with the same events as the recording after that RV, and keeps a checkpoint', async () => {
    const events = objectEvents();
    const relisted = recorded.findIndex((e) => Number(rvOf(e)) > live.compactedAt);
    const from = events.find((e) => recorded.indexOf(e) > relisted)!;
    const last = events.at(-1)!;
    const cp = join(dir, 'pods.rv');
    const res = await kwatch(['replay', 'pods', '-A', '--from-rv', rvOf(from), '--until-rv', rvOf(last), '-o', 'ndjson', '--stages', 'watch', '--checkpoint', cp]);
    expect(res.stderr).toContain(`checkpoint ${cp} at resourceVersion ${rvOf(last)}`);
    expect(res.code).toBe(0);
    const got = ndjson(res.stdout).filter((r) => r.type !== 'BOOKMARK').map((r) => `${r.type} ${r.key}@${r.rv}`);
    const want = events.filter((e) => Number(rvOf(e)) > Number(rvOf(from))).map((e) => `${e.event.type} ${keyOf(e)}@${rvOf(e)}`);
    expect(got).toEqual(want);
    const saved = JSON.parse(readFileSync(cp, 'utf8'));
    expect(saved).toMatchObject({ kind: 'KwatchCheckpoint', server: sim.url, resourceVersion: rvOf(last), resource: { resource: 'pods', namespaced: true } });

    // --from-checkpoint resumes right after it (and keeps the file up to date).
    const again = await kwatch(['replay', '--from-checkpoint', cp, '--max-events', '2', '-o', 'ndjson', '--stages', 'watch']);
    expect(again.code).toBe(0);
    const next = ndjson(again.stdout).filter((r) => r.type !== 'BOOKMARK');
    expect(next).toHaveLength(2);
    expect(Number(next[0].rv)).toBeGreaterThan(Number(rvOf(last)));
    expect(JSON.parse(readFileSync(cp, 'utf8')).resourceVersion).toBe(next[1].rv);
  });

  it('--baseline seeds the cache with the recording\'s state at the RV: later events reach the handler as updates and deletes', async () => {
    const events = objectEvents();
    const relisted = recorded.findIndex((e) => Number(rvOf(e)) > live.compactedAt);
    const from = events.find((e) => recorded.indexOf(e) > relisted)!;
    const last = events.at(-1)!;
    const args = ['replay', 'pods', '-A', '--from-rv', rvOf(from), '--until-rv', rvOf(last), '-o', 'ndjson', '--stages', 'reflector,handler'];
    const [cold, seeded] = await Promise.all([kwatch(args), kwatch([...args, '--baseline', rec])]);
    expect(seeded.code).toBe(0);
    const after = events.filter((e) => Number(rvOf(e)) > Number(rvOf(from)));
    const asHandlerSees = { ADDED: 'OnAdd', MODIFIED: 'OnUpdate', DELETED: 'OnDelete' } as Record<string, string>;
    const recs = ndjson(seeded.stdout);
    const seededLine = recs.find((r) => r.stage === 'reflector' && r.op === 'seeded');
    expect(seededLine).toMatchObject({ rv: rvOf(from) });
    const initial = recs.filter((r) => r.stage === 'handler' && r.isInInitialList);
    expect(initial).toHaveLength(seededLine!.items as number);
    expect(recs.filter((r) => r.stage === 'handler' && !r.isInInitialList).map((r) => `${r.op} ${r.key}@${r.rv}`)).toEqual(after.map((e) => `${asHandlerSees[e.event.type]} ${keyOf(e)}@${rvOf(e)}`));
    // Without it, an update of an object the cache never saw arrives as OnAdd.
    const coldOps = ndjson(cold.stdout).filter((r) => r.stage === 'handler').map((r) => r.op);
    expect(after.some((e) => e.event.type === 'MODIFIED')).toBe(true);
    expect(coldOps.filter((op) => op === 'OnAdd').length).toBeGreaterThan(after.filter((e) => e.event.type === 'ADDED').length);
  });

  it('at a compacted RV it explains in one line and exits 1', async () => {
    const res = await kwatch(['replay', 'pods', '-A', '--from-rv', live.doomedRv]);
    expect(res.code).toBe(1);
    expect(res.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(res.stderr).toContain(`error: resourceVersion ${live.doomedRv} of pods is too old: the server no longer has the changes after it; the oldest it can still resume from is ${live.compactedAt}`);
    expect(res.stderr).toContain('--on-expired relist');
  });

  it('with --on-expired relist --baseline it shows the gap: what is new, changed and gone since the RV', async () => {
    const res = await kwatch(['replay', 'pods', '-A', '--from-rv', live.doomedRv, '--on-expired', 'relist', '--baseline', rec, '--max-events', '1', '-o', 'ndjson', '--stages', 'reflector']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`resourceVersion ${live.doomedRv} of pods is too old`);
    expect(res.stderr).toMatch(new RegExp(`the gap between resourceVersion ${live.doomedRv} and the relist at \\d+: \\d+ new, \\d+ changed, \\d+ gone`));
    const gap = ndjson(res.stdout).filter((r) => r.op === 'gap');
    expect(gap.find((r) => r.key === 'default/doomed')).toMatchObject({ change: 'gone', baselineRv: live.doomedRv });
    expect(gap.find((r) => r.key === 'default/newcomer')).toMatchObject({ change: 'new' });
    expect(gap.some((r) => r.key === 'default/victim')).toBe(false);
  });

  it('-n NS with a baseline recorded across namespaces: only that namespace seeds the cache and makes the gap', async () => {
    expect(recorded.some((e) => !keyOf(e).startsWith('default/'))).toBe(true); // the baseline holds other namespaces
    const res = await kwatch(['replay', 'pods', '-n', 'default', '--from-rv', live.doomedRv, '--on-expired', 'relist', '--baseline', rec, '--max-events', '1', '-o', 'ndjson', '--stages', 'reflector']);
    expect(res.code).toBe(0);
    const gap = ndjson(res.stdout).filter((r) => r.op === 'gap');
    expect(gap.find((r) => r.key === 'default/doomed')).toMatchObject({ change: 'gone', baselineRv: live.doomedRv });
    expect(gap.filter((r) => !String(r.key).startsWith('default/'))).toEqual([]);
  });
});
