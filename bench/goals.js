// `node bench/run.js --goals` (after `npm run build`): issue 43's rows, each beside its goal, measured in one run.
// Runs only the benchmarks behind those rows, each in its own process as run.js runs them, then reads what each wrote
// to bench/results/NAME.json (its data first; its `targets` text when the data has another shape than the one read
// here, since other scripts change) and prints `row | goal | now | met/missed` (also bench/results/goals.md).
// The test suite's row is not run here (the suite takes minutes on its own): it is printed as not measured.
// BENCH_QUICK=1 shrinks every size (a smoke run); KWATCH_BENCH_RECORDING_BYTES sets the replayed recording's size
// (default 1 GB, 50 MB with BENCH_QUICK). The quota row always runs sim-quota at its BENCH_QUICK size (2,000 pods per
// namespace; the full 12,000 take tens of minutes).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { QUICK, RESULTS_DIR, RUN_START_ENV, machine, median, othersBusyCores, table, writeText } from './lib/common.js';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const CORES = cpus().length;

/** One figure: `now` as printed, `met` true/false, or undefined when the script gave nothing to judge. */
const figure = (now, met) => ({ now, met });
const x = (n) => `${n.toFixed(2)}x`;
const firstRatio = (text) => {
  const m = /(\d+(?:\.\d+)?)x/.exec(String(text ?? ''));
  return m ? Number(m[1]) : undefined;
};
/** The first target whose text matches every pattern (the scripts' `targets`: [{ target, met, figure }]). */
const targetOf = (data, ...patterns) => (Array.isArray(data?.targets) ? data.targets.find((t) => patterns.every((p) => p.test(String(t.target)))) : undefined);
const medianOf = (runs, pick) => {
  const xs = Array.isArray(runs) ? runs.map(pick).filter((v) => typeof v === 'number' && Number.isFinite(v)) : [];
  return xs.length ? median(xs) : undefined;
};

/**
 * What else the machine was doing when a script started: `busyCores`, the cores other processes kept busy over the 2 s
 * before it (othersBusyCores), and the one-minute load average beside it.
 * @typedef {{ busyCores?: number, load: number }} Activity
 */

/**
 * "idle" when other processes kept less than half a core busy just before the script started. Without that reading
 * (not Linux), when the load average is under the core count: the tail of work that just ended still shows in the
 * 1-minute average, so it reads a machine as busy for a minute after a test run on it ends.
 * @param {Activity} a
 */
const idle = (a) => (a.busyCores !== undefined ? a.busyCores < 0.5 : a.load < CORES);
/** "other work 0.03 cores, load 2.5" (or "load 2.5" alone). @param {Activity} a */
const activityText = (a) => `${a.busyCores !== undefined ? `other work ${a.busyCores.toFixed(2)} cores, ` : ''}load ${a.load.toFixed(1)}`;

/** The endpoint's replay through the endpoint against direct, from its runs (or its targets' text). */
function endpointReplay(data, variant) {
  const d = medianOf(data?.watch?.direct, (r) => r.replay);
  const e = medianOf(data?.watch?.[variant], (r) => r.replay);
  if (d && e) return e / d;
  const t = targetOf(data, /history replay/i, variant === 'endpoint' ? /no trace subscriber/i : /ndjson/i);
  return firstRatio(t?.figure);
}

function endpointList(data, variant) {
  const d = medianOf(data?.list?.paged?.direct, (r) => r.ms);
  const e = medianOf(data?.list?.paged?.[variant], (r) => r.ms);
  if (d && e) return e / d;
  const t = targetOf(data, /LIST/, /pages of/i, variant === 'endpoint' ? /no trace subscriber/i : /ndjson/i);
  return firstRatio(t?.figure);
}

const SCRIPTS = {
  endpoint: { file: 'endpoint.js', env: { BENCH_ENDPOINT_PARTS: 'wire' } },
  sync: { file: 'sync.js', env: { BENCH_SYNC_PARTS: 'tracing' } },
  'recording-replay': { file: 'recording-replay.js', env: {} },
  'endpoint-stalled': { file: 'endpoint-stalled.js', env: {} },
  'sim-quota': { file: 'sim-quota.js', env: { BENCH_QUICK: '1' } },
};

/** Issue 43's rows, in its order: the script each needs and how its figure is read. */
export const ROWS = [
  {
    row: 'watch history replayed through the `--exec`/`proxy` endpoint (no trace subscriber; -o ndjson beside it)',
    goal: '≥ 0.95x of direct idle, ≥ 0.8x with the three on 2 busy cores',
    script: 'endpoint',
    read(data, activity) {
      const r = endpointReplay(data, 'endpoint');
      if (r === undefined) return figure('no figure', undefined);
      const nd = endpointReplay(data, 'endpoint-ndjson');
      const want = idle(activity) ? 0.95 : 0.8;
      return figure(`${x(r)}${nd !== undefined ? ` (-o ndjson ${x(nd)})` : ''}; ${activityText(activity)}: the ${idle(activity) ? 'idle' : 'busy'} goal (≥ ${want}x) applies`, r >= want);
    },
  },
  {
    row: 'LIST of 20,000 pods in pages of 500 through the endpoint with `-o ndjson`',
    goal: '≤ 1.10x of direct',
    script: 'endpoint',
    read(data) {
      const r = endpointList(data, 'endpoint-ndjson');
      if (r === undefined) return figure('no figure', undefined);
      const none = endpointList(data, 'endpoint');
      const pods = data?.pods ? `${data.pods.toLocaleString('en-US')} pods; ` : '';
      return figure(`${pods}${x(r)}${none !== undefined ? ` (no trace subscriber ${x(none)})` : ''}`, r <= 1.1);
    },
  },
  {
    row: '`-o ndjson` tracing on the watch benchmark',
    goal: '≥ 0.9x of tracing off',
    script: 'sync',
    read(data) {
      const modes = data?.watch?.modes ?? {};
      const off = Object.entries(modes).find(([k]) => /tracing off/i.test(k))?.[1];
      const nd = Object.entries(modes).find(([k]) => /ndjson/i.test(k))?.[1];
      let r;
      let rounds = '';
      if (off?.ok && nd?.ok) {
        r = nd.eventsPerSec / off.eventsPerSec;
        const byRound = (nd.byRound ?? []).map((v, i) => (v && off.byRound?.[i] ? v / off.byRound[i] : undefined)).filter((v) => v !== undefined);
        if (byRound.length) rounds = `; round by round median ${x(median(byRound))}`;
      } else r = firstRatio(targetOf(data, /ndjson tracing/i)?.figure);
      if (r === undefined) return figure('no figure', undefined);
      return figure(`${x(r)} (events/s, medians of ${nd?.n ?? '?'})${rounds}`, r >= 0.9);
    },
  },
  {
    row: 'replay of a 1 GB recording',
    goal: 'peak RSS ≤ 2x its state, V8’s heap not capped',
    script: 'recording-replay',
    read(data) {
      const r = typeof data?.ratio === 'number' ? data.ratio : typeof data?.replayPeak === 'number' && data?.referencePeak ? data.replayPeak / data.referencePeak : undefined;
      if (r === undefined) return figure('no figure', undefined);
      const size = typeof data.bytes === 'number' ? `${Math.round(data.bytes / 1e6).toLocaleString('en-US')} MB recording: ` : '';
      return figure(`${size}${x(r)} of the state's peak RSS`, r <= 2);
    },
  },
  {
    row: 'endpoint memory after 2,000 stalled watches close',
    goal: 'RSS back under 2x its idle size within 5 s',
    script: 'endpoint-stalled',
    read(data) {
      const r = typeof data?.rssRatioAt5s === 'number' ? data.rssRatioAt5s : data?.after?.at?.(-1)?.rss && data?.idle?.rss ? data.after.at(-1).rss / data.idle.rss : undefined;
      if (r === undefined) return figure('no figure', undefined);
      const n = data.watchesOpen ?? data.watches;
      return figure(`${n !== undefined ? `${Number(n).toLocaleString('en-US')} watches: ` : ''}${x(r)} of idle 5 s after the close`, r <= 2);
    },
  },
  {
    row: "the sim's quota controller in a namespace with thousands of pods (sim-quota at its quick size)",
    goal: "recount on change only; writes at the plain namespace's rate ± 10%",
    script: 'sim-quota',
    read(data) {
      const ops = data?.ops && typeof data.ops === 'object' ? Object.entries(data.ops) : [];
      const ratios = ops.map(([op, o]) => [op, typeof o?.ratio === 'number' ? o.ratio : undefined]).filter(([, r]) => r !== undefined);
      if (!ratios.length) return figure('no figure', undefined);
      const pods = data.podsPerNamespace ? `${Number(data.podsPerNamespace).toLocaleString('en-US')} pods per namespace: ` : '';
      return figure(`${pods}${ratios.map(([op, r]) => `${op} ${x(r)}`).join(', ')} (requests per CPU s, quota'd / plain)`, ratios.every(([, r]) => Math.abs(r - 1) <= 0.1));
    },
  },
  { row: 'the whole test suite on a 2-core machine', goal: '≤ 5 minutes idle', script: undefined, read: () => figure('not run by --goals (time `npm test` on its own)', undefined) },
];

function run(file, env, start) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', here(file)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [RUN_START_ENV]: JSON.stringify(start), ...env } });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      process.stdout.write(c);
    });
    child.on('exit', (code) => resolve({ code, out, seconds: Math.round((performance.now() - started) / 1000) }));
  });
}

/** What the machine was doing at the first script's start: a busy one makes a missed goal the machine's, maybe. */
function startNote(first, m) {
  if (first?.busyCores !== undefined) return `; other processes kept ${first.busyCores.toFixed(2)} of ${m.cpus} cores busy just before${idle(first) ? '' : ': a missed goal may be the machine'}`;
  return m.loadavg[0] > m.cpus ? ' — above the core count: a missed goal may be the machine' : '';
}

const verdictCell = (met) => (met === true ? '**met**' : met === false ? '**missed**' : '—');

/** Runs the scripts the rows need (each once), then prints and returns the goals table. */
export async function runGoals(log = console.log) {
  const startedAt = performance.now();
  const m = machine();
  log(`kwatch issue 43 goals${QUICK ? ' (BENCH_QUICK)' : ''}: node ${m.node}, ${m.cpus} × ${m.cpuModel}, load average ${m.loadavg.join(' ')}`);
  const results = {};
  const durations = [];
  for (const name of [...new Set(ROWS.map((r) => r.script).filter(Boolean))]) {
    const { file, env } = SCRIPTS[name];
    const json = `${RESULTS_DIR}${name}.json`;
    // A script that fails must not leave an older run's figures in this one's table.
    rmSync(json, { force: true });
    const activity = { busyCores: await othersBusyCores(), load: loadavg()[0] };
    log(`\n## ${name} (${activityText(activity)})\n`);
    const r = await run(file, env, m);
    durations.push(`${name} ${r.seconds} s${r.code ? ` (exit ${r.code})` : ''}`);
    let data;
    try {
      data = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : undefined;
    } catch {
      data = undefined;
    }
    results[name] = { data, activity, code: r.code };
  }
  const rows = ROWS.map((row) => {
    if (!row.script) return [row.row, row.goal, row.read().now, '—'];
    const res = results[row.script];
    let f;
    try {
      f = res.data ? row.read(res.data, res.activity) : figure(`${row.script} wrote no results (exit ${res.code})`, undefined);
    } catch (e) {
      f = figure(`could not read ${row.script}'s results: ${String(e?.message ?? e).split('\n')[0]}`, undefined);
    }
    return [row.row, row.goal, f.now, verdictCell(f.met)];
  });
  const total = Math.round((performance.now() - startedAt) / 1000);
  const md = [
    `### Issue 43's rows beside their goals (\`${QUICK ? 'BENCH_QUICK=1 ' : ''}node bench/run.js --goals\`, ${m.date.slice(0, 16).replace('T', ' ')} UTC, ${Math.floor(total / 60)} min ${total % 60} s)`,
    '',
    table(['row', 'goal', 'now', 'met/missed'], rows),
    '',
    `Node ${m.node}, ${m.cpus} × ${m.cpuModel}; load average at the start ${m.loadavg.join(' ')}${startNote(Object.values(results)[0]?.activity, m)}. Durations: ${durations.join(', ')}.${QUICK ? ' BENCH_QUICK: every size shrunk, a smoke run, not the issue\'s figures.' : ''}`,
  ].join('\n');
  writeText('goals.md', `${md}\n`);
  log(`\n${md}\n`);
  return { rows, md };
}
