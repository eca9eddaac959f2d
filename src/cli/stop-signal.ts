// One AbortSignal for "the user wants to stop": Ctrl-C / SIGTERM, --for DURATION, stdout gone, or an explicit stop().
import { stdoutClosed } from './stdout-guard.js';

export interface StopSignal {
  signal: AbortSignal;
  /** Why it stopped: "interrupted", "duration", "max-events", "synced", … */
  readonly reason: string | undefined;
  stop(reason: string): void;
  dispose(): void;
}

export function createStopSignal(opts: { forMs?: number } = {}): StopSignal {
  const ac = new AbortController();
  let reason: string | undefined;
  const stop = (why: string) => {
    if (ac.signal.aborted) return;
    reason = why;
    ac.abort(new Error(`stopped: ${why}`));
  };
  const onSignal = () => stop('interrupted');
  const onOutputClosed = () => stop('output closed');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (stdoutClosed.aborted) onOutputClosed();
  else stdoutClosed.addEventListener('abort', onOutputClosed, { once: true });
  const timer = opts.forMs && opts.forMs > 0 ? setTimeout(() => stop('duration'), opts.forMs) : undefined;
  return {
    signal: ac.signal,
    get reason() {
      return reason;
    },
    stop,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stdoutClosed.removeEventListener('abort', onOutputClosed);
      if (timer) clearTimeout(timer);
    },
  };
}
