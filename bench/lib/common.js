// Shared helpers of the benchmark scripts: quick mode, worker processes, results files, markdown tables.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';

export const QUICK = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';
export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));
const WORKER = fileURLToPath(new URL('./sync-worker.js', import.meta.url));

/** Runs one measurement of bench/lib/sync-worker.js in a fresh process; resolves with its JSON result. */
export function runWorker(spec, { timeoutMs = 300_000 } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--expose-gc', '--max-old-space-size=8192', WORKER, JSON.stringify(spec)], { timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const last = stdout.trim().split('\n').pop();
      try {
        return resolve(JSON.parse(last));
      } catch {
        resolve({ ok: false, reason: (err?.killed ? `killed after ${timeoutMs} ms` : '') || stderr.trim().split('\n').pop() || String(err?.message ?? 'no result') });
      }
    });
  });
}

/** The sim's own kubeconfig (the one `kwatch sim` writes) for a sim at `url`. */
export async function writeKubeconfig(file, url) {
  const { kubeconfigYaml } = await import('../../dist/sim/kubeconfig.js');
  writeFileSync(file, kubeconfigYaml(url));
}

/** The middle sample (the lower middle of an even count: a figure some run really produced). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
export const best = (xs) => Math.min(...xs);

/** Median, min, max and count of samples: what every figure is reported as. */
export function spread(xs) {
  if (!xs.length) return undefined;
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** "1,234 (1,200–1,310)": a median and its range, each formatted by `fmt`. */
export function fmtSpread(s, fmt = fmtInt) {
  if (!s) return '—';
  return s.n > 1 ? `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})` : `${fmt(s.median)} (1 run)`;
}

/**
 * The verdict of a target from medians; when the machine was busier than its cores at the start, a miss says
 * so instead of passing for a property of the code.
 */
export function verdictUnderLoad(met, start = START) {
  if (met) return '**met**';
  const busy = start.loadavg[0] > start.cpus;
  return busy ? `**missed** (load average ${start.loadavg[0]} > ${start.cpus} cores at the start: rerun on a quiet machine)` : '**missed**';
}
export const round = (x, d = 0) => (x === undefined || x === null || Number.isNaN(x) ? x : +Number(x).toFixed(d));

/**
 * How many cores other processes kept busy over the next `ms` (Linux's /proc/stat; call it while this benchmark runs
 * nothing): a reading of now. The load average is a decaying one-minute mean, so right after other work ends (a test
 * run, an earlier script) it still reads "busy" for a minute on an idle machine. undefined where /proc/stat is not.
 */
export async function othersBusyCores(ms = 2000) {
  const sample = () => {
    // cpu  user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = sample();
    await new Promise((r) => setTimeout(r, ms));
    const b = sample();
    const total = b.total - a.total;
    return total > 0 ? ((total - (b.idle - a.idle)) / total) * cpus().length : undefined;
  } catch {
    return undefined;
  }
}

/** Where and how the numbers were taken. */
export function machine() {
  return { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavg: loadavg().map((x) => +x.toFixed(2)), quick: QUICK, date: new Date().toISOString() };
}

/** The variable through which `npm run bench` hands its scripts the machine as the whole run found it. */
export const RUN_START_ENV = 'KWATCH_BENCH_RUN_START';

/**
 * The machine when the benchmark started: when run by `npm run bench`, as the whole run found it, because the
 * load average (a decaying one-minute mean) at a later script's start still counts the run's own earlier
 * scripts, which are over and compete with nothing. `scriptLoadavg` is the figure at this script's start.
 */
export const START = startOfRun();

function startOfRun() {
  const here = machine();
  try {
    const run = JSON.parse(process.env[RUN_START_ENV] ?? '');
    if (Array.isArray(run.loadavg)) return { ...here, loadavg: run.loadavg, scriptLoadavg: here.loadavg };
  } catch {
    // Run on its own: this process's start is the benchmark's start.
  }
  return { ...here, scriptLoadavg: here.loadavg };
}

/** "Load average at the start: …" for a script's notes, with the figure at its own start when that differs. */
export function startLoadNote(start = START) {
  const own = start.scriptLoadavg.join(' ') !== start.loadavg.join(' ') ? ` (${start.scriptLoadavg.join(' ')} when this script started, after the run's earlier scripts)` : '';
  return `Load average at the start of the run: ${start.loadavg.join(' ')} on ${start.cpus} cores${own}.`;
}

export function writeResult(name, data) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(`${RESULTS_DIR}${name}.json`, `${JSON.stringify({ machine: machine(), ...data }, null, 2)}\n`);
}

/** A script's results: bench/results/NAME.json (the data) and NAME.md (its tables, which run.js collects), and the tables on stdout. */
export function publish(name, data, markdown) {
  writeResult(name, data);
  writeText(`${name}.md`, `${markdown}\n`);
  console.log(`\n${markdown}\n`);
}

export function writeText(name, text) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(`${RESULTS_DIR}${name}`, text);
}

/** A markdown table from a header row and rows of cells (cli-table3 with markdown's pipes and dashes). */
export function table(header, rows) {
  const pipe = { left: '|', 'left-mid': '|', mid: '-', 'mid-mid': '|', right: '|', 'right-mid': '|', middle: '|' };
  const none = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '' };
  const t = new Table({ head: header.map((c) => String(c).padEnd(3)), chars: { ...none, ...pipe }, style: { head: [], border: [], compact: true } });
  for (const r of rows) t.push(header.map((_, i) => String(r[i] ?? '')));
  return t.toString();
}

export const fmtInt = (n) => (n === undefined || n === null ? '—' : Math.round(n).toLocaleString('en-US'));
export const verdict = (ok) => (ok ? '**met**' : '**missed**');
