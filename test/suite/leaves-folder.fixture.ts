// Run only by test/suite/temp-folders.test.ts, in a suite of its own: a test that leaves a kwatch-* folder behind.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it(process.env.KWATCH_PROBE_LEAK === '1' ? 'leaves a folder behind' : 'cleans up after itself', () => {
  if (process.env.KWATCH_PROBE_LEAK === '1') mkdtempSync(join(tmpdir(), 'kwatch-left-behind-'));
  expect(tmpdir()).toMatch(/kwatch-suite-/);
});
