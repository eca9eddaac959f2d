// A checkpoint file: the last resourceVersion a `kwatch replay` run reached, with the server and the
// resource it belongs to, so a later run resumes there (`--from-checkpoint`). Written atomically, 0600,
// and only over a regular file (see private-file.ts).
import { readFileSync } from 'node:fs';
import { checkWriteTarget, FileWriteError, replacePrivateFile } from './private-file.js';

export const CHECKPOINT_KIND = 'KwatchCheckpoint';
export const CHECKPOINT_VERSION = 1;

/** What was watched, enough to watch it again without discovery. */
export interface CheckpointResource {
  group: string;
  version: string;
  resource: string;
  kind?: string;
  namespaced: boolean;
  /** undefined = all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface Checkpoint {
  kind: typeof CHECKPOINT_KIND;
  version: number;
  /** Server URL the resourceVersion belongs to (resourceVersions mean nothing on another cluster). */
  server: string;
  resource: CheckpointResource;
  /** The last resourceVersion seen (a watch event, a BOOKMARK or a list). */
  resourceVersion: string;
  /** RFC 3339 time of the write. */
  updated: string;
}

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

export function readCheckpoint(path: string): Checkpoint {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CheckpointError(code === 'ENOENT' ? `${path}: no such checkpoint file` : `${path}: cannot read the checkpoint: ${(err as Error).message}`);
  }
  let cp: Partial<Checkpoint>;
  try {
    cp = JSON.parse(text) as Partial<Checkpoint>;
  } catch {
    throw new CheckpointError(`${path} is not a kwatch checkpoint: it is not JSON`);
  }
  if (!cp || cp.kind !== CHECKPOINT_KIND) throw new CheckpointError(`${path} is not a kwatch checkpoint (written by kwatch replay --checkpoint)`);
  if (typeof cp.version !== 'number' || cp.version > CHECKPOINT_VERSION) throw new CheckpointError(`${path} is a checkpoint of version ${String(cp.version)}; this kwatch reads version ${CHECKPOINT_VERSION}: upgrade kwatch`);
  if (typeof cp.resourceVersion !== 'string' || !cp.resourceVersion || !cp.resource || typeof cp.resource.resource !== 'string' || typeof cp.server !== 'string') {
    throw new CheckpointError(`${path}: the checkpoint has no resourceVersion, resource or server`);
  }
  return cp as Checkpoint;
}

/** Whether a file's content is a checkpoint kwatch wrote (JSON of kind KwatchCheckpoint). */
export function isKwatchCheckpoint(content: string): boolean {
  try {
    const cp = JSON.parse(content) as { kind?: unknown } | null;
    return cp?.kind === CHECKPOINT_KIND;
  } catch {
    return false;
  }
}

/** Throws a FileWriteError when `path` cannot be a checkpoint (a device, a FIFO, a symbolic link, no such directory). */
export function checkCheckpointTarget(path: string): void {
  checkWriteTarget(path, 'checkpoint');
}

/** Writes to a temporary file beside `path`, then renames it over: readers never see half a file. Throws FileWriteError. */
export function writeCheckpoint(path: string, cp: Checkpoint): void {
  replacePrivateFile(path, `${JSON.stringify(cp, null, 2)}\n`, 'checkpoint');
}

/**
 * Keeps a checkpoint file up to date as resourceVersions go by: the first change is written at once,
 * later ones at most once per `throttleMs` (the latest wins); flush() writes what is pending. A failed
 * write never throws into the watch that reported the resourceVersion: it is kept in `failure`, later
 * writes are skipped and `onFailure` is told (to stop the run).
 */
export class CheckpointKeeper {
  private written = '';
  private pending = '';
  private lastWrite = -Infinity;
  private timer?: ReturnType<typeof setTimeout>;
  /** Writes done (for tests and -v). */
  writes = 0;
  /** The write that failed, if one did. */
  failure?: FileWriteError;

  constructor(
    readonly path: string,
    private readonly base: Omit<Checkpoint, 'kind' | 'version' | 'resourceVersion' | 'updated'>,
    private readonly throttleMs = 1000,
    private readonly now: () => number = Date.now,
    private readonly onFailure?: (err: FileWriteError) => void,
  ) {
    checkCheckpointTarget(path);
  }

  get resourceVersion(): string {
    return this.pending || this.written;
  }

  update(rv: string): void {
    if (!rv || rv === this.pending) return;
    this.pending = rv;
    const wait = this.lastWrite + this.throttleMs - this.now();
    if (wait <= 0) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending || this.pending === this.written || this.failure) return;
    try {
      writeCheckpoint(this.path, { kind: CHECKPOINT_KIND, version: CHECKPOINT_VERSION, ...this.base, resourceVersion: this.pending, updated: new Date(this.now()).toISOString() });
    } catch (err) {
      this.failure = err instanceof FileWriteError ? err : new FileWriteError(`cannot write the checkpoint to ${this.path}: ${(err as Error).message}`, { cause: err });
      this.onFailure?.(this.failure);
      return;
    }
    this.written = this.pending;
    this.lastWrite = this.now();
    this.writes++;
  }
}
