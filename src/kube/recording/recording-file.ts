// Writes a recording (src/informer/recording/recording-format.ts) to a file, one synchronous write per line,
// so that Ctrl-C, a kill or a crash never loses a line that was received. The file is 0600 and only ever a
// regular file (see private-file.ts).
import { closeSync, fsyncSync } from 'node:fs';
import { errnoText, FileWriteError, openPrivateFile, writeAll } from './private-file.js';
import type { RecordingEntry, RecordingHeader, RecordingNote } from '../../informer/recording/recording-format.js';

/** Where a RecordingListerWatcher puts its entries. */
export interface RecordingSink {
  /** Milliseconds since the recording started (the `t` of entries). */
  elapsed(): number;
  /** A new connection number (a LIST page request or a watch connection). */
  nextConn(): number;
  write(entry: RecordingEntry | RecordingNote): void;
}

export interface RecordingFileOptions {
  /** Applied to every line before it is written (masking Secrets and tokens); identity by default. */
  redact?: <T>(value: T) => T;
  now?: () => number;
  /** Told once when a write fails (the disk is full…): later lines are dropped, `failure` keeps the error. */
  onFailure?: (err: FileWriteError) => void;
}

export class RecordingFile implements RecordingSink {
  private fd: number | undefined;
  private conn = 0;
  private readonly start: number;
  private readonly redact: <T>(value: T) => T;
  private readonly now: () => number;
  lines = 0;
  /** The write that failed, if one did. */
  failure?: FileWriteError;
  private readonly onFailure?: (err: FileWriteError) => void;

  /** Creates (or truncates) `path` and writes the header at once; throws FileWriteError for a path that is not ours to write. */
  constructor(
    readonly path: string,
    header: Omit<RecordingHeader, 'startTime'>,
    opts: RecordingFileOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.redact = opts.redact ?? ((v) => v);
    this.onFailure = opts.onFailure;
    this.start = this.now();
    this.fd = openPrivateFile(path, 'recording');
    this.line({ ...header, startTime: new Date(this.start).toISOString() });
  }

  elapsed(): number {
    return this.now() - this.start;
  }

  nextConn(): number {
    return ++this.conn;
  }

  write(entry: RecordingEntry | RecordingNote): void {
    this.line(this.redact(entry));
  }

  /** Flushes to disk and closes; later writes are ignored. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fsyncSync(fd);
    } catch {
      // not every file system supports fsync (e.g. a pipe); the data was written either way
    }
    try {
      closeSync(fd);
    } catch {
      // after a failed write the descriptor may be unusable: nothing more to save
    }
  }

  private line(value: unknown): void {
    if (this.fd === undefined) return;
    // One writeSync per line: the kernel has the whole line before the next event is handled.
    try {
      writeAll(this.fd, Buffer.from(`${JSON.stringify(value)}\n`, 'utf8'));
    } catch (err) {
      // Never thrown into the watch that delivered the line: the run stops and reports this once.
      this.failure = new FileWriteError(`cannot write the recording to ${this.path}: ${errnoText(err)} (${this.lines} lines written)`, { cause: err });
      this.close();
      this.onFailure?.(this.failure);
      return;
    }
    this.lines++;
  }
}
