// A failed write to stdout — a full disk, `> /dev/full`, a closed pipe — ends the command with one line
// (none for a closed pipe, as `kwatch … | head` is normal) instead of a stack trace from wherever the
// write happened. Output to a file fails synchronously inside write(), output to a pipe with an 'error'
// event; both land here. Later writes are dropped, and running commands are told to stop.

/**
 * Aborted when stdout can no longer be written; stop signals listen to it. One per process: the npm CLI's
 * entry (dist/cli/main.js, which installs the guard) and the bundle it loads for the commands
 * (dist/kwatch.cjs, which reads it) each hold a copy of this module.
 */
const outputGone: AbortController = ((globalThis as Record<symbol, unknown>)[Symbol.for('kwatch.stdoutGone')] ??= new AbortController()) as AbortController;
export const stdoutClosed: AbortSignal = outputGone.signal;
const GUARDED = Symbol.for('kwatch.stdoutGuarded');

/** True when stdout failed for a reason worth its error line (not a closed pipe): summaries are then left out. */
export function stdoutFailed(): boolean {
  return stdoutClosed.aborted && (stdoutClosed.reason as NodeJS.ErrnoException | undefined)?.code !== 'EPIPE';
}

/** The one line for a failed stdout write; undefined for a closed pipe (said nothing, like kubectl). */
export function outputFailureLine(err: NodeJS.ErrnoException): string | undefined {
  if (err.code === 'EPIPE') return undefined;
  const why = (err.message ?? String(err)).replace(/^[A-Z0-9_]+: /, '').replace(/, \w+$/, '');
  return `error: cannot write to standard output: ${why}${err.code ? ` (${err.code})` : ''}`;
}

type Stream = NodeJS.WriteStream | (NodeJS.WritableStream & { write: (...args: never[]) => boolean });

export function guardStdout(stream: Stream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): void {
  if ((stream as { [GUARDED]?: boolean })[GUARDED]) return;
  (stream as { [GUARDED]?: boolean })[GUARDED] = true;
  const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  const emit = stream.emit.bind(stream) as (event: string | symbol, ...args: unknown[]) => boolean;
  const fail = (err: NodeJS.ErrnoException) => {
    if (outputGone.signal.aborted) return;
    const line = outputFailureLine(err);
    if (line) {
      stderr.write(`${line}\n`);
      process.exitCode = 1;
    }
    outputGone.abort(err);
    // Writers waiting for 'drain' (a full pipe when it closed) would wait forever, and Node, its event loop
    // empty under a pending top-level await, would exit 13: wake them; their writes are dropped from now on.
    process.nextTick(() => emit('drain'));
  };
  (stream as { write: unknown }).write = (...args: unknown[]): boolean => {
    if (outputGone.signal.aborted) {
      // A dropped write still completes, or a writer awaiting its callback would hang (exit 13, as above).
      const cb = args.findLast((a) => typeof a === 'function') as (() => void) | undefined;
      if (cb) process.nextTick(cb);
      return true;
    }
    try {
      return original(...args);
    } catch (err) {
      fail(err as NodeJS.ErrnoException);
      return true;
    }
  };
  // Every 'error' comes here alone: other listeners (oclif rethrows all but EPIPE) would turn it into a stack.
  (stream as { emit: unknown }).emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'error') return emit(event, ...args);
    fail(args[0] as NodeJS.ErrnoException);
    return true;
  };
}
