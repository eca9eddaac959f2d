// The rate-limiting queue (client-go rate_limiting_queue.go): addRateLimited waits as long as the limiter says.
import type { QueueOptions, QueueReason } from './queue.js';
import { DelayingQueue } from './delaying-queue.js';
import type { RateLimiter } from './rate-limiters.js';
import { defaultControllerRateLimiter } from './rate-limiters.js';

export interface RateLimitingQueueOptions<T> extends QueueOptions<T> {
  /** Default: defaultControllerRateLimiter(clock). */
  rateLimiter?: RateLimiter<T>;
}

export class RateLimitingQueue<T = string> extends DelayingQueue<T> {
  readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /**
   * addAfter(item, rateLimiter.when(item)): records a failure and backs off; returns the delay (ms). After shutDown
   * it queues nothing and returns undefined, but the failure is still counted: client-go asks When before AddAfter
   * drops the item (rate_limiting_queue.go).
   */
  addRateLimited(item: T, ...reasons: QueueReason[]): number | undefined {
    const delayMs = this.rateLimiter.when(item);
    if (this.shuttingDown()) return undefined;
    if (this.tracer.shouldEmit('workqueue', 'add-rate-limited')) this.trace('add-rate-limited', item, { delayMs, requeues: this.rateLimiter.numRequeues(item), reason: reasons[0] });
    this.addAfter(item, delayMs, ...reasons);
    return delayMs;
  }

  /** The item succeeded: the limiter stops tracking it (its backoff resets). */
  forget(item: T): void {
    if (this.tracer.shouldEmit('workqueue', 'forget')) this.trace('forget', item, { requeues: this.rateLimiter.numRequeues(item) });
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
