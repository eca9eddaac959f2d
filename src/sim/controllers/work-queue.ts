// A keyed, de-duplicating work queue on timers: what a controller's workqueue is, minus the goroutines.

/** Longest wait before a key that keeps failing is tried again. */
const MAX_BACKOFF_MS = 5000;
const FIRST_BACKOFF_MS = 50;

/**
 * Keys wait until they are due, then `sync(key)` runs on the event loop, never inside the write that queued them
 * (store commit listeners must not write). A key is queued once: adding it again only moves it earlier. A sync that
 * throws is retried with exponential backoff; one that succeeds resets the key's backoff.
 */
export class WorkQueue {
  private readonly due = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private stopped = false;
  private running = false;

  constructor(
    private readonly sync: (key: string) => void,
    private readonly onError: (key: string, err: unknown) => void = () => undefined,
  ) {}

  /** Queues `key` to run in `delayMs` (0: on the next turn of the event loop). */
  add(key: string, delayMs = 0): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    const current = this.due.get(key);
    if (current !== undefined && current <= at) return;
    this.due.set(key, at);
    this.arm();
  }

  get size(): number { return this.due.size; }

  stop(): void {
    this.stopped = true;
    this.due.clear();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.running || this.stopped) return;
    let next = Infinity;
    for (const at of this.due.values()) if (at < next) next = at;
    if (next === Infinity || next >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(() => this.run(), Math.max(0, next - Date.now()));
    this.timer.unref?.();
  }

  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    const ready: string[] = [];
    for (const [key, at] of this.due) if (at <= now) ready.push(key);
    for (const key of ready) this.due.delete(key);
    this.running = true;
    try {
      for (const key of ready) {
        if (this.stopped) return;
        try {
          this.sync(key);
          this.failures.delete(key);
        } catch (err) {
          const n = (this.failures.get(key) ?? 0) + 1;
          this.failures.set(key, n);
          this.onError(key, err);
          this.add(key, Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (n - 1)));
        }
      }
    } finally {
      this.running = false;
    }
    this.arm();
  }
}
