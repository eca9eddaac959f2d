// The suite fails when a run leaves a kwatch-* folder in its temporary folder (test/global-setup.ts): a suite
// of one fixture file is run twice, once tidy and once leaving a folder, and each run's own TMPDIR is gone after.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function suite(leak: boolean, tmp: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--config', 'test/suite/leaves-folder.config.ts'], { cwd: ROOT, env: { ...process.env, TMPDIR: tmp, KWATCH_PROBE_LEAK: leak ? '1' : '0', NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('the temporary-folder check of the suite', { timeout: 90_000 }, () => {
  it('passes a tidy run and fails one that leaves a kwatch-* folder, naming it; both runs leave nothing', async () => {
    const tmp = tempDir('kwatch-suite-check-');
    // The two runs at once (each makes its own folder under tmp): vitest's start-up is most of each run's time.
    const [tidy, leaky] = await Promise.all([suite(false, tmp), suite(true, tmp)]);
    expect(tidy.code, tidy.out).toBe(0);
    expect(leaky.code).toBe(1);
    expect(leaky.out).toMatch(/the run left 1 temporary folder\(s\) behind \(removed now\): kwatch-left-behind-\w+/);
    // vitest itself may leave a folder of its own there; kwatch's tests leave none.
    expect(readdirSync(tmp).filter((name) => name.startsWith('kwatch-'))).toEqual([]);
    expect(existsSync(tmp)).toBe(true);
  });
});
