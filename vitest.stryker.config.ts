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
// Set, not merged: mergeConfig would append these globs to the base config's and narrow nothing. The base config's
// projects (unit, isolated, own-worker) each have their own include, which a root include does not narrow (with them
// every unit file ran against each mutant): a narrowed run is one plain project of these files.
if (only && only.length > 0) {
  config.test!.include = only;
  delete config.test!.projects;
}

export default config;
