// Where the discovery cache's files live: on disk under a cache root (kubectl's layout, shared with it), or in memory
// for one run. A server kwatch runs in-process (--sim) listens on a new port each run, so its cache could never be
// read again: writing it to disk and removing it at exit was a fifth of a short `--sim` run's CPU. Both stores keep
// the same paths, modification times and atomic replace, so the discovery cache reads, ages and invalidates alike.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface DiscoveryStore {
  /** The root paths are joined to: a directory, or a label for a store that has none. */
  readonly root: string;
  /** Modification time in ms since the epoch; undefined when there is no such file. Throws when it cannot be read. */
  modifiedMs(path: string): number | undefined;
  /** The file's text; undefined when there is no such file. Throws when it cannot be read. */
  read(path: string): string | undefined;
  /** Replaces the file as one step: a reader sees the old text or the new, never part of it. */
  write(path: string, text: string): void;
}

/** Files under a directory: temp file beside the target, mode 0660, then rename (directories 0750), as client-go's disk cache. */
export class DiskDiscoveryStore implements DiscoveryStore {
  constructor(readonly root: string) {}

  modifiedMs(path: string): number | undefined {
    try {
      return statSync(path).mtimeMs;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  read(path: string): string | undefined {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  write(path: string, text: string): void {
    mkdirSync(dirname(path), { recursive: true, mode: 0o750 });
    const tmp = `${path}.${randomBytes(4).readUInt32BE(0)}`;
    const fd = openSync(tmp, 'wx', 0o660);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    try {
      chmodSync(tmp, 0o660);
      renameSync(tmp, path);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
      throw err;
    }
  }
}

/** Where a memory store's paths seem to live, when a message names one. */
export const MEMORY_STORE_ROOT = '(in memory)';

/** Files held for this process only; each one's modification time is the clock's time of its last write. */
export class MemoryDiscoveryStore implements DiscoveryStore {
  readonly root = MEMORY_STORE_ROOT;
  private readonly files = new Map<string, { text: string; modifiedMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  modifiedMs(path: string): number | undefined {
    return this.files.get(path)?.modifiedMs;
  }

  read(path: string): string | undefined {
    return this.files.get(path)?.text;
  }

  write(path: string, text: string): void {
    this.files.set(path, { text, modifiedMs: this.now() });
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
