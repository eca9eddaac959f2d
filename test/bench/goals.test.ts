// `node bench/run.js --goals` reads what other benchmark scripts wrote (bench/results/NAME.json), scripts that change
// under other hands: each row reads the data as the script writes it today, falls back to its targets' text, and says
// "no figure" (no verdict) rather than throwing or inventing one when neither is there.
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';

interface Figure { now: string; met: boolean | undefined }
interface Row { row: string; goal: string; script?: string; read(data?: unknown, activity?: { busyCores?: number; load: number }): Figure }
const { ROWS } = (await import(new URL('../../bench/goals.js', import.meta.url).href)) as { ROWS: Row[] };
const row = (pattern: RegExp) => ROWS.find((r) => pattern.test(r.row))!;

const replay = (direct: number[], endpoint: number[], ndjson: number[]) => ({
  watch: { direct: direct.map((replay) => ({ replay })), endpoint: endpoint.map((replay) => ({ replay })), 'endpoint-ndjson': ndjson.map((replay) => ({ replay })) },
});

describe('bench --goals rows', () => {
  it("has issue 43's seven rows, the suite's not run", () => {
    expect(ROWS).toHaveLength(7);
    const suite = row(/test suite/);
    expect(suite.script).toBeUndefined();
    expect(suite.read().met).toBeUndefined();
  });

  it("the endpoint's replay: ratio of medians to direct, with the idle goal on an idle machine and the busy one under load", () => {
    const r = row(/history replayed/);
    const data = replay([1000, 1100, 900], [900, 1000, 800], [700, 700, 700]);
    expect(r.read(data, { busyCores: 0.04, load: 0.2 })).toEqual({ now: expect.stringMatching(/^0\.90x \(-o ndjson 0\.70x\); other work 0\.04 cores, load 0\.2: the idle goal \(≥ 0\.95x\) applies/), met: false });
    expect(r.read(data, { busyCores: 1.5, load: 9 })).toEqual({ now: expect.stringMatching(/busy goal \(≥ 0\.8x\)/), met: true });
    // Right after other work ends, the 1-minute average still shows it; the cores busy just before the script do not.
    expect(r.read(data, { busyCores: 0.02, load: cpus().length + 0.5 }).now).toMatch(/the idle goal/);
    expect(r.read(data, { busyCores: 0.9, load: 0.1 }).now).toMatch(/the busy goal/);
    // Without /proc/stat: under the core count the machine is idle.
    expect(r.read(data, { load: cpus().length - 0.5 }).now).toMatch(/^0\.90x \(-o ndjson 0\.70x\); load [0-9.]+: the idle goal/);
  });

  it("falls back to a script's targets text when its data has another shape", () => {
    const data = { targets: [
      { target: 'watch events/s, history replay, through the endpoint, -o ndjson to /dev/null: ≥ 0.8x direct', figure: '0.5x (1 vs 2 events/s)' },
      { target: 'watch events/s, history replay, through the endpoint, no trace subscriber: ≥ 0.8x direct', figure: '0.97x (1 vs 2 events/s)' },
      { target: 'LIST 20,000 pods, pages of 500, through the endpoint, -o ndjson to /dev/null: ≤ 1.3x direct', figure: '1.08x (1 vs 2 ms)' },
    ] };
    expect(row(/history replayed/).read(data, { busyCores: 0, load: 0 }).met).toBe(true);
    expect(row(/LIST of 20,000/).read(data, { busyCores: 0, load: 0 })).toEqual({ now: '1.08x', met: true });
  });

  it('the LIST row reads the paged runs, -o ndjson against direct', () => {
    const data = { pods: 20000, list: { paged: { direct: [{ ms: 100 }, { ms: 110 }], endpoint: [{ ms: 120 }, { ms: 120 }], 'endpoint-ndjson': [{ ms: 130 }, { ms: 125 }] } } };
    expect(row(/LIST of 20,000/).read(data, { busyCores: 0, load: 0 })).toEqual({ now: '20,000 pods; 1.25x (no trace subscriber 1.20x)', met: false });
  });

  it('the tracing row: -o ndjson events/s over tracing off, and the median of the per-round ratios', () => {
    const data = { watch: { modes: {
      'floor: undici + JSON.parse per line': { ok: true, eventsPerSec: 9000, byRound: [9000, 9000, 9000] },
      'kwatch pipeline, tracing off': { ok: true, eventsPerSec: 10000, n: 3, byRound: [10000, 9000, 11000] },
      'kwatch pipeline, -o ndjson tracing to /dev/null': { ok: true, eventsPerSec: 9200, n: 3, byRound: [9200, 8000, 9900] },
    } } };
    expect(row(/tracing on the watch/).read(data)).toEqual({ now: '0.92x (events/s, medians of 3); round by round median 0.90x', met: true });
  });

  it('the replay, stalled-watch and quota rows read their scripts\' fields', () => {
    expect(row(/1 GB recording/).read({ bytes: 50e6, ratio: 2.4 })).toEqual({ now: "50 MB recording: 2.40x of the state's peak RSS", met: false });
    expect(row(/stalled watches/).read({ watchesOpen: 500, rssRatioAt5s: 1.5 })).toEqual({ now: '500 watches: 1.50x of idle 5 s after the close', met: true });
    const quota = row(/quota controller/).read({ podsPerNamespace: 2000, ops: { create: { ratio: 0.95 }, update: { ratio: 1.02 }, delete: { ratio: 0.85 } } });
    expect(quota).toEqual({ now: "2,000 pods per namespace: create 0.95x, update 1.02x, delete 0.85x (requests per CPU s, quota'd / plain)", met: false });
  });

  it('gives no verdict, and does not throw, when a script wrote nothing it can read', () => {
    for (const r of ROWS.filter((x) => x.script)) {
      for (const data of [{}, { targets: 'not a list' }, { watch: { modes: null } }, { ops: { create: {} } }]) {
        expect(r.read(data, { busyCores: 0, load: 0 })).toEqual({ now: 'no figure', met: undefined });
      }
    }
  });
});
