// `s` in a live view: the screen's plain text saved as kwatch-snapshot-<time>.txt in --snapshot-dir
// (default: the working directory). Never overwrites: a second snapshot in the same millisecond gets -2.
import { statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from './user-error.js';

export function snapshotFileName(now: Date): string {
  // 2026-11-26T10-05-01.123Z: sortable, and no ':' (not allowed in file names everywhere).
  return `kwatch-snapshot-${now.toISOString().replace(/:/g, '-')}.txt`;
}

/** Writes `text`; returns the path. Throws with a one-line message when the folder is not writable. */
export function saveSnapshot(text: string, dir: string = process.cwd(), now = new Date()): string {
  const base = snapshotFileName(now);
  for (let n = 1; n < 100; n++) {
    const path = resolve(join(dir, n === 1 ? base : base.replace(/\.txt$/, `-${n}.txt`)));
    try {
      writeFileSync(path, text, { flag: 'wx' });
      return path;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EEXIST') continue;
      throw new Error(`cannot write ${path}: ${e.code ?? e.message}`);
    }
  }
  throw new Error(`cannot write a snapshot in ${dir}: too many in the same millisecond`);
}

/** --snapshot-dir must name a folder: said at start, not at the first `s`. */
export function checkSnapshotDir(dir: string | undefined): void {
  if (dir === undefined) return;
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing: said below
  }
  if (!isDir) throw new UserError(`--snapshot-dir ${dir}: no such folder`);
}
