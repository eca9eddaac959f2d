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
export function batchWrites(stream: Writable, { maxChars = 64 * 1024, minIntervalMs = 1 }: BatchOptions = {}): BatchedWriter {
  let pending: string[] = [];
  let size = 0;
  let scheduled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastWrite = -Infinity;
  const flush = () => {
    scheduled = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0] : pending.join('');
    pending = [];
    size = 0;
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
  return {
    write(chunk: string) {
      pending.push(chunk);
      size += chunk.length;
      if (size >= maxChars) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(endOfTurn);
      }
      return true;
    },
    flush,
  };
}
