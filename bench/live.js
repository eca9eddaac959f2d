// Benchmark (issue 13): does `--live` slow the pipeline? The kwatch pipeline (informer + dry-run controller)
// replays WATCH_EVENTS pod updates (~6.7 KB each) from the sim's watch history as fast as it can, in fresh
// processes, interleaved: tracing off, and with everything `kwatch events --live` does (the trace on, the
// dashboard's aggregators subscribed, ink drawing 10 frames a second into a fake terminal: a Writable with
// isTTY, 160×45 — no pseudo-terminal, so the terminal's own speed is not measured). Best of REPS each.
// Throughput is reported two ways: events per wall-clock second, and events per CPU second of the process
// (user + system). On a shared machine the wall clock mostly measures how long the process waited for a
// core; the CPU time is what the work costs, so the goal is judged on it.
// Goal: --live ≥ 0.8× the tracing-off throughput, with the pipeline running at or above 20k events/s.
// Run after `npm run build`: node bench/live.js     (BENCH_QUICK=1 for a small, fast run)
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { QUICK, best, fmtInt, publish, round, table, verdict } from './lib/common.js';
import { startSim } from './lib/sim.js';

const PODS = QUICK ? 2000 : 5000;
const WATCH_EVENTS = QUICK ? 5000 : 20000;
const REPS = QUICK ? 2 : 5;
const GOAL = 0.8;
const WORKER = fileURLToPath(new URL('./lib/live-worker.js', import.meta.url));
const MODES = [
  ['tracing off', { live: false }],
  ['--live (aggregators + ink at 10 fps)', { live: true }],
  ['breakdown: trace records, a listener doing nothing', { live: 'trace' }],
  ['breakdown: trace + the aggregators, nothing drawn', { live: 'aggregators' }],
];

function runLiveWorker(spec, timeoutMs = 300_000) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--max-old-space-size=4096', WORKER, JSON.stringify(spec)], { timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()));
      } catch {
        resolve({ ok: false, reason: stderr.trim().split('\n').pop() || String(err?.message ?? 'no result') });
      }
    });
  });
}

export async function benchLive(log = console.log) {
  log(`live: starting the sim with ${PODS} pods…`);
  const sim = await startSim({ pods: PODS, nodes: Math.max(1, Math.round(PODS / 1000)), managedFields: true, historyEvents: WATCH_EVENTS * 2, bookmarkIntervalMs: 60_000 });
  const runs = Object.fromEntries(MODES.map(([k]) => [k, []]));
  let events;
  try {
    const u = await sim.command({ cmd: 'update', n: WATCH_EVENTS });
    events = u.to - u.from;
    for (let r = 0; r < REPS; r++) {
      for (const [k, mode] of MODES) {
        const res = await runLiveWorker({ url: sim.url, rvFrom: u.from, rvTo: u.to, ...mode });
        runs[k].push(res);
        log(`  ${k}: ${res.ok ? `${fmtInt(res.eventsPerSec)} events/s (${fmtInt(res.eventsPerCpuSec)} per CPU second), event loop ${Math.round(res.elu * 100)}% busy${res.bytesDrawn ? `, ${fmtInt(res.bytesDrawn / 1024)} KiB drawn` : ''}` : `failed: ${res.reason}`}`);
      }
    }
  } finally {
    await sim.close();
  }
  const summary = Object.fromEntries(
    Object.entries(runs).map(([k, rs]) => {
      const ok = rs.filter((x) => x.ok && x.events >= events);
      if (!ok.length) return [k, { ok: false, reason: rs[0]?.reason ?? 'incomplete' }];
      const ms = best(ok.map((x) => x.ms));
      const cpuMs = best(ok.map((x) => x.cpuMs));
      return [k, { ok: true, ms: round(ms), cpuMs: round(cpuMs), eventsPerSec: round((events / ms) * 1000), eventsPerCpuSec: round((events / cpuMs) * 1000), runs: ok.map((x) => x.eventsPerSec), cpuRuns: ok.map((x) => x.eventsPerCpuSec), elu: ok.map((x) => x.elu) }];
    }),
  );
  const off = summary[MODES[0][0]];
  const live = summary[MODES[1][0]];
  const ratio = off.ok && live.ok ? round(live.eventsPerCpuSec / off.eventsPerCpuSec, 2) : undefined;
  const wallRatio = off.ok && live.ok ? round(live.eventsPerSec / off.eventsPerSec, 2) : undefined;
  const out = { pods: PODS, events, reps: REPS, modes: summary, ratio, wallRatio, goal: GOAL, met: ratio !== undefined && ratio >= GOAL && live.eventsPerCpuSec >= 20000 };
  const md = [
    `Watch throughput, ${fmtInt(events)} pod updates replayed from the sim's history (best of ${REPS} interleaved runs, fresh process each):`,
    '',
    table(
      ['mode', 'events per CPU s', 'vs tracing off', 'events per wall s', 'vs tracing off', 'runs (per CPU s)'],
      MODES.map(([k]) => {
        const m = summary[k];
        return m.ok
          ? [k, fmtInt(m.eventsPerCpuSec), off.ok ? `${round(m.eventsPerCpuSec / off.eventsPerCpuSec, 2)}×` : '—', fmtInt(m.eventsPerSec), off.ok ? `${round(m.eventsPerSec / off.eventsPerSec, 2)}×` : '—', m.cpuRuns.map(fmtInt).join(', ')]
          : [k, 'failed', '—', '—', '—', m.reason];
      }),
    ),
    '',
    `Goal: --live ≥ ${GOAL}× tracing off at ≥ 20k events/s: ${ratio ?? '—'}× (per CPU second; ${wallRatio ?? '—'}× by the wall clock) at ${live.ok ? fmtInt(live.eventsPerCpuSec) : '—'} events per CPU second — ${verdict(out.met)}.`,
  ].join('\n');
  publish('live', out, md);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLive();
