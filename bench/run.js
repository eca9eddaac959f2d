// `npm run bench` (after `npm run build`): runs every benchmark script in sequence, each in its own process,
// prints their tables and writes bench/results/*.json, *.md and summary.md (bench/results is gitignored).
// BENCH_QUICK=1 shrinks every size for a fast smoke run. Scripts: sim-throughput, sync, discovery (this
// suite), plus index and cold-start when present.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QUICK, RESULTS_DIR, machine, writeText } from './lib/common.js';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));

const SCRIPTS = [
  { name: 'sim-throughput', file: 'sim-throughput.js', md: 'sim-throughput.md' },
  { name: 'sync', file: 'sync.js', md: 'sync.md' },
  { name: 'discovery', file: 'discovery.js', md: 'discovery.md' },
  { name: 'reconcile', file: 'reconcile.js', md: 'reconcile.md' },
  { name: 'live', file: 'live.js', md: 'live.md' },
  { name: 'index', file: 'index.js', args: QUICK ? ['--pods', '20000'] : [], optional: true },
  { name: 'cold-start', file: 'cold-start.js', args: QUICK ? ['--runs', '5'] : [], optional: true },
];

function run(script) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', here(script.file), ...(script.args ?? [])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      process.stdout.write(c);
    });
    child.on('exit', (code) => resolve({ code, out, seconds: Math.round((performance.now() - started) / 1000) }));
  });
}

const m = machine();
console.log(`kwatch benchmarks${QUICK ? ' (BENCH_QUICK)' : ''}: node ${m.node}, ${m.cpus} × ${m.cpuModel}, load average ${m.loadavg.join(' ')}\n`);
const sections = [];
const timings = [];
for (const script of SCRIPTS) {
  if (!existsSync(here(script.file))) {
    if (!script.optional) console.log(`(${script.file} is missing)`);
    continue;
  }
  console.log(`\n## ${script.name}\n`);
  const r = await run(script);
  timings.push(`${script.name} ${r.seconds} s${r.code ? ` (exit ${r.code})` : ''}`);
  if (script.md && existsSync(`${RESULTS_DIR}${script.md}`)) sections.push(`## ${script.name}\n\n${readFileSync(`${RESULTS_DIR}${script.md}`, 'utf8')}`);
  else {
    writeText(`${script.name}.txt`, r.out);
    sections.push(`## ${script.name}\n\n\`\`\`\n${r.out.trim()}\n\`\`\``);
  }
}
const summary = [`# kwatch benchmarks${QUICK ? ' (BENCH_QUICK)' : ''}`, '', `node ${m.node}, ${m.cpus} × ${m.cpuModel}, load average at start ${m.loadavg.join(' ')}, ${m.date}`, '', `Durations: ${timings.join(', ')}`, '', ...sections].join('\n');
writeText('summary.md', `${summary}\n`);
console.log(`\nDurations: ${timings.join(', ')}\nResults: ${RESULTS_DIR}summary.md`);
