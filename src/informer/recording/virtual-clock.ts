// A Clock whose time moves only when its driver says so: replays run on the recording's own time.
import type { Clock, TimerHandle } from '../clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Timers fire in (time, creation) order, one per fireNext(); now() never goes backwards. */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        h.cancel();
        reject(signal!.reason);
      };
      const h = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** When the next live timer is due; undefined when none is waiting. */
  nextAt(): number | undefined {
    this.timers = this.timers.filter((t) => !t.cancelled);
    let next: Timer | undefined;
    for (const t of this.timers) if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
    return next?.at;
  }

  /** Moves time to the next timer and runs it; false when no timer is waiting. */
  fireNext(): boolean {
    const at = this.nextAt();
    if (at === undefined) return false;
    const timer = this.timers.filter((t) => t.at === at).sort((a, b) => a.seq - b.seq)[0];
    timer.cancelled = true;
    this.current = Math.max(this.current, at);
    timer.fn();
    return true;
  }
}
