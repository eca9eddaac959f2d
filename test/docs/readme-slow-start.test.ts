// The README's first example (`kwatch events pods --sim …`: the initial ADDED, then a MODIFIED of that pod) must print
// what it shows however long the CLI takes to reach its embedded sim: on a loaded machine it used to show another
// pod's create or delete, as the sim's churn had started without it. KWATCH_TEST_SIM_CONNECT_DELAY_MS plays the slow
// start (src/cli/base-command.ts). Runs the built CLI.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';
import { missingShapes, runnableBlocks } from './markdown.js';
import { ROOT } from './run-blocks.js';

const README = join(ROOT, 'README.md');
const block = runnableBlocks(README, readFileSync(README, 'utf8')).find((b) => b.commands[0]?.line.startsWith('kwatch events pods --sim --sim-pods 3 '));

/** Runs a shell line as the docs test does (`kwatch` on PATH, no kubeconfig), with extra environment. */
function runLine(line: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const dir = tempDir('kwatch-readme-slow-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(join(ROOT, 'bin', 'run.js'), join(bin, 'kwatch'));
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], {
      cwd: dir,
      env: { ...process.env, PATH: [bin, process.env.PATH ?? ''].join(delimiter), HOME: dir, KUBECONFIG: join(dir, 'no-kubeconfig'), KUBECACHEDIR: join(dir, 'kube-cache'), NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 100_000,
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the README\'s first example', () => {
  it('prints what it shows when the CLI reaches its sim 4 s late (the churn waits for its watch)', { timeout: 120_000 }, async () => {
    expect(block, 'README.md has no runnable `kwatch events pods --sim --sim-pods 3` block').toBeDefined();
    const [command] = block!.commands;
    // At 2 changes a second, 4 s used to be 8 changes before the watch: the pod's first change seen was then its delete.
    const { code, out } = await runLine(command.line, { KWATCH_TEST_SIM_CONNECT_DELAY_MS: '4000' });
    expect(code).toBe(command.exit);
    expect(missingShapes(command.output, out), out).toEqual([]);
  });
});
