// Client-side limits on writes that leave the process (--writes apply, server-dry-run): client-go's
// token bucket (--qps, --burst; controller-runtime's defaults 20 and 30) and a cap on the run's total
// (--max-writes), so a runaway reconciler cannot flood a cluster.
import type { Clock } from '../informer/clock.js';

export interface WriteLimits {
  qps: number;
  burst: number;
  /** Writes sent per run; the one past it is refused and the run stops. */
  maxWrites: number;
}

export const DEFAULT_WRITE_LIMITS: WriteLimits = { qps: 20, burst: 30, maxWrites: 10_000 };

export class MaxWritesReached extends Error {
  constructor(readonly max: number) {
    super(`--max-writes ${max} reached: the reconcilers sent ${max} writes in this run and kwatch stopped it (raise --max-writes if that is expected)`);
    this.name = 'MaxWritesReached';
  }
}

export class WriteLimiter {
  private tokens: number;
  private last: number;
  private sent = 0;
  /** Writes waiting for a token, in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly limits: WriteLimits,
    private readonly clock: Clock,
  ) {
    this.tokens = limits.burst;
    this.last = clock.now();
  }

  get count(): number {
    return this.sent;
  }

  /** Waits for a token (first come, first served); throws MaxWritesReached past the cap. */
  take(signal?: AbortSignal): Promise<void> {
    if (this.sent >= this.limits.maxWrites) return Promise.reject(new MaxWritesReached(this.limits.maxWrites));
    this.sent++;
    const turn = this.queue.then(() => this.wait(signal));
    this.queue = turn.catch(() => {});
    return turn;
  }

  private async wait(signal?: AbortSignal): Promise<void> {
    this.refill();
    if (this.tokens < 1) {
      await this.clock.sleep(Math.ceil(((1 - this.tokens) * 1000) / this.limits.qps), signal);
      this.refill();
    }
    this.tokens -= 1;
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.last) * this.limits.qps) / 1000);
    this.last = now;
  }
}
