// Benchmark (issue 15): event → handler latency at a steady 200 events/s. The sim (its own process) writes pod
// updates at a steady rate, each stamped with the wall-clock time of the write; two fresh processes watch the same
// stream at the same time — a raw client (undici + JSON.parse per line, nothing else) and kwatch's pipeline
// (SharedIndexInformer + dry-run controller, tracing off) with a handler — and each records, per event, how long
// after the write it saw it. kwatch's overhead is its percentiles minus the raw client's (goal: p99 ≤ raw + 5 ms).
// Run after `npm run build`: node bench/latency.js     (BENCH_QUICK=1: fewer events)
import { fileURLToPath } from 'node:url';
import { QUICK, startLoadNote, fmtSpread, publish, round, spread, table, verdictUnderLoad } from './lib/common.js';
import { startChild } from './lib/child.js';
import { startSim } from './lib/sim.js';

const WORKER = fileURLToPath(new URL('./lib/latency-worker.js', import.meta.url));
const RATE = 200;
const WARM = QUICK ? 200 : 400; // 2 s of warm-up (connections, JIT) that no one measures
const MEASURED = QUICK ? 600 : 2000; // 10 s measured: 2,000 samples per run, so p99 is the 20th slowest
const REPS = QUICK ? 2 : 5;
const GOAL_MS = 5;
const signed = (x) => (x === undefined ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(round(x, 2))}`);

export async function benchLatency(log = console.log) {
  const sim = await startSim({ pods: 1000, nodes: 10, managedFields: true, historyEvents: 200_000 });
  const runs = { raw: [], core: [] };
  try {
    for (let r = 0; r < REPS; r++) {
      // The sim's update sequence counts from 1 and only these runs write: this run's events are known in advance.
      const base = r * (WARM + MEASURED);
      const { rv } = await sim.command({ cmd: 'state' });
      const spec = { url: sim.url, rvFrom: rv, fromSeq: base + WARM + 1, toSeq: base + WARM + MEASURED };
      const workers = Object.fromEntries(['raw', 'core'].map((mode) => [mode, startChild([WORKER, JSON.stringify({ ...spec, mode })])]));
      await Promise.all(Object.values(workers).map((w) => w.line((m) => m.watching)));
      await sim.command({ cmd: 'steady', rate: RATE, n: WARM + MEASURED });
      for (const [mode, w] of Object.entries(workers)) {
        const res = await w.result;
        runs[mode].push(res);
        log(`  latency ${mode} run ${r + 1}: ${res.ok ? `p50 ${res.p50Ms} ms, p99 ${res.p99Ms} ms (${res.n} events)` : `failed: ${res.reason}`}`);
      }
    }
  } finally {
    await sim.close();
  }
  const summary = (mode, key) => spread(runs[mode].filter((x) => x.ok).map((x) => x[key]));
  const out = { rate: RATE, measured: MEASURED, reps: REPS, runs };
  for (const mode of ['raw', 'core']) out[mode] = { p50: summary(mode, 'p50Ms'), p99: summary(mode, 'p99Ms'), max: summary(mode, 'maxMs') };
  // The overhead per run (both clients read the same events at the same time), then its median.
  const pairs = runs.core.map((c, i) => [c, runs.raw[i]]).filter(([c, w]) => c.ok && w?.ok);
  out.overheadP99 = spread(pairs.map(([c, w]) => c.p99Ms - w.p99Ms));
  out.overheadP50 = spread(pairs.map(([c, w]) => c.p50Ms - w.p50Ms));
  out.target = { target: `event → handler p99 at most ${GOAL_MS} ms over a raw watch client (${RATE} events/s)`, met: out.overheadP99 ? out.overheadP99.median <= GOAL_MS : false, figure: out.overheadP99 ? `${signed(out.overheadP99.median)} ms (runs ${signed(out.overheadP99.min)} to ${signed(out.overheadP99.max)} ms)` : 'no paired runs' };
  return out;
}

export function latencyMarkdown(out) {
  const ms = (x) => `${round(x, 2)}`;
  const row = (label, r) => [label, fmtSpread(r.p50, ms), fmtSpread(r.p99, ms), fmtSpread(r.max, ms)];
  return [
    `### Event → handler latency (ms from the sim's write to the client seeing it; ${out.rate} events/s, ${out.measured.toLocaleString('en-US')} events per run after a warm-up, both clients on the same stream at once; median and min–max of ${out.reps} runs)`,
    table(['client', 'p50 ms', 'p99 ms', 'max ms'], [row('raw watch client: undici + JSON.parse per line', out.raw), row('kwatch pipeline to a handler, tracing off', out.core)]),
    table(['target', 'verdict (from medians)', 'figure'], [[out.target.target, verdictUnderLoad(out.target.met), out.target.figure]]),
    `p50 overhead: ${signed(out.overheadP50?.median)} ms. ${startLoadNote()}`,
  ].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await benchLatency();
  publish('latency', out, latencyMarkdown(out));
}
