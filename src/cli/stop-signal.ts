// One AbortSignal for "the user wants to stop": Ctrl-C / SIGTERM, --for DURATION, stdout gone, or an explicit stop().
import { RunStopped } from '../informer/errors.js';
import { stdoutClosed } from './stdout-guard.js';

export interface StopSignal {
  signal: AbortSignal;
  /** Why it stopped: "interrupted", "duration", "max-events", "synced", … */
  readonly reason: string | undefined;
  stop(reason: string): void;
  dispose(): void;
  /** With secondSignalForces: aborted by a Ctrl-C or SIGTERM that comes after the run was asked to stop. */
  forced: AbortSignal;
}

/**
 * `secondSignalForces`: the command waits for work in flight after the first stop, so it keeps listening:
 * any later SIGINT/SIGTERM aborts `forced` (the command then exits at once). Without it, the first signal
 * removes the listeners and a second one ends the process the default way.
 */
export function createStopSignal(opts: { forMs?: number; secondSignalForces?: boolean } = {}): StopSignal {
  const createdAt = Date.now();
  const ac = new AbortController();
  const force = new AbortController();
  let reason: string | undefined;
  const stop = (why: string) => {
    if (ac.signal.aborted) return;
    reason = why;
    ac.abort(new RunStopped(why, Date.now() - createdAt));
  };
  const onSignal = () => {
    if (ac.signal.aborted && opts.secondSignalForces) force.abort(new Error('stopped: forced'));
    else stop('interrupted');
  };
  const onOutputClosed = () => stop('output closed');
  const listen = opts.secondSignalForces ? process.on.bind(process) : process.once.bind(process);
  listen('SIGINT', onSignal);
  listen('SIGTERM', onSignal);
  if (stdoutClosed.aborted) onOutputClosed();
  else stdoutClosed.addEventListener('abort', onOutputClosed, { once: true });
  const timer = opts.forMs && opts.forMs > 0 ? setTimeout(() => stop('duration'), opts.forMs) : undefined;
  return {
    signal: ac.signal,
    get reason() {
      return reason;
    },
    stop,
    forced: force.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stdoutClosed.removeEventListener('abort', onOutputClosed);
      if (timer) clearTimeout(timer);
    },
  };
}
