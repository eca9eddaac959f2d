// The tests `npm run mutate` (StrykerJS) runs against each mutant: the in-process ones of the folders it mutates.
// The e2e tests (test/e2e, test/endpoint's CLI runs, test/examples) run the built dist/, which Stryker never
// mutates: they would only cost time. Stryker's vitest runner narrows further to the tests that cover a mutant.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(base, defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts', 'test/reconcile/**/*.test.ts', 'test/endpoint/**/*.test.ts', 'test/cli/bundle-code-cache.test.ts', 'test/cli/compile-cache.test.ts'],
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
}));
