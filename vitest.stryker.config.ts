// The vitest config StrykerJS runs (stryker.config.mjs): the unit suite minus the tests that only drive the
// built CLI (dist/), which Stryker does not mutate, so they cannot kill a mutant and only slow each run.
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default mergeConfig(base, defineConfig({
  test: {
    exclude: [...configDefaults.exclude, '.stryker-tmp/**', 'test/e2e/**', 'test/examples/**', 'test/package/**', 'test/bench/**'],
  },
}));
