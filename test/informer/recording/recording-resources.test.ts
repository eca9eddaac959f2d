// A recording that declares many resources (issue 36: format 2 with N `resource` lines made one pass over the file
// per resource, each with an open file and a 1 MB buffer: 10,000 lines took 10 GB, 100,000 ran out of file
// descriptors). Replay now reads the file once for all the resources it reads side by side, reads none for a
// resource without entries, and refuses more than MAX_RECORDING_RESOURCES in one line.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { RecordingEntry } from '../../../src/informer/recording/recording-format.js';
import { LinePasses } from '../../../src/informer/recording/line-passes.js';
import { MAX_RECORDING_RESOURCES, readRecording, RecordingError } from '../../../src/informer/recording/recording-reader.js';
import { replayRecording } from '../../../src/informer/recording/replay-recording.js';
import { SharedPass } from '../../../src/informer/recording/shared-pass.js';
import { Tracer } from '../../../src/informer/trace.js';
import { tempDir } from '../../temp-dir.js';

/** How many times each recording file was opened: each open is one pass over it. */
const opens = vi.hoisted(() => new Map<string, number>());
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    openSync: (path: string, ...rest: unknown[]) => {
      if (String(path).endsWith('.ndjson')) opens.set(String(path), (opens.get(String(path)) ?? 0) + 1);
      return (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
    },
  };
});

const dir = tempDir('kwatch-rec-resources-');
let files = 0;

const HEADER = { kind: 'KwatchRecording', formatVersion: 2, kwatchVersion: '0.1.0', server: 'https://x', resources: [], startTime: '2026-01-01T00:00:00.000Z', masked: true };
const declared = (i: number) => ({ rec: 'resource', t: 0, res: i, conn: 0, resource: { group: 'example.com', version: 'v1', resource: `things${i}`, kind: `Thing${i}`, namespaced: true } });
const thing = (i: number, rv: number) => ({ apiVersion: 'example.com/v1', kind: `Thing${i}`, metadata: { name: `o${i}`, namespace: 'default', uid: `u${i}`, resourceVersion: String(rv) } });

/** A format 2 recording of `n` declared resources and nothing else. */
function declaredOnly(n: number): string {
  return [HEADER, ...Array.from({ length: n }, (_, i) => declared(i))].map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** `n` resources, each listed, then watched, then `events` changes each, interleaved as a recorder writes them. */
function busy(n: number, events: number): string {
  const lines: object[] = [HEADER];
  for (let i = 0; i < n; i++) lines.push(declared(i));
  for (let i = 0; i < n; i++) lines.push({ rec: 'list', t: 1, res: i, conn: i + 1, options: {}, page: { metadata: { resourceVersion: '10' }, items: [thing(i, 10)] } });
  for (let i = 0; i < n; i++) lines.push({ rec: 'watch-start', t: 2, res: i, conn: n + i + 1, options: { resourceVersion: '10' } });
  let rv = 10;
  for (let k = 0; k < events; k++) for (let i = 0; i < n; i++) lines.push({ rec: 'event', t: 3 + k, res: i, conn: n + i + 1, event: { type: 'MODIFIED', object: thing(i, ++rv) } });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

function file(text: string): string {
  const path = join(dir, `r${++files}.ndjson`);
  writeFileSync(path, text);
  return path;
}

const HAS_PROC_FD = existsSync('/proc/self/fd');
const openFds = () => readdirSync('/proc/self/fd').length;

/** Replays `path` to its end; the peak number of open file descriptors seen while records came out, and the MODIFIED count. */
async function replayCountingFds(path: string): Promise<{ peakFds: number; baseFds: number; modified: number; stoppedBy: string }> {
  const baseFds = HAS_PROC_FD ? openFds() : 0;
  let peakFds = baseFds;
  let modified = 0;
  let records = 0;
  const tracer = new Tracer();
  tracer.subscribe((r) => {
    if (r.stage === 'watch' && r.op === 'MODIFIED') modified++;
    // Sampled every 50 records: the passes are open while the replay reads, which is when records come out.
    if (HAS_PROC_FD && ++records % 50 === 0) peakFds = Math.max(peakFds, openFds());
  });
  const result = await replayRecording({ recording: readRecording(path), tracer, signal: new AbortController().signal });
  return { peakFds, baseFds, modified, stoppedBy: result.stoppedBy };
}

describe('a recording declaring many resources', () => {
  it.runIf(HAS_PROC_FD)('300 resources with entries replay with a bounded number of open files (one per resource before)', { timeout: 60_000 }, async () => {
    const path = file(busy(300, 2));
    const { peakFds, baseFds, modified, stoppedBy } = await replayCountingFds(path);
    expect(stoppedBy).toBe('end');
    expect(modified).toBe(600);
    // The first pass (counting and checking), then one shared by every resource.
    expect(opens.get(path)).toBe(2);
    // One shared pass, and at most OPEN_PASSES (8) of their own; the old one-pass-per-resource held ~300.
    expect(peakFds - baseFds).toBeLessThanOrEqual(12);
  });

  it('1,000 declared resources and nothing else replay without reading the file again for any of them', { timeout: 60_000 }, async () => {
    const path = file(declaredOnly(MAX_RECORDING_RESOURCES));
    const recording = readRecording(path);
    expect(recording.header.resources).toHaveLength(MAX_RECORDING_RESOURCES);
    expect([...recording.entriesOf(0)]).toEqual([]);
    const { stoppedBy } = await replayCountingFds(path);
    expect(stoppedBy).toBe('end');
    // Two reads of the header (readRecording here and in replayCountingFds), and no pass for any resource.
    expect(opens.get(path)).toBe(2);
  });

  it(`more than ${MAX_RECORDING_RESOURCES} resources, in resource lines or in the header, are refused in one line`, () => {
    const lines = file(declaredOnly(MAX_RECORDING_RESOURCES + 1));
    expect(() => readRecording(lines)).toThrow(RecordingError);
    expect(() => readRecording(lines)).toThrow(new RegExp(`^${lines.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the recording declares more than 1000 resources \\(line 1002 is resource 1001\\): kwatch replays at most 1000$`));
    const header = file(JSON.stringify({ ...HEADER, formatVersion: 1, resources: Array.from({ length: 1001 }, (_, i) => declared(i).resource) }) + '\n');
    expect(() => readRecording(header)).toThrow(/: the recording declares more than 1000 resources in its header: kwatch replays at most 1000$/);
  });
});

describe('the shared pass', () => {
  const entry = (res: number, t: number): RecordingEntry => ({ rec: 'watch-end', t, res, conn: 1, reason: 'eof' });
  /** Resource 0 has one entry, the last; resource 1 has `n` before it. */
  const quietAndBusy = (n: number) => [...Array.from({ length: n }, (_, i) => entry(1, i)), entry(0, n)];

  function sharedOver(entries: RecordingEntry[], maxQueuedBytes: number) {
    const own: number[] = [];
    const pass = new SharedPass(
      (onEntry) =>
        (function* () {
          for (const [i, e] of entries.entries()) {
            onEntry({ text: 'x'.repeat(100), number: i + 2, unterminated: false, end: (i + 1) * 101 });
            yield e;
          }
        })(),
      (res, from) => {
        own.push(res);
        return entries.slice((from?.number ?? 1) - 1).filter((e) => e.res === res)[Symbol.iterator]();
      },
      maxQueuedBytes,
    );
    return { pass, own };
  }

  it('hands each resource its entries in order, reading the file once', () => {
    const entries = [entry(0, 1), entry(1, 2), entry(1, 3), entry(0, 4)];
    const { pass, own } = sharedOver(entries, 1 << 20);
    const a = pass.join(0);
    const b = pass.join(1);
    expect([a.next().value.t, a.next().value.t, a.next().done]).toEqual([1, 4, true]);
    expect(pass.queued).toBe(2);
    expect([b.next().value.t, b.next().value.t, b.next().done]).toEqual([2, 3, true]);
    expect(own).toEqual([]);
  });

  it('a quiet resource asking far ahead reads alone past the bound, rather than queueing the file for the others', () => {
    const { pass, own } = sharedOver(quietAndBusy(10_000), 100 * 100);
    const quiet = pass.join(0);
    const busyOne = pass.join(1);
    expect(quiet.next().value.t).toBe(10_000);
    expect(own).toEqual([0]);
    expect(pass.queued).toBeLessThanOrEqual(101);
    const ts: number[] = [];
    for (let r = busyOne.next(); !r.done; r = busyOne.next()) ts.push(r.value.t);
    expect(ts).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
  });

  it('passes beyond the bound of open ones are parked, and read on where they stopped', () => {
    const passes = new LinePasses(file(declaredOnly(3)), {}, 2);
    const lines = [passes.pass(), passes.pass(), passes.pass()];
    // Three passes read in turn with room for two: each still reads every line, in order.
    const read = lines.map(() => [] as number[]);
    for (let k = 0; k < 4; k++) lines.forEach((l, i) => read[i].push(l.next().value.number));
    expect(read).toEqual([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]]);
    expect(passes.stats.peakOpen).toBe(2);
    expect(passes.stats.parked).toBeGreaterThan(0);
  });
});
