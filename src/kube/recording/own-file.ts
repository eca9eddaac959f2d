// kwatch replaces a file only when it is one of its own: a path may name the user's real kubeconfig or notes, and
// a flag is too easy to get wrong to lose them for it. New files are written freely; an existing one only when
// it is empty or `isOwn` recognises what kwatch writes there (a recording's header, a checkpoint, a sim
// kubeconfig's marker); otherwise the caller refuses with the one line of NotOwnFileError, and --force overrides.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** How much of an existing file `isOwn` is shown: every marker kwatch writes is at its start. */
export const OWN_FILE_HEAD_BYTES = 64 * 1024;

export class NotOwnFileError extends Error {
  constructor(readonly path: string, what: string) {
    super(`${path} already exists and is not a ${what} kwatch wrote: refusing to replace it (add --force to replace it)`);
    this.name = 'NotOwnFileError';
  }
}

/**
 * Throws NotOwnFileError when `path` is a non-empty regular file (or a symbolic link to one) whose first bytes
 * `isOwn` does not recognise, or one that cannot be read to tell. Absent files, empty files and what is not a
 * regular file (the writers refuse those themselves, with their own line) pass. `what` names the kind of file
 * in the message ("kwatch recording", "kubeconfig kwatch sim wrote").
 */
export function refuseForeignFile(path: string, isOwn: (head: string) => boolean, what: string): void {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put there must not hang the check.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENXIO' || code === 'EISDIR') return;
    throw new NotOwnFileError(path, what);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size === 0) return;
    const buf = Buffer.alloc(Math.min(st.size, OWN_FILE_HEAD_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (!isOwn(buf.subarray(0, n).toString('utf8'))) throw new NotOwnFileError(path, what);
  } finally {
    closeSync(fd);
  }
}
