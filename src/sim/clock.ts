// The sim's clock: what the store stamps creationTimestamps with and what the CronJob controller schedules by. The
// system clock by default; tests hand the server a ManualClock and move time forward without waiting for it.

export interface SimClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `fn` once the clock reads `time` (epoch ms) or later; returns a function that cancels the call. */
  at(time: number, fn: () => void): () => void;
}

/** setTimeout's longest delay (about 24.8 days): a later wake-up is re-armed when it fires early. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export const systemClock: SimClock = {
  now: () => Date.now(),
  at(time, fn) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      const delay = time - Date.now();
      if (delay <= 0) { timer = undefined; fn(); return; }
      timer = setTimeout(arm, Math.min(delay, MAX_DELAY_MS));
      timer.unref?.();
    };
    // Never call back synchronously: callers arm wake-ups from inside their own work.
    timer = setTimeout(arm, Math.min(Math.max(0, time - Date.now()), MAX_DELAY_MS));
    timer.unref?.();
    return () => { if (timer !== undefined) clearTimeout(timer); };
  },
};

/** A clock that moves only when told to; its wake-ups run, in time order, as `advance` passes them. */
export class ManualClock implements SimClock {
  private time: number;
  private readonly waiting = new Set<{ time: number; fn: () => void }>();

  constructor(start: number) {
    this.time = start;
  }

  now(): number { return this.time; }

  at(time: number, fn: () => void): () => void {
    const entry = { time, fn };
    this.waiting.add(entry);
    return () => { this.waiting.delete(entry); };
  }

  /** Moves the clock forward by `ms`, running each wake-up that falls due on the way (at its own time). */
  advance(ms: number): void {
    this.set(this.time + ms);
  }

  /** Moves the clock to `time` (never backwards). */
  set(time: number): void {
    const target = Math.max(this.time, time);
    for (;;) {
      const due = [...this.waiting].filter((w) => w.time <= target).sort((a, b) => a.time - b.time)[0];
      if (!due) break;
      this.waiting.delete(due);
      this.time = Math.max(this.time, due.time);
      due.fn();
    }
    this.time = target;
  }
}
