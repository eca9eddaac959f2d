// The one check before kwatch replaces a file: absent and empty files pass, a file `isOwn` recognises passes,
// anything else (also through a symbolic link, or unreadable) is refused in one line naming the file and --force.
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotOwnFileError, refuseForeignFile } from '../../src/kube/recording/own-file.js';
import { isKwatchRecording } from '../../src/informer/recording/recording-format.js';
import { isKwatchCheckpoint } from '../../src/kube/recording/checkpoint.js';
import { isControlTokenFile, isSimKubeconfig, kubeconfigYaml } from '../../src/sim/kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-own-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const isMine = (head: string) => head.startsWith('MINE');

describe('refuseForeignFile', () => {
  it('lets an absent, an empty or an own file be written', () => {
    expect(() => refuseForeignFile(join(dir, 'absent'), isMine, 'thing')).not.toThrow();
    expect(() => refuseForeignFile(file('empty', ''), isMine, 'thing')).not.toThrow();
    expect(() => refuseForeignFile(file('mine', 'MINE and more'), isMine, 'thing')).not.toThrow();
  });

  it('refuses any other file, also through a symbolic link, in one line naming it and --force', () => {
    const theirs = file('theirs', 'notes');
    expect(() => refuseForeignFile(theirs, isMine, 'thing')).toThrow(new NotOwnFileError(theirs, 'thing'));
    expect(new NotOwnFileError(theirs, 'thing').message).toBe(`${theirs} already exists and is not a thing kwatch wrote: refusing to replace it (add --force to replace it)`);
    const link = join(dir, 'link');
    symlinkSync(theirs, link);
    expect(() => refuseForeignFile(link, isMine, 'thing')).toThrow(NotOwnFileError);
  });

  it.skipIf(process.getuid?.() === 0)('refuses a file it cannot read to tell', () => {
    const locked = file('locked', 'MINE');
    chmodSync(locked, 0o200);
    expect(() => refuseForeignFile(locked, isMine, 'thing')).toThrow(NotOwnFileError);
  });

  it('shows isOwn at most the first 64 KiB', () => {
    let seen = -1;
    refuseForeignFile(file('big', `MINE${'x'.repeat(200_000)}`), (head) => { seen = head.length; return true; }, 'thing');
    expect(seen).toBe(64 * 1024);
  });
});

describe('what kwatch recognises as its own', () => {
  it('a sim kubeconfig (marked), and one sims wrote before the mark; not a kubeconfig holding other clusters', () => {
    expect(isSimKubeconfig(kubeconfigYaml('http://127.0.0.1:1'))).toBe(true);
    const unmarked = kubeconfigYaml('http://127.0.0.1:1').split('\n').slice(1).join('\n');
    expect(isSimKubeconfig(unmarked)).toBe(true);
    const merged = unmarked.replace('users:\n', 'users:\n- name: prod-admin\n  user:\n    token: t\n');
    expect(isSimKubeconfig(merged)).toBe(false);
    expect(isSimKubeconfig('apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n')).toBe(false);
  });

  it('a recording, a checkpoint, a control token', () => {
    expect(isKwatchRecording('{"kind":"KwatchRecording","formatVersion":1}\n{"rec":"list"')).toBe(true);
    expect(isKwatchRecording('{"rec":"list"}\n')).toBe(false);
    expect(isKwatchCheckpoint('{"kind":"KwatchCheckpoint","version":1}')).toBe(true);
    expect(isKwatchCheckpoint('{"kind":"Other"}')).toBe(false);
    expect(isKwatchCheckpoint('notes')).toBe(false);
    expect(isControlTokenFile(`${'a'.repeat(32)}\n`)).toBe(true);
    expect(isControlTokenFile('my notes about tokens\n')).toBe(false);
  });
});
