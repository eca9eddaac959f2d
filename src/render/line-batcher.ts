// Coalesces many small writes into one per turn of the event loop. process.stdout writes to files and
// pipes synchronously on Linux, one system call each; a watch run traces several records per event, so
// writing each line on its own cost more than every pipeline stage together (see docs/benchmarks.md).

export interface Writable {
  write(chunk: string): unknown;
}

export interface BatchedWriter extends Writable {
  /** Writes what is pending now. */
  flush(): void;
}

/** Lines reach `stream` at the end of the current turn (setImmediate), or at once past `maxChars`. */
export function batchWrites(stream: Writable, maxChars = 64 * 1024): BatchedWriter {
  let pending: string[] = [];
  let size = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0] : pending.join('');
    pending = [];
    size = 0;
    stream.write(text);
  };
  return {
    write(chunk: string) {
      pending.push(chunk);
      size += chunk.length;
      if (size >= maxChars) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return true;
    },
    flush,
  };
}
