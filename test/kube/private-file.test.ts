// kwatch's own files (checkpoints, recordings): never written through a symbolic link, a FIFO or a device,
// never replacing one, created 0600, and failing in one line without leaving a temporary file.
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointKeeper, readCheckpoint, writeCheckpoint, type Checkpoint } from '../../src/kube/recording/checkpoint.js';
import { FileWriteError } from '../../src/kube/recording/private-file.js';
import { RecordingFile } from '../../src/kube/recording/recording-file.js';
import type { RecordingHeader } from '../../src/informer/recording/recording-format.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-private-file-');
const base = { server: 'https://k8s.test', resource: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true } };
const cp: Checkpoint = { kind: 'KwatchCheckpoint', version: 1, ...base, resourceVersion: '7', updated: new Date(0).toISOString() };
const header = { kind: 'KwatchRecording', formatVersion: 1, kwatchVersion: 'test', server: 'https://k8s.test', resources: [], masked: true } as unknown as Omit<RecordingHeader, 'startTime'>;

const mode = (path: string) => statSync(path).mode & 0o777;
const leftovers = (d: string) => readdirSync(d).filter((f) => f.endsWith('.tmp'));

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

function link(name: string, target: string): string {
  const path = join(dir, name);
  symlinkSync(target, path);
  return path;
}

describe('checkpoint files', () => {
  it('are created 0600', () => {
    const path = join(dir, 'new.json');
    writeCheckpoint(path, cp);
    expect(mode(path)).toBe(0o600);
    expect(readCheckpoint(path).resourceVersion).toBe('7');
  });

  it('replace an existing regular file, which becomes 0600', () => {
    const path = join(dir, 'old.json');
    writeFileSync(path, 'old');
    chmodSync(path, 0o644);
    writeCheckpoint(path, cp);
    expect(mode(path)).toBe(0o600);
    expect(readCheckpoint(path).resourceVersion).toBe('7');
  });

  it('refuse a symbolic link, leaving it and its target untouched', () => {
    const target = join(dir, 'link-target.json');
    writeFileSync(target, 'precious');
    const path = link('ck-link.json', target);
    expect(() => writeCheckpoint(path, cp)).toThrow(`refusing to write the checkpoint to ${path}: it is a symbolic link, not a regular file`);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(leftovers(dir)).toEqual([]);
  });

  it('refuse a FIFO (it stays a FIFO) and a device, before touching it', () => {
    const path = fifo('ck.fifo');
    expect(() => new CheckpointKeeper(path, base)).toThrow(`refusing to write the checkpoint to ${path}: it is a named pipe (FIFO), not a regular file`);
    expect(() => writeCheckpoint(path, cp)).toThrow(FileWriteError);
    expect(lstatSync(path).isFIFO()).toBe(true);
    // /dev/null is refused by lstat, before any write or rename could reach it.
    expect(() => writeCheckpoint('/dev/null', cp)).toThrow('refusing to write the checkpoint to /dev/null: it is a character device, not a regular file');
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  });

  it('in a missing directory fail in one line, at once', () => {
    expect(() => new CheckpointKeeper('/nonexistent/ck', base)).toThrow(new FileWriteError('cannot write the checkpoint to /nonexistent/ck: the directory /nonexistent does not exist'));
  });

  it('that cannot be written are reported once, never thrown into the watch, and leave no temporary file', () => {
    const sub = mkdtempSync(join(dir, 'gone-'));
    const path = join(sub, 'ck.json');
    const failures: string[] = [];
    const keeper = new CheckpointKeeper(path, base, 0, Date.now, (e) => failures.push(e.message));
    rmSync(sub, { recursive: true }); // the directory goes away while the watch runs (works as root too)
    expect(() => keeper.update('5')).not.toThrow();
    expect(failures).toEqual([`cannot write the checkpoint to ${path}: the directory ${sub} does not exist`]);
    expect(keeper.failure?.message).toBe(failures[0]);
    keeper.update('6');
    expect(failures).toHaveLength(1);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('recording files', () => {
  it('are created 0600, and an existing regular file is truncated and made 0600', () => {
    const path = join(dir, 'rec.ndjson');
    new RecordingFile(path, header).close();
    expect(mode(path)).toBe(0o600);
    const old = join(dir, 'old.ndjson');
    writeFileSync(old, 'x'.repeat(10_000));
    chmodSync(old, 0o644);
    new RecordingFile(old, header).close();
    expect(mode(old)).toBe(0o600);
    expect(readFileSync(old, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('refuse a symbolic link (its target keeps its content) and a FIFO (no blocking open)', () => {
    const target = join(dir, 'rec-target');
    writeFileSync(target, 'precious');
    const path = link('rec-link.ndjson', target);
    expect(() => new RecordingFile(path, header)).toThrow(`refusing to write the recording to ${path}: it is a symbolic link, not a regular file`);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    const pipe = fifo('rec.fifo');
    expect(() => new RecordingFile(pipe, header)).toThrow(`refusing to write the recording to ${pipe}: it is a named pipe (FIFO), not a regular file`);
    expect(() => new RecordingFile('/dev/null', header)).toThrow('it is a character device');
  });

  it('that fill the disk stop recording and report it once, without throwing into the watch', () => {
    // /dev/full is a device, so it is refused; the failure path is reached by a write to a closed-over fd instead.
    const path = join(dir, 'full.ndjson');
    const failures: string[] = [];
    const rec = new RecordingFile(path, header, { onFailure: (e) => failures.push(e.message) });
    const held = rec as unknown as { fd: number };
    const realFd = held.fd;
    held.fd = 987_654; // a descriptor that is not open: EBADF on the next write
    closeSync(realFd);
    expect(() => rec.write({ rec: 'end', t: 1, conn: 1, res: 0 } as never)).not.toThrow();
    expect(failures).toEqual([`cannot write the recording to ${path}: bad file descriptor (1 lines written)`]);
    expect(rec.failure?.message).toBe(failures[0]);
  });
});
