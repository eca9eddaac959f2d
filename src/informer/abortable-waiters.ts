// Promise waiters that an AbortSignal rejects, with one abort listener per signal rather than one per wait:
// the FIFO and the workqueue wait once per event when the pipeline keeps up, and adding and removing an
// EventTarget listener each time cost several percent of the pipeline's time.

interface Waiter<T> {
  resolve(value: T): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
}

export class AbortableWaiters<T> {
  private waiting: Waiter<T>[] = [];
  private readonly watched = new WeakSet<AbortSignal>();

  get size(): number {
    return this.waiting.length;
  }

  /** Resolves when a waker picks this waiter; rejects with the signal's reason when it aborts first. */
  wait(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ resolve, reject, signal });
      if (signal !== undefined && !this.watched.has(signal)) {
        this.watched.add(signal);
        signal.addEventListener('abort', () => this.rejectAborted(signal), { once: true });
      }
    });
  }

  /** Resolves the longest-waiting waiter; false when none waits. */
  resolveFirst(value: T): boolean {
    const w = this.waiting.shift();
    w?.resolve(value);
    return w !== undefined;
  }

  /** Resolves every waiter. */
  resolveAll(value: T): void {
    if (this.waiting.length === 0) return;
    const all = this.waiting;
    this.waiting = [];
    for (const w of all) w.resolve(value);
  }

  private rejectAborted(signal: AbortSignal): void {
    const keep: Waiter<T>[] = [];
    for (const w of this.waiting) {
      if (w.signal === signal) w.reject(signal.reason);
      else keep.push(w);
    }
    this.waiting = keep;
  }
}
