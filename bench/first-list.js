// Benchmark: what users wait for on the first LIST — the built CLI end to end, fresh processes, interleaved
// with the paged floor against the same sim in the same run. Uses the build (npm run build first).
// Usage: node bench/first-list.js [--pods 100000] [--runs 5] [--commands index,events,list] [--compare DIR]
// --url URL measures against a sim already running (bench/lib/sim-child.js) instead of starting one.
// --compare DIR also runs each command from another built checkout (DIR/bin/run.js), interleaved: A/B of a change.
//
// Each run starts every command once, in turn (floor, then each kwatch command), so load on a shared machine
// hits all of them alike; figures are medians with min–max. Wall time and peak RSS come from
// /usr/bin/time -v around the process (the floor's wall includes its Node start-up, as the CLI's does).
//   floor   bench/lib/sync-worker.js floor-paged: undici GET ?limit=500 pages + JSON.parse of each, nothing else
//   index   kwatch index pods --by nodeName -A          (first LIST as client-go: resourceVersion=0, one body)
//   events  kwatch events pods -A --until-synced -o ndjson
//   list    kwatch list pods -A -o name
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table, writeKubeconfig } from './lib/common.js';
import { startSim } from './lib/sim.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const PODS = Number(arg('pods', 100_000));
const RUNS = Number(arg('runs', 5));
const COMMANDS = arg('commands', 'index,events,list').split(',');
const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const COMPARE = arg('compare', undefined);
const binOf = (c) => (c.endsWith('@compare') ? join(COMPARE, 'bin/run.js') : BIN);
const argsOf = (c) => COMMAND_ARGS[c.replace('@compare', '')];
const WORKER = fileURLToPath(new URL('./lib/sync-worker.js', import.meta.url));

/** Wall ms and peak RSS (MB) of one process, from /usr/bin/time -v; rejects when it fails. */
function timed(argv, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    execFile('/usr/bin/time', ['-v', ...argv], { env: { ...process.env, ...env }, maxBuffer: 1 << 30, timeout: 600_000 }, (err, stdout, stderr) => {
      const ms = performance.now() - start;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const cpu = ['User', 'System'].reduce((sum, k) => sum + Number(new RegExp(`${k} time \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? NaN), 0);
      if (err) return reject(new Error(`${argv.join(' ')}: ${stderr.trim().split('\n').slice(-25, -23).join(' ') || err.message}`));
      resolve({ ms, cpuMs: cpu * 1000, rssMB: rss ? Number(rss[1]) / 1024 : NaN, stdout });
    });
  });
}

const COMMAND_ARGS = {
  index: ['index', 'pods', '--by', 'nodeName', '-A'],
  events: ['events', 'pods', '-A', '--until-synced', '-o', 'ndjson'],
  list: ['list', 'pods', '-A', '-o', 'name'],
};

const dir = mkdtempSync(join(tmpdir(), 'kwatch-first-list-'));
const URL_ARG = arg('url', undefined);
const sim = URL_ARG ? { url: URL_ARG, close: async () => {} } : await startSim({ pods: PODS, nodes: Math.max(1, Math.round(PODS / 1000)) });
const kubeconfig = join(dir, 'kubeconfig');
await writeKubeconfig(kubeconfig, sim.url);
// Discovery and the CLI's caches in the temporary folder, never the user's.
const env = { KUBECONFIG: kubeconfig, HOME: dir, KUBECACHEDIR: join(dir, 'cache') };
const load = loadavg()[0];
const RUNNERS = COMPARE ? COMMANDS.flatMap((c) => [c, `${c}@compare`]) : COMMANDS;
const samples = Object.fromEntries(['floor', ...RUNNERS].map((k) => [k, []]));
const results = {};
try {
  // A warm-up of each CLI command (discovery cache, page cache) before the measured runs.
  for (const c of RUNNERS) await timed([process.execPath, binOf(c), ...argsOf(c)], env);
  for (let r = 0; r < RUNS; r++) {
    samples.floor.push(await timed([process.execPath, '--max-old-space-size=8192', WORKER, JSON.stringify({ mode: 'floor-paged', url: sim.url, pods: PODS })], env));
    for (const c of RUNNERS) samples[c].push(await timed([process.execPath, binOf(c), ...argsOf(c)], env));
    process.stderr.write(`run ${r + 1}/${RUNS}: ${Object.entries(samples).map(([k, s]) => `${k} ${Math.round(s.at(-1).ms)} ms (cpu ${Math.round(s.at(-1).cpuMs)}) ${Math.round(s.at(-1).rssMB)} MB`).join(', ')}\n`);
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
const stat = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
for (const [k, s] of Object.entries(samples)) results[k] = { ms: stat(s.map((x) => x.ms)), cpuMs: stat(s.map((x) => x.cpuMs)), rssMB: stat(s.map((x) => x.rssMB)) };
const floor = results.floor.ms.median;
const cell = (st, unit) => `${Math.round(st.median).toLocaleString('en-US')} ${unit} (${Math.round(st.min).toLocaleString('en-US')}–${Math.round(st.max).toLocaleString('en-US')})`;
console.log(`${PODS.toLocaleString('en-US')} pods, ${RUNS} interleaved runs, load average ${load.toFixed(1)} at the start, Node ${process.version}\n`);
console.log(
  table(
    ['process', 'wall, median (min–max)', 'vs floor', 'CPU (user+sys), median (min–max)', 'vs floor', 'peak RSS, median (min–max)'],
    Object.entries(results).map(([k, r]) => [
      k === 'floor' ? 'floor: undici + JSON.parse, pages of 500' : `kwatch ${argsOf(k).join(' ')}${k.endsWith('@compare') ? ` (${COMPARE})` : ''}`,
      cell(r.ms, 'ms'),
      `${(r.ms.median / floor).toFixed(2)}x`,
      cell(r.cpuMs, 'ms'),
      `${(r.cpuMs.median / results.floor.cpuMs.median).toFixed(2)}x`,
      cell(r.rssMB, 'MB'),
    ]),
  ),
);
console.log(`\n${JSON.stringify({ pods: PODS, runs: RUNS, load, results })}`);
