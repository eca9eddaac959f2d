// End to end through the built CLI (run `npm run build` first): `kwatch … | head -1` — the reader closes the pipe
// after the first line — ends quietly with exit code 0, never Node's 13 (a writer left waiting for 'drain').
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv } from './events-helpers.js';

/**
 * Runs kwatch, closes its stdout after the first chunk, and returns how it ended and what it said on stderr. Two
 * bounds, each a condition with room for a slow shared machine: the first line (a sim starts and fills first) within
 * 120 s, and the end within 20 s of the close, which is what the test is about.
 */
function closeAfterFirstLine(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: childEnv({ KUBECONFIG: '/nonexistent/kubeconfig' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const giveUp = (why: string) => {
      child.kill('SIGKILL');
      reject(new Error(`kwatch ${args.join(' ')} ${why}; stderr: ${stderr}`));
    };
    let bound = setTimeout(() => giveUp('printed nothing within 120s'), 120_000);
    child.stdout.once('data', () => {
      child.stdout.destroy();
      clearTimeout(bound);
      bound = setTimeout(() => giveUp('did not end 20s after its stdout closed'), 20_000);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(bound);
      resolve({ code, signal, stderr });
    });
  });
}

describe('stdout closed by the reader (| head -1)', () => {
  const cases = [
    ['list', 'pods', '--sim', '--sim-pods', '2000', '--sim-churn', '0', '-o', 'yaml'],
    ['index', '--by', 'nodeName', '-A', '--sim', '--sim-pods', '3000', '--sim-churn', '0', '--show-keys'],
    ['events', 'pods', '-A', '--sim', '--sim-pods', '2000', '-o', 'ndjson'],
    ['--help'],
  ];
  for (const args of cases) {
    it(`kwatch ${args.join(' ')} exits 0 without an error line`, async () => {
      const res = await closeAfterFirstLine(args);
      expect(res.signal).toBeNull();
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).not.toMatch(/error|EPIPE|at .*\.js:\d+/i);
    }, 150_000);
  }
});
