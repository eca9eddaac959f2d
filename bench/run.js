// `npm run bench` (after `npm run build`): runs every benchmark script in sequence, each in its own process,
// prints their tables and writes bench/results/*.json, *.md and summary.md (bench/results is gitignored).
// `--docs` also writes docs/benchmarks.md: bench/benchmarks-intro.md (how the numbers are taken), then this
// run's command, time and machine, then every table of this run — so the document never mixes runs.
// BENCH_QUICK=1 shrinks every size for a fast smoke run; `--only a,b` runs some scripts (and the long ones that run
// only when named); `--goals` runs only what issue 43's rows need and prints each row beside its goal (bench/goals.js).
// The sims at 20k and 100k pods are populated once and shared by the scripts marked `sims` (bench/lib/sim.js), which
// run in an order that leaves each what it measures: end-to-end only reads, sync then writes its watch replay's
// updates (at 20k), relist ends watches and compacts the history, sim-throughput writes 5,000 updates at 100k, endpoint
// (last: it writes pod updates and a ConfigMap at 20k) lists, watches and mirrors.
// The tables keep the order of SCRIPTS.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QUICK, RESULTS_DIR, RUN_START_ENV, machine, writeText } from './lib/common.js';
import { SHARED_SIZES, sharedSimOptions, startSharedSims } from './lib/sim.js';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));

const SCRIPTS = [
  { name: 'sim-throughput', title: 'kwatch sim: list and watch throughput', file: 'sim-throughput.js', md: 'sim-throughput.md', sims: true, runOrder: 4 },
  { name: 'sync', title: 'Informer core: sync, watch throughput, heap, ByIndex', file: 'sync.js', md: 'sync.md', sims: true, runOrder: 2 },
  { name: 'end-to-end', title: 'Whole commands next to kubectl and client-node', file: 'end-to-end.js', md: 'end-to-end.md', sims: true, runOrder: 1 },
  { name: 'latency', title: 'Event → handler latency', file: 'latency.js', md: 'latency.md' },
  { name: 'relist', title: 'Relist after 410 Gone', file: 'relist.js', md: 'relist.md', sims: true, runOrder: 3 },
  { name: 'endpoint', title: 'kwatch on the wire: the reconcile --exec / proxy endpoint', file: 'endpoint.js', md: 'endpoint.md', sims: true, runOrder: 5 },
  { name: 'endpoint-stalled', title: 'kwatch on the wire: endpoint memory after stalled watches close', file: 'endpoint-stalled.js', md: 'endpoint-stalled.md' },
  { name: 'live', title: 'The live view: throughput with --live', file: 'live.js', md: 'live.md', optional: true },
  { name: 'discovery', title: 'Discovery cache', file: 'discovery.js', md: 'discovery.md' },
  { name: 'reconcile', title: 'Reconcile runner', file: 'reconcile.js', md: 'reconcile.md' },
  { name: 'sim-quota', title: 'kwatch sim: writes into a namespace with a ResourceQuota', file: 'sim-quota.js', md: 'sim-quota.md', onlyWhenNamed: true },
  { name: 'recording-replay', title: 'Replaying a 1 GB recording: peak RSS against its state', file: 'recording-replay.js', md: 'recording-replay.md' },
  { name: 'index', title: 'Indexer', file: 'index.js', args: QUICK ? ['--pods', '20000'] : [], optional: true },
  { name: 'cold-start', title: 'CLI cold start', file: 'cold-start.js', args: ['--runs', QUICK ? '5' : '11'], optional: true },
];
const argv = process.argv.slice(2);
if (argv.includes('--goals')) {
  // Issue 43's rows beside their goals, measured in one run (bench/goals.js), instead of every benchmark.
  const { runGoals } = await import('./goals.js');
  await runGoals();
  process.exit(0);
}
const DOCS = argv.includes('--docs');
const onlyAt = argv.indexOf('--only');
const ONLY = onlyAt >= 0 ? new Set(argv[onlyAt + 1].split(',')) : undefined;

function run(script, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', here(script.file), ...(script.args ?? [])], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [RUN_START_ENV]: JSON.stringify(m), ...env } });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      process.stdout.write(c);
    });
    child.on('exit', (code) => resolve({ code, out, seconds: Math.round((performance.now() - started) / 1000) }));
  });
}

/**
 * A note when the host's speed moved by more than a tenth between the two calibrations: absolute times taken at
 * different points of the run are then not comparable by that much, while the ratios, from interleaved runs, hold.
 */
function speedDrift(before, after) {
  if (!before || !after) return '';
  const change = after / before - 1;
  if (Math.abs(change) <= 0.1) return '';
  return ` — the host got ${change > 0 ? 'slower' : 'faster'} by ${Math.round(Math.abs(change) * 100)}% during the run: absolute times from its start and its end differ by up to that much for the host alone; the ratios, from interleaved runs, much less`;
}

/** The host's speed now, from a fixed loop in a fresh process (bench/lib/calibrate.js): µs per op, or undefined. */
function calibrate() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [here('lib/calibrate.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out).usPerOp);
      } catch {
        resolve(undefined);
      }
    });
  });
}

const m = machine();
const startedAt = performance.now();
console.log(`kwatch benchmarks${QUICK ? ' (BENCH_QUICK)' : ''}: node ${m.node}, ${m.cpus} × ${m.cpuModel}, load average ${m.loadavg.join(' ')}`);
const speedBefore = await calibrate();
console.log(`host speed: ${speedBefore ?? '?'} µs per op of bench/lib/calibrate.js (lower is faster)\n`);
const sections = new Map();
const timings = [];
// A script marked onlyWhenNamed (sim-quota: 12,000 pods written three ways, tens of minutes) runs only with --only NAME.
const chosen = SCRIPTS.filter((s) => (ONLY ? ONLY.has(s.name) : !s.onlyWhenNamed));
// The scripts sharing the sims run together, by runOrder, where the first of them stands in SCRIPTS.
const firstShared = chosen.findIndex((s) => s.sims);
const runOrder = chosen.map((s, i) => [s.sims ? firstShared + s.runOrder / 10 : i, s]).sort((a, b) => a[0] - b[0]).map(([, s]) => s);
const lastShared = runOrder.findLastIndex((s) => s.sims);
let shared;
for (const [i, script] of runOrder.entries()) {
  if (!existsSync(here(script.file))) {
    if (!script.optional) console.log(`(${script.file} is missing)`);
    continue;
  }
  if (script.sims && !shared) {
    const t0 = performance.now();
    console.log(`\n## shared sims: ${SHARED_SIZES.map((n) => n.toLocaleString('en-US')).join(' and ')} pods\n`);
    shared = await startSharedSims(SHARED_SIZES.map(sharedSimOptions));
    console.log(shared.sims.map((s) => `${s.pods.toLocaleString('en-US')} pods populated in ${s.populateMs} ms (${s.rssMB} MB RSS)`).join('; '));
    timings.push(`shared sims ${Math.round((performance.now() - t0) / 1000)} s`);
  }
  console.log(`\n## ${script.name}\n`);
  // A script that fails before writing its tables must not leave an older run's in this one's documents.
  if (script.md) rmSync(`${RESULTS_DIR}${script.md}`, { force: true });
  const r = await run(script, script.sims ? shared.env : {});
  timings.push(`${script.name} ${r.seconds} s${r.code ? ` (exit ${r.code})` : ''}`);
  if (i === lastShared) await shared.close();
  const heading = `## ${script.title ?? script.name} (\`bench/${script.file}\`, ${r.seconds} s)`;
  if (script.md && existsSync(`${RESULTS_DIR}${script.md}`)) sections.set(script, `${heading}\n\n${readFileSync(`${RESULTS_DIR}${script.md}`, 'utf8').trim()}\n`);
  else {
    writeText(`${script.name}.txt`, r.out);
    sections.set(script, `${heading}\n\n\`\`\`\n${r.out.trim()}\n\`\`\`\n`);
  }
}
await shared?.close();
const speedAfter = await calibrate();
const speed = `host speed (bench/lib/calibrate.js, a fixed JSON.parse loop, lower is faster): ${speedBefore ?? '?'} µs per op at the start, ${speedAfter ?? '?'} at the end${speedDrift(speedBefore, speedAfter)}`;
const ordered = SCRIPTS.filter((s) => sections.has(s)).map((s) => sections.get(s));
const total = Math.round((performance.now() - startedAt) / 1000);
const summary = [`# kwatch benchmarks${QUICK ? ' (BENCH_QUICK)' : ''}`, '', `node ${m.node}, ${m.cpus} × ${m.cpuModel}, load average at start ${m.loadavg.join(' ')}, ${m.date}; ${speed}`, '', `Durations: ${timings.join(', ')}`, '', ...ordered].join('\n');
writeText('summary.md', `${summary}\n`);
if (DOCS) {
  const intro = readFileSync(here('benchmarks-intro.md'), 'utf8').trim();
  const command = `${QUICK ? 'BENCH_QUICK=1 ' : ''}npm run bench -- --docs${ONLY ? ` --only ${[...ONLY].join(',')}` : ''}`;
  const run = [
    '## This run',
    '',
    `Every table below is from one run of \`${command}\` at ${m.date.slice(0, 16).replace('T', ' ')} UTC, which took ${Math.floor(total / 60)} min ${total % 60} s`,
    `(${timings.join(', ')}), on node ${m.node}, ${m.cpus} × ${m.cpuModel}; load average at the start ${m.loadavg.join(' ')}${m.loadavg[0] > m.cpus ? ' — above the core count: the machine was busy, read the verdicts with that in mind' : ''};`,
    `${speed}. The loop does the same work every time: compare it between runs to see what the host itself changed.`,
  ].join('\n');
  writeFileSync(here('../docs/benchmarks.md'), `${intro}\n\n${run}\n\n${ordered.join('\n')}`);
  console.log('Wrote docs/benchmarks.md');
}
console.log(`\nDurations: ${timings.join(', ')}\n${speed}\nResults: ${RESULTS_DIR}summary.md`);
