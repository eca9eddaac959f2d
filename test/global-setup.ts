// Before any test: the kubectl the suite judges the embedded server with must be new enough, or the run
// stops here with one line, instead of dozens of failures about unknown flags.
// The run gets a temporary folder of its own (TMPDIR, which the test processes and every CLI they start
// inherit), so that after it this file can check that no test left a kwatch-* folder behind — other suites
// running at the same time on the machine have their own — and then remove the folder whatever it holds.
// It also holds one cache folder (XDG_CACHE_HOME) for the whole run: on every Node the CLI keeps V8's compiled
// bundle there (src/cli/bundle-code-cache.ts), and with each test file's own HOME every file's first CLI run was
// a cold compile (~0.3 s of CPU). The tests of the cache itself set or clear XDG_CACHE_HOME for their runs.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedKubectl, kubectlFloorProblem } from './kubectl-lookup.js';

/** Folders tests make start with this (and so do the ones the CLI makes, e.g. kwatch-sim). */
const TEST_FOLDER = /^kwatch-/;

export default function setup(): () => void {
  const problem = kubectlFloorProblem(installedKubectl());
  if (problem !== undefined) {
    process.stderr.write(`error: ${problem}\n`);
    process.exit(1);
  }
  // vitest runs this once per project (vitest.config.ts has three) in one process: the first makes the folder, the
  // others share it and leave the check to the first. A global, not an environment variable, which a vitest the
  // tests start (test/suite/) would inherit.
  const shared = globalThis as { kwatchSuiteDir?: string };
  if (shared.kwatchSuiteDir !== undefined) return () => {};
  const runDir = mkdtempSync(join(tmpdir(), 'kwatch-suite-'));
  shared.kwatchSuiteDir = runDir;
  process.env.TMPDIR = runDir;
  // Not kwatch-*: the check below is for folders tests leave behind. Private (0700), or the CLI would not use it.
  const cacheHome = join(runDir, 'xdg-cache');
  mkdirSync(cacheHome, { mode: 0o700 });
  process.env.XDG_CACHE_HOME = cacheHome;
  return () => {
    const left = readdirSync(runDir).filter((name) => TEST_FOLDER.test(name));
    rmSync(runDir, { recursive: true, force: true, maxRetries: 5 });
    shared.kwatchSuiteDir = undefined;
    if (left.length > 0) throw new Error(`the run left ${left.length} temporary folder(s) behind (removed now): ${left.sort().join(', ')} — the test that made each must remove it (test/temp-dir.ts)`);
  };
}
