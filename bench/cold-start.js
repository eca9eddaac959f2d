// Benchmark: cold start of `kwatch --version` and `kwatch events --help` against `node -e 0`
// (the budget: at most 2.5x). Runs are interleaved so machine load hits all three alike.
// Run after `npm run build`: node bench/cold-start.js [--runs N]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const BUDGET = 2.5;

const CASES = {
  'node -e 0': ['-e', '0'],
  'kwatch --version': [BIN, '--version'],
  'kwatch events --help': [BIN, 'events', '--help'],
};

function once(args) {
  const start = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
  return performance.now() - start;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Returns { [case]: medianMs, ratios: { [case]: ratio to node -e 0 } }. */
export function benchColdStart({ runs = 21 } = {}) {
  const samples = Object.fromEntries(Object.keys(CASES).map((k) => [k, []]));
  for (const args of Object.values(CASES)) once(args); // warm the file system cache
  for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(CASES)) samples[name].push(once(args));
  const medians = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
  const base = medians['node -e 0'];
  const ratios = Object.fromEntries(Object.entries(medians).filter(([k]) => k !== 'node -e 0').map(([k, ms]) => [k, ms / base]));
  return { medians, ratios };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const { medians, ratios } = benchColdStart({ runs: i > 0 ? Number(process.argv[i + 1]) : 21 });
  for (const [name, ms] of Object.entries(medians)) {
    const ratio = ratios[name];
    const verdict = ratio === undefined ? '' : `  ${ratio.toFixed(2)}x node -e 0 (budget ${BUDGET}x: ${ratio <= BUDGET ? 'ok' : 'OVER'})`;
    console.log(`${name.padEnd(22)} ${ms.toFixed(1).padStart(7)} ms${verdict}`);
  }
}
