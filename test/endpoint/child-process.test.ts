// The controller process behind the endpoint, with real (short) child processes: its environment, the one-line reasons
// it cannot start, its output prefixed or to a file with its last lines kept, its exit, and how it is stopped.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnvironment, commandProblem, startChild, type ChildOutput } from '../../src/endpoint/child-process.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sink() {
  let text = '';
  const stream = new Writable({ write(chunk: Buffer, _e, cb) { text += chunk.toString('utf8'); cb(); } });
  return { stream, text: () => text };
}
const sh = (script: string, output: ChildOutput = { kind: 'prefix' }, color = false) => {
  const err = sink();
  const lines: string[] = [];
  const child = startChild({ command: '/bin/sh', args: ['-c', script], env: { PATH: process.env.PATH }, output, stderr: err.stream, color, onLine: (l) => lines.push(l) });
  return { child, stderr: err.text, lines };
};

describe('childEnvironment', () => {
  it('points KUBECONFIG at the endpoint and takes away the in-cluster configuration, leaving the base as it was', () => {
    const base = { PATH: '/bin', KUBECONFIG: '/home/me/.kube/config', KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', KUBERNETES_SERVICE_PORT_HTTPS: '443', KEEP: 'x' };
    expect(childEnvironment(base, '/tmp/endpoint.kubeconfig')).toEqual({ PATH: '/bin', KUBECONFIG: '/tmp/endpoint.kubeconfig', KEEP: 'x' });
    expect(base.KUBERNETES_SERVICE_HOST).toBe('10.0.0.1');
  });
});

describe('commandProblem', () => {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'runnable'), '#!/bin/sh\n');
  chmodSync(join(bin, 'runnable'), 0o755);
  writeFileSync(join(bin, 'plain'), 'data');
  chmodSync(join(bin, 'plain'), 0o644);
  mkdirSync(join(bin, 'adir'));

  it('finds a command on PATH or by its path', () => {
    expect(commandProblem('runnable', `${delimiter}${join(dir, 'nowhere')}${delimiter}${bin}`)).toBeUndefined();
    expect(commandProblem(join(bin, 'runnable'), undefined)).toBeUndefined();
  });
  it('takes an empty PATH entry for the working directory, as spawn does (a controller found only there runs)', () => {
    const before = process.cwd();
    process.chdir(bin);
    try {
      for (const path of [`${delimiter}${join(dir, 'nowhere')}`, `${join(dir, 'nowhere')}${delimiter}`, '']) {
        expect(commandProblem('runnable', path)).toBeUndefined();
        // spawn agrees: it runs the working directory's file through the same PATH.
        expect(spawnSync('runnable', [], { env: { PATH: path } }).status).toBe(0);
      }
      // Not on PATH, but in the working directory: the line says how to run that one (a shell would not either).
      expect(commandProblem('runnable', join(dir, 'nowhere'))).toEqual({ code: 127, message: 'runnable: command not found (a name without a slash is looked up on PATH: -- ./runnable runs the one in this folder)' });
    } finally {
      process.chdir(before);
    }
  });
  it('says command not found (127) for a name on no PATH entry, a directory, or no PATH', () => {
    expect(commandProblem('nosuch', bin)).toEqual({ code: 127, message: 'nosuch: command not found' });
    expect(commandProblem('adir', bin)).toEqual({ code: 127, message: 'adir: command not found' });
    expect(commandProblem('runnable', undefined)).toEqual({ code: 127, message: 'runnable: command not found' });
    expect(commandProblem(join(bin, 'nosuch'), bin)).toEqual({ code: 127, message: `${join(bin, 'nosuch')}: command not found` });
  });
  // Root too: no execute bit at all is refused to root as well.
  it('says permission denied (126) for a file it may not run, unless a later PATH entry has a runnable one', () => {
    expect(commandProblem('plain', bin)).toEqual({ code: 126, message: 'plain: permission denied (not executable: chmod +x plain, or put its interpreter first, e.g. -- python3 plain)' });
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'plain'), '#!/bin/sh\n');
    chmodSync(join(other, 'plain'), 0o755);
    expect(commandProblem('plain', `${bin}${delimiter}${other}`)).toBeUndefined();
  });
});

describe('startChild', () => {
  it('prefixes each line with the program\'s name, joins lines split across writes, keeps the last one without a newline', async () => {
    const { child, stderr, lines } = sh('printf "one\\ntw"; sleep 0.05; printf "o\\n" ; printf "err\\n" >&2; sleep 0.05; printf "last"');
    expect(child.name).toBe('sh');
    expect(child.pid).toBeGreaterThan(0);
    expect(child.running).toBe(true);
    expect(await child.exited).toEqual({ code: 0, stopped: false });
    expect(child.running).toBe(false);
    expect(stderr()).toBe('sh | one\nsh | two\nsh | err\nsh | last\n');
    expect(lines).toEqual(['one', 'two', 'err', 'last']);
    expect(child.lastLines()).toEqual(['one', 'two', 'err', 'last']);
  });

  it('dims the prefix and the line on a terminal', async () => {
    const { child, stderr } = sh('echo hi', { kind: 'prefix' }, true);
    await child.exited;
    expect(stderr()).toBe('\x1b[2msh |\x1b[0m \x1b[2mhi\x1b[0m\n');
  });

  it('keeps the last 20 lines only', async () => {
    const { child } = sh('i=1; while [ $i -le 25 ]; do echo line$i; i=$((i+1)); done', { kind: 'none' });
    await child.exited;
    expect(child.lastLines()).toEqual(Array.from({ length: 20 }, (_, i) => `line${i + 6}`));
    // A copy: the caller's changes do not reach it.
    child.lastLines().pop();
    expect(child.lastLines()).toHaveLength(20);
  });

  it('writes its output to a file of mode 0600, appended, and nothing to stderr', async () => {
    const path = join(dir, 'child.log');
    writeFileSync(path, 'before\n', { mode: 0o600 });
    const { child, stderr } = sh('echo a; echo b >&2', { kind: 'file', path });
    await child.exited;
    await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['a', 'b', 'before']);
    expect(stderr()).toBe('');
    const fresh = join(dir, 'fresh.log');
    await sh('echo x', { kind: 'file', path: fresh }).child.exited;
    await new Promise((r) => setTimeout(r, 50));
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });

  it('says its exit code, and 128+N when a signal ended it', async () => {
    expect(await sh('exit 3', { kind: 'none' }).child.exited).toEqual({ code: 3, stopped: false });
    expect(await sh('kill -HUP $$', { kind: 'none' }).child.exited).toEqual({ code: 129, signal: 'SIGHUP', stopped: false });
    expect(await sh('kill -INT $$', { kind: 'none' }).child.exited).toEqual({ code: 130, signal: 'SIGINT', stopped: false });
  });

  it('stop: SIGTERM to its process group, SIGKILL after the grace period when it does not go', async () => {
    const polite = sh('sleep 30 & wait', { kind: 'none' });
    expect(await polite.child.stop(60_000)).toEqual({ code: 143, signal: 'SIGTERM', stopped: true });
    // Stopped already: the same answer.
    expect(await polite.child.stop(60_000)).toEqual({ code: 143, signal: 'SIGTERM', stopped: true });
    const stubborn = sh('trap "" TERM; echo ready; while :; do sleep 0.05; done', { kind: 'none' });
    for (let i = 0; i < 500 && stubborn.lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await stubborn.child.stop(200)).toEqual({ code: 137, signal: 'SIGKILL', stopped: true });
  });

  it('a command that cannot be started: 127 not found, 126 permission denied, one line each', async () => {
    const err = sink();
    const missing = startChild({ command: join(dir, 'nosuch'), args: [], env: {}, output: { kind: 'none' }, stderr: err.stream, color: false });
    expect(await missing.exited).toEqual({ code: 127, error: `${join(dir, 'nosuch')}: command not found`, stopped: false });
    expect(missing.running).toBe(false);
    expect(await missing.stop(10)).toEqual({ code: 127, error: `${join(dir, 'nosuch')}: command not found`, stopped: false });
    const notRunnable = startChild({ command: join(dir, 'bin', 'plain'), args: [], env: {}, output: { kind: 'none' }, stderr: err.stream, color: false });
    expect(await notRunnable.exited).toEqual({ code: 126, error: `${join(dir, 'bin', 'plain')}: permission denied`, stopped: false });
  });
});
