import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/slow-first-sequencer.js';

// In-process unit tests share a worker (no fresh fork per file): starting a fork costs about as much as the tests of a
// small file, so isolating ~120 unit files took a third of their wall time and half their CPU (97 s against 129 s
// wall, 40 s against 73 s CPU, measured at load ~17). Files that mock modules or write process.env stay isolated, as
// do the folders whose tests start the CLI, kubectl or sims (their time is in those processes, not the fork).
const sharedWorkerFolders = ['informer', 'render', 'reconcile', 'faults', 'kube', 'cli', 'trace-export', 'scripts'];
const needsOwnWorker = [
  'test/render/live-table.test.ts', // writes process.env
  'test/render/live-dashboard.test.ts', // writes process.env
  'test/kube/connection.test.ts', // writes process.env
  'test/informer/recording/recording-resources.test.ts', // vi.mock
];
const sharedWorkerFiles = sharedWorkerFolders.flatMap((f) => [`test/${f}/**/*.test.ts`, `test/${f}/**/*.test.tsx`]);
// StrykerJS's sandbox (npm run mutate) holds a copy of the tests: never run them from here.
const excluded = [...configDefaults.exclude, '.stryker-tmp/**', 'reports/**'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One fork more than cores: many files spend their time waiting on the processes they start (a sim settling, a
    // controller's --quiet period), and a third fork fills that idle core time. On the 2-core host, back to back on a
    // quiet machine (2026-11-29): 2 forks 396 s wall, 574 s CPU; 3 forks 305 s wall, 517 s CPU, all passing.
    poolOptions: { forks: { maxForks: availableParallelism() + 1, minForks: 1 } },
    sequence: { sequencer: SlowFirstSequencer },
    // Tests never touch the user's ~/.kube (test/setup.ts points HOME, KUBECONFIG, KUBECACHEDIR elsewhere).
    setupFiles: ['test/setup.ts'],
    // A kubectl too old to judge the server stops the run in one line (test/kubectl-lookup.ts has the minimum).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: sharedWorkerFiles, exclude: [...excluded, ...needsOwnWorker], isolate: false },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: [...excluded, ...sharedWorkerFiles] },
      },
      { extends: true, test: { name: 'own-worker', include: needsOwnWorker, exclude: excluded } },
    ],
  },
});
