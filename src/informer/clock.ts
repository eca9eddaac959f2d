// Time is injected into every stage (a Clock), so tests run on virtual time.
import { timerMs } from './duration.js';

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Resolves after ms, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    // timerMs: a delay past Node's range would fire at once (and a loop over it would spin).
    const t = setTimeout(fn, timerMs(ms));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, timerMs(ms));
      const onAbort = () => {
        clearTimeout(t);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

/** A manually advanced clock for tests: timers fire only inside advance(). */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void; cancelled: boolean }[] = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const h = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        h.cancel();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Number of timers still waiting. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by ms, firing due timers in order (and letting promise callbacks run between them). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.timers.filter((t) => !t.cancelled && t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.current = Math.max(this.current, due.at);
      due.cancelled = true;
      this.timers = this.timers.filter((t) => !t.cancelled);
      due.fn();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise<void>((r) => setImmediate(r));
}
