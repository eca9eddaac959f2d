import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // StrykerJS's sandbox (npm run mutate) holds a copy of the tests: never run them from here.
    exclude: [...configDefaults.exclude, '.stryker-tmp/**', 'reports/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Tests never touch the user's ~/.kube (test/setup.ts points HOME, KUBECONFIG, KUBECACHEDIR elsewhere).
    setupFiles: ['test/setup.ts'],
    // A kubectl too old to judge the server stops the run in one line (test/kubectl-lookup.ts has the minimum).
    globalSetup: ['test/global-setup.ts'],
  },
});
