// Writes a recording (src/informer/recording-format.ts) to a file, one synchronous write per line,
// so that Ctrl-C, a kill or a crash never loses a line that was received.
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { RecordingEntry, RecordingHeader } from '../informer/recording-format.js';

/** Where a RecordingListerWatcher puts its entries. */
export interface RecordingSink {
  /** Milliseconds since the recording started (the `t` of entries). */
  elapsed(): number;
  /** A new connection number (a LIST page request or a watch connection). */
  nextConn(): number;
  write(entry: RecordingEntry): void;
}

export interface RecordingFileOptions {
  /** Applied to every line before it is written (masking Secrets and tokens); identity by default. */
  redact?: <T>(value: T) => T;
  now?: () => number;
}

export class RecordingFile implements RecordingSink {
  private fd: number | undefined;
  private conn = 0;
  private readonly start: number;
  private readonly redact: <T>(value: T) => T;
  private readonly now: () => number;
  lines = 0;

  /** Creates (or truncates) `path` and writes the header at once. */
  constructor(
    readonly path: string,
    header: Omit<RecordingHeader, 'startTime'>,
    opts: RecordingFileOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.redact = opts.redact ?? ((v) => v);
    this.start = this.now();
    this.fd = openSync(path, 'w');
    this.line({ ...header, startTime: new Date(this.start).toISOString() });
  }

  elapsed(): number {
    return this.now() - this.start;
  }

  nextConn(): number {
    return ++this.conn;
  }

  write(entry: RecordingEntry): void {
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
    closeSync(fd);
  }

  private line(value: unknown): void {
    if (this.fd === undefined) return;
    // One writeSync per line: the kernel has the whole line before the next event is handled.
    const buf = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
    for (let off = 0; off < buf.length; ) off += writeSync(this.fd, buf, off, buf.length - off);
    this.lines++;
  }
}
