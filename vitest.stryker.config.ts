// The vitest config StrykerJS runs (stryker.config.mjs): the unit suite minus the tests that only drive the
// built CLI (dist/), which Stryker does not mutate, so they cannot kill a mutant and only slow each run.
// KWATCH_MUTATION_TESTS (comma-separated test globs, `npm run mutate -- … --tests GLOBS`) narrows it further, to
// a file's own unit tests: code such as the loop detector or the endpoint's guard runs in every session test, so
// each of its mutants would otherwise re-run dozens of slow files. The score is then a lower bound (a mutant
// those tests miss may still be killed by another file).
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

const only = process.env.KWATCH_MUTATION_TESTS?.split(',').map((glob) => glob.trim()).filter(Boolean);

const config = mergeConfig(base, defineConfig({
  test: {
    exclude: [...configDefaults.exclude, '.stryker-tmp/**', 'test/e2e/**', 'test/examples/**', 'test/package/**', 'test/bench/**'],
  },
}));
// One project here: vitest.config.ts's projects (unit files sharing a worker, the rest isolated) each carry their own
// `include`, which overrides the top-level one, so with them KWATCH_MUTATION_TESTS narrowed nothing and a `--tests`
// run ran the whole unit suite (a sim run failed its initial test run on an informer test that timed out). Every
// file isolated, as before those projects: slower per file, but Stryker runs few files per mutant.
delete config.test!.projects;
// Set, not merged: mergeConfig would append these globs to the base config's and narrow nothing.
config.test!.include = only && only.length > 0 ? only : ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default config;
