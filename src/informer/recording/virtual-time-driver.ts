// Drives an in-process run on virtual time: let everything settle, then fire the next timer, until the
// caller says it is done — so a replayed recording traces the same records on every run.
import type { VirtualClock } from './virtual-clock.js';

export type DriveStop = 'signal' | 'stalled';

export interface DriveOptions {
  clock: VirtualClock;
  /** Records (or any other progress) seen so far: the run is settled when it stops growing. */
  progress: () => number;
  /** Checked after every settle: a reason to stop, or undefined to go on. */
  done: () => string | undefined;
  /** No timer due before this epoch ms: nothing left to happen, stop as 'stalled'. */
  horizon: number;
  /** Virtual time runs this many times faster than real time; Infinity runs as fast as possible. */
  speed?: number;
  signal: AbortSignal;
}

/** Resolves with the `done` reason, 'signal' when aborted, or 'stalled'. */
export async function driveVirtualTime(o: DriveOptions): Promise<string> {
  for (;;) {
    await settle(o.progress);
    const reason = o.done();
    if (reason !== undefined) return reason;
    if (o.signal.aborted) return 'signal';
    const next = o.clock.nextAt();
    if (next === undefined || next > o.horizon) return 'stalled';
    const speed = o.speed ?? Infinity;
    if (Number.isFinite(speed) && next > o.clock.now()) await realSleep((next - o.clock.now()) / speed, o.signal);
    if (!o.signal.aborted) o.clock.fireNext();
  }
}

/**
 * Waits until the run has nothing left to do without time passing: no progress over a few turns of the
 * event loop. Everything is in-process, so this is exact enough.
 */
export async function settle(count: () => number): Promise<void> {
  let last = count();
  let quiet = 0;
  for (let i = 0; i < 1_000_000 && quiet < 3; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = count();
    if (now === last) quiet++;
    else {
      quiet = 0;
      last = now;
    }
  }
}

function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
