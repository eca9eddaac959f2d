#!/usr/bin/env node
// `npm run mutate -- [FOLDER...] [STRYKER OPTIONS]`: StrykerJS on the named folders (stryker.config.mjs lists
// them: endpoint, faults, reconcile, sim, code-cache, discovery, trace-export, informer), each in its own run with its own
// incremental file, so a later run of the same folder re-tests only what changed. No folder: all of them, one after the other.
// Other arguments go to Stryker as they are, e.g. `npm run mutate -- faults --concurrency 2`, or
// `npm run mutate -- --mutate 'src/faults/watch-faults.ts'` for any set of files (one run, no folder), and
// `--tests GLOBS` to run only those test files against the mutants (a lower bound, much faster).
// On a loaded 2-core machine add `--ignoreStatic`: the few mutants of module-level constants run every related
// test each and take most of a run's time (docs/mutation.md has the figures).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTATION_GROUPS } from '../stryker.config.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const names = [];
const passThrough = [];
// --tests GLOBS (comma-separated): only these test files run against the mutants (vitest.stryker.config.ts says why).
let tests;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--tests') tests = args[++i] ?? '';
  else if (arg.startsWith('--tests=')) tests = arg.slice('--tests='.length);
  else if (!arg.startsWith('-') && passThrough.length === 0) names.push(arg.replace(/^src\//, '').replace(/\/$/, ''));
  else passThrough.push(arg);
}
if (tests !== undefined && tests.trim() === '') {
  process.stderr.write('error: --tests needs comma-separated test file globs, e.g. --tests test/faults/watch-faults.test.ts\n');
  process.exit(2);
}
const unknown = names.filter((name) => !(name in MUTATION_GROUPS));
if (unknown.length > 0) {
  process.stderr.write(`error: no mutation folder named ${unknown.join(', ')} (choose from ${Object.keys(MUTATION_GROUPS).join(', ')})\n`);
  process.exit(2);
}
if (!existsSync(join(root, 'node_modules', '@stryker-mutator', 'core'))) {
  process.stderr.write('error: StrykerJS is not installed: run `npm ci` first\n');
  process.exit(2);
}
// A few unit tests that Stryker's vitest runs also read built files (load-bundle.test.ts loads
// dist/cli/load-bundle.js, module-loader.test.ts and public-types.test.ts use dist/ too): they cannot kill a
// mutant, but without dist/ they fail Stryker's initial test run, so a fresh clone builds it first.
if (!existsSync(join(root, 'dist', 'cli', 'load-bundle.js')) || !existsSync(join(root, 'dist', 'index.d.ts'))) {
  process.stdout.write('dist/ is not built: running `npm run build` first (some unit tests read the built files)\n');
  const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    process.stderr.write('error: `npm run build` failed: mutation testing needs dist/\n');
    process.exit(2);
  }
}
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const ownMutate = passThrough.includes('--mutate') || passThrough.includes('-m');
const runs = ownMutate && names.length === 0 ? [undefined] : (names.length > 0 ? names : Object.keys(MUTATION_GROUPS));

/** `src/reconcile/a.ts,src/reconcile/b.ts:3-9` → `a+b`; a hash where that would be too long for a file name. */
function partName(mutate) {
  const part = mutate.split(',').map((file) => basename(file.trim().replace(/:[\d-]+$/, '')).replace(/\.[cm]?[jt]s$/, '')).filter(Boolean).join('+');
  return part.length <= 60 ? part : createHash('sha256').update(mutate).digest('hex').slice(0, 12);
}

let failed = 0;
for (const name of runs) {
  if (name !== undefined) process.stdout.write(`\n== mutation testing: ${name} (${MUTATION_GROUPS[name].join(' ')})\n`);
  const env = { ...process.env };
  if (tests !== undefined) env.KWATCH_MUTATION_TESTS = tests;
  if (name === undefined) delete env.KWATCH_MUTATION_GROUP;
  else env.KWATCH_MUTATION_GROUP = name;
  // A run of some files (--mutate) keeps its own reports and incremental file: Stryker's incremental file holds
  // only the mutants of its last run, so a run of one file would otherwise drop the whole folder's results.
  if (ownMutate) env.KWATCH_MUTATION_PART = partName(passThrough[passThrough.findIndex((a) => a === '--mutate' || a === '-m') + 1] ?? '');
  else delete env.KWATCH_MUTATION_PART;
  const started = Date.now();
  const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs', ...passThrough], { cwd: root, env, stdio: 'inherit' });
  process.stdout.write(`== ${name ?? 'mutation testing'}: ${((Date.now() - started) / 60_000).toFixed(1)} min, exit ${run.status ?? run.signal}\n`);
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
