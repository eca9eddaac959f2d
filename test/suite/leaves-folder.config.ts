// The suite's own setup (global setup with its temp-folder check, per-file setup) over one fixture file.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/suite/leaves-folder.fixture.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
  },
});
