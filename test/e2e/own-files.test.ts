// kwatch never replaces a file that is not its own (built CLI): `sim --kubeconfig-out`, `events --record`,
// `reconcile --record` and `replay --checkpoint` write new files freely and replace only what kwatch writes there;
// anything else is one line naming the file and --force, exit 1, and the file untouched.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, kwatch } from './events-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-e2e-own-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of the user's: what must survive. */
function usersFile(name: string, content = 'apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster:\n    server: https://prod.example:6443\n'): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const refusal = (path: string, what: string) =>
  `error: ${path} already exists and is not a ${what} kwatch wrote: refusing to replace it (add --force to replace it)\n`;

/** Runs `kwatch sim ARGS` until it has written its kubeconfig, then stops it; resolves with its exit code and output. */
async function simRun(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', '--pods', '0', '--nodes', '1', '--churn', '0', ...args], { env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // A wait for the sim's start, not a time it must meet: at load 25 a start took over 20 s, the SIGTERM then came
  // before the sim's handler and the run ended by the signal (exit code null), failing the test.
  const deadline = Date.now() + 60_000;
  while (!stdout.includes('control endpoint token') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (child.exitCode === null) child.kill('SIGTERM');
  return { code: await exited, stdout, stderr };
}

// Every test works on files of its own names and starts its own sims; they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('sim --kubeconfig-out', () => {
  it('leaves the user\'s kubeconfig untouched: one line naming it and --force, exit 1, no server started', { timeout: 120_000 }, async () => {
    const config = usersFile('users-config');
    const before = readFileSync(config, 'utf8');
    const r = await simRun(['--kubeconfig-out', config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(refusal(config, 'kubeconfig'));
    expect(r.stdout).not.toContain('serving');
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('replaces a kubeconfig an earlier sim wrote, and the user\'s with --force', { timeout: 120_000 }, async () => {
    const config = join(dir, 'sim-config');
    const first = await simRun(['--kubeconfig-out', config]);
    expect(first.code, first.stderr).toBe(0);
    // What tells the second sim's files from the first's is the control token beside the kubeconfig (random per run);
    // the server's port is not: the kernel may hand the second sim the port the first one just closed.
    const firstToken = readFileSync(`${config}.control-token`, 'utf8');
    const second = await simRun(['--kubeconfig-out', config]);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(`${config}.control-token`, 'utf8')).not.toBe(firstToken);
    expect(readFileSync(config, 'utf8')).toMatch(/server: http:\/\/127\.0\.0\.1:\d+\n/);

    const forced = usersFile('forced-config');
    const r = await simRun(['--kubeconfig-out', forced, '--force']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(forced, 'utf8')).toContain('name: kwatch-sim');
  });

  it('leaves a file beside it that is not a control token untouched', { timeout: 120_000 }, async () => {
    const config = join(dir, 'token-config');
    const token = usersFile('token-config.control-token', 'my notes about tokens\n');
    const r = await simRun(['--kubeconfig-out', config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(refusal(token, 'control token file'));
    expect(readFileSync(token, 'utf8')).toBe('my notes about tokens\n');
  });
});

describe('--record and --checkpoint', () => {
  it('events --record and reconcile --record refuse a file that is not a recording, and leave it untouched', { timeout: 120_000 }, async () => {
    const notes = usersFile('notes.txt', 'my notes\n');
    const mod = usersFile('noop.mjs', 'export default { for: "deployments.apps", reconcile() {} };\n');
    const [events, reconcile] = await Promise.all([
      kwatch(['events', 'pods', '--sim', '--record', notes, '--until-synced'], {}),
      kwatch(['reconcile', '--with', mod, '--sim', '--record', notes, '--once'], {}),
    ]);
    expect(events.code).toBe(1);
    expect(events.stderr).toBe(refusal(notes, 'recording'));
    expect(reconcile.code).toBe(1);
    expect(reconcile.stderr).toBe(refusal(notes, 'recording'));
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
  });

  it('events --record replaces a recording, and the user\'s file with --force', { timeout: 120_000 }, async () => {
    const rec = join(dir, 'pods.ndjson');
    const notes = usersFile('forced-notes.txt', 'my notes\n');
    // The forced run, on a file of its own, goes beside the two runs on one recording (those one after the other).
    const forcedRun = kwatch(['events', 'pods', '--sim', '--record', notes, '--until-synced', '--force'], {});
    for (let run = 0; run < 2; run++) {
      const r = await kwatch(['events', 'pods', '--sim', '--record', rec, '--until-synced'], {});
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(rec, 'utf8')).toMatch(/^\{"kind":"KwatchRecording"/);
    }
    const forced = await forcedRun;
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(notes, 'utf8')).toMatch(/^\{"kind":"KwatchRecording"/);
  });

  it('replay --checkpoint refuses a file that is not a checkpoint, and replaces a checkpoint', { timeout: 120_000 }, async () => {
    const notes = usersFile('cp-notes.txt', 'my notes\n');
    // The refused run, on a file of its own, goes beside the two runs on one checkpoint (those one after the other).
    const refusedRun = kwatch(['replay', 'pods', '--sim', '--from-rv', '1', '--checkpoint', notes, '--max-events', '1'], {});
    const cp = join(dir, 'cp.json');
    for (let run = 0; run < 2; run++) {
      // --max-events, not --for: the checkpoint is written once an event arrives, however loaded the machine.
      const r = await kwatch(['replay', 'pods', '--sim', '--from-rv', '1', '--checkpoint', cp, '--max-events', '1'], {});
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(cp, 'utf8'))).toMatchObject({ kind: 'KwatchCheckpoint' });
    }
    const refused = await refusedRun;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(refusal(notes, 'checkpoint'));
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
  });
});
