// Coalesces many small writes into few. process.stdout writes to files and pipes synchronously on Linux, one
// system call each; a watch run traces several records per event, so writing each line on its own cost more
// than every pipeline stage together (see docs/benchmarks.md). A busy watch delivers about one event per turn
// of the event loop, so writes are also spaced: at most one per `minIntervalMs` while lines keep coming.

export interface Writable {
  write(chunk: string): unknown;
}

export interface BatchedWriter extends Writable {
  /** Writes what is pending now. */
  flush(): void;
  /** Text was added to the pending text directly (not through write()): schedule it like a write. */
  appended(): void;
}

/** Where a batch's text waits: strings by default; the ndjson printer keeps bytes (ndjson-buffer.ts). */
export interface PendingText {
  /** How much is pending, in characters or bytes (compared with maxChars). */
  readonly size: number;
  push(text: string): void;
  /** All the pending text, in order; empties it. */
  take(): string;
}

/** Pending strings, joined when taken. */
class PendingStrings implements PendingText {
  private parts: string[] = [];
  size = 0;

  push(text: string): void {
    this.parts.push(text);
    this.size += text.length;
  }

  take(): string {
    const text = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts = [];
    this.size = 0;
    return text;
  }
}

export interface BatchOptions {
  /** Pending text that is written at once. Default 64 Ki characters. */
  maxChars?: number;
  /** Least time between two writes made at the end of a turn (a later line waits at most this). Default 1 ms. */
  minIntervalMs?: number;
}

/**
 * Lines reach `stream` at the end of the current turn (setImmediate) or, when the last write was less than
 * minIntervalMs ago, when that interval is over; at once past maxChars, and on flush().
 */
export function batchWrites(stream: Writable, { maxChars = 64 * 1024, minIntervalMs = 1 }: BatchOptions = {}, pending: PendingText = new PendingStrings()): BatchedWriter {
  let scheduled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastWrite = -Infinity;
  const flush = () => {
    scheduled = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const text = pending.take();
    lastWrite = performance.now();
    stream.write(text);
  };
  const endOfTurn = () => {
    // Flushed meanwhile, or already waiting (a flush past maxChars and a new line can leave two turn ends pending).
    if (!scheduled || timer !== undefined) return;
    const wait = lastWrite + minIntervalMs - performance.now();
    // Still scheduled while the timer runs, so that the lines of the turns until then only join the batch.
    if (wait > 0) timer = setTimeout(flush, wait);
    else flush();
  };
  const appended = () => {
    if (pending.size >= maxChars) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(endOfTurn);
    }
  };
  return {
    write(chunk: string) {
      pending.push(chunk);
      appended();
      return true;
    },
    flush,
    appended,
  };
}
