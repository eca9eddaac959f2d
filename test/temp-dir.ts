// Temporary folders for tests: each is removed after its test file, whether its tests passed, failed or timed out
// (test/setup.ts removes them in an afterAll of every file; test/global-setup.ts removes the run's whole TMPDIR
// as the net, after checking that nothing was left to it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new folder `<TMPDIR>/<prefix>XXXXXX`, removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made in this test file (test/setup.ts calls it last). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
