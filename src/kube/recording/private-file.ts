// Writing kwatch's own files (recordings, checkpoints) without harming what is already at the path: an
// existing target must be a regular file — a device, a FIFO, a directory or a symbolic link is refused,
// never written through nor replaced — files are 0600 (they hold cluster data), and every failure is one
// FileWriteError line naming the file, with no temporary file left behind.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, ftruncateSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;

export class FileWriteError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FileWriteError';
  }
}

/** "a named pipe (FIFO)", "a symbolic link", …: what a non-regular file is, in words. */
function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The system error without Node's "ECODE: " prefix and ", open '/path'" suffix (the path is named already). */
export function errnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const text = (e?.message ?? String(err)).replace(/^[A-Z0-9_]+: /, '').replace(/, \w+( '.*')?$/s, '');
  return e?.code === 'ENOENT' ? 'no such file or directory' : text;
}

function refuse(path: string, what: string, st: Stats): FileWriteError {
  return new FileWriteError(`refusing to write the ${what} to ${path}: it is ${kindOf(st)}, not a regular file (kwatch creates or replaces only regular files; give another path)`);
}

function cannot(path: string, what: string, err: unknown): FileWriteError {
  if (err instanceof FileWriteError) return err;
  return new FileWriteError(`cannot write the ${what} to ${path}: ${errnoText(err)}`, { cause: err });
}

/**
 * Throws a FileWriteError unless `path` can be a file of ours: absent (in an existing directory) or a
 * regular file. lstat, so a symbolic link at the last component is refused, not followed.
 */
export function checkWriteTarget(path: string, what: string): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw cannot(path, what, err);
    try {
      if (!lstatSync(dirname(path)).isDirectory()) throw new FileWriteError(`cannot write the ${what} to ${path}: ${dirname(path)} is not a directory`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FileWriteError(`cannot write the ${what} to ${path}: the directory ${dirname(path)} does not exist`);
      throw cannot(path, what, e);
    }
    return;
  }
  if (!st.isFile()) throw refuse(path, what, st);
}

/**
 * Opens `path` for writing from its start (created 0600, or an existing regular file truncated and made
 * 0600). O_NOFOLLOW and O_NONBLOCK close the race with a symbolic link or FIFO put there after the check.
 */
export function openPrivateFile(path: string, what: string): number {
  checkWriteTarget(path, what);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0), PRIVATE_FILE_MODE);
  } catch (err) {
    // ELOOP: a symbolic link appeared; ENXIO: a FIFO with no reader appeared.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO') throw new FileWriteError(`refusing to write the ${what} to ${path}: it is not a regular file (kwatch creates or replaces only regular files; give another path)`);
    throw cannot(path, what, err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refuse(path, what, st);
    ftruncateSync(fd, 0);
    if ((st.mode & 0o777) !== PRIVATE_FILE_MODE) {
      try {
        fchmodSync(fd, PRIVATE_FILE_MODE);
      } catch {
        // someone else's file we may write to: its mode is theirs to choose
      }
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw cannot(path, what, err);
  }
}

/** Writes all of `buf` to `fd` (writeSync may write less than asked). */
export function writeAll(fd: number, buf: Buffer): void {
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * Replaces `path` atomically with `text`: a new 0600 temporary file beside it (O_EXCL, so nothing already
 * there is followed or reused), synced, then renamed over the target. Readers never see half a file.
 */
export function replacePrivateFile(path: string, text: string, what: string): void {
  checkWriteTarget(path, what);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
    writeAll(fd, Buffer.from(text, 'utf8'));
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already gone
    }
    throw cannot(path, what, err);
  }
}
