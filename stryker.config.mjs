// StrykerJS: mutation testing of the modules where a silent bug costs most (issue 39). Not part of CI or
// `npm test`: run it with `npm run mutate -- FOLDER` (scripts/mutate.js), scores in docs/mutation.md.
// The folders, by the name scripts/mutate.js takes; `npm run mutate` with no name mutates them all.
import process from 'node:process';

export const MUTATION_GROUPS = {
  endpoint: ['src/endpoint/**/*.ts'],
  faults: ['src/faults/**/*.ts'],
  reconcile: ['src/reconcile/**/*.ts'],
  sim: [
    'src/sim/write-handlers.ts', 'src/sim/kinds/platform-admission.ts', 'src/sim/controllers/quota-admission.ts',
    'src/sim/controllers/quota-usage.ts', 'src/sim/controllers/resourcequota-controller.ts',
  ],
  'code-cache': ['src/cli/bundle-code-cache.ts', 'src/cli/load-bundle.ts', 'src/cli/compile-cache.ts', 'src/cli/user-cache-dir.ts'],
  // The discovery cache's file store (disk, or memory for --sim): a wrong path, age or write there shows up as a stale
  // or missing resource far from its cause. kube/ code read by every command, unlike code-cache's start-up files.
  discovery: ['src/kube/discovery/discovery-store.ts'],
  // The trace pictures (Perfetto, OTLP, the HTML report) and `kwatch trace why`: a wrong link there names the wrong
  // cause of a reconcile. perfetto-server.ts is left out: it only serves a finished file to ui.perfetto.dev, and only
  // the e2e `trace open` test (the built CLI) runs it, so each of its mutants would be "no coverage".
  'trace-export': ['src/trace-export/**/*.ts', '!src/trace-export/perfetto-server.ts'],
  // The informer core, Reflector → DeltaFIFO → Indexer → processor/listeners → workqueue: every command's cache and
  // every controller's queue run through it, and a wrong delta, resourceVersion or backoff there is silent.
  // reflector-state.ts is the reflector's decisions (reflector.ts only performs them); resource-version.ts orders
  // `--from-rv`/`--until-rv`.
  informer: [
    'src/informer/delta-fifo.ts', 'src/informer/reflector.ts', 'src/informer/reflector-state.ts',
    'src/informer/shared-processor.ts', 'src/informer/processor-listener.ts', 'src/informer/indexer.ts',
    'src/informer/resource-version.ts', 'src/informer/workqueue/**/*.ts',
  ],
};

// scripts/mutate.js names the folder of one run in KWATCH_MUTATION_GROUP; its reports are named after it.
const group = process.env.KWATCH_MUTATION_GROUP;
if (group !== undefined && !(group in MUTATION_GROUPS)) throw new Error(`no mutation folder named ${group}`);
// A run of some files of it (`--mutate`) adds their names (KWATCH_MUTATION_PART): its own reports and incremental file.
const part = process.env.KWATCH_MUTATION_PART;
const reportName = [group ?? 'all', part].filter(Boolean).join('.');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // vitest.stryker.config.ts leaves out the tests that only run the built CLI (they cannot kill a mutant of
  // src/); `related` makes vitest run only the test files that import the mutated files, and Stryker's
  // per-test coverage then runs, for each mutant, only the tests that executed it.
  vitest: { configFile: 'vitest.stryker.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // Mutants that do not type-check are dropped before any test runs (cheaper than a test run each).
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: group === undefined ? Object.values(MUTATION_GROUPS).flat() : MUTATION_GROUPS[group],
  // Incremental: a later run re-tests only mutants whose code or covering tests changed. Each folder has its
  // own file (a run's file holds only the mutants it mutated). Kept out of git (reports/): it is a cache of
  // one machine's results, large, rewritten by every run, and would conflict between branches.
  incremental: true,
  incrementalFile: `reports/mutation/${reportName}.incremental.json`,
  // 2-core machines: one test process (plus the checker). Raise with `-- --concurrency N` on a bigger one.
  concurrency: 1,
  // Shared, loaded machines run tests slowly: a mutant is a timeout only well past its normal time.
  timeoutFactor: 2.5,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // The sandbox Stryker copies the project into (ignored by git, eslint and vitest).
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  ignorePatterns: ['reports', 'coverage', 'bench/results', 'release', '.stryker-tmp'],
};
