// Rate limiters (client-go default_rate_limiters.go): how long an item waits before it is retried.
import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';

/** client-go's TypedRateLimiter; delays are in milliseconds. */
export interface RateLimiter<T = string> {
  /** How long to wait before item may be processed again; records a failure/attempt. */
  when(item: T): number;
  /** Stops tracking item (it succeeded). */
  forget(item: T): void;
  /** Failures recorded for item. */
  numRequeues(item: T): number;
}

/** base × 2^failures, capped at max: 5 ms, 10, 20, … 1000 s from the 19th failure (default 5 ms → 1000 s). */
export class ItemExponentialFailureRateLimiter<T = string> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();
  constructor(
    readonly baseDelayMs = 5,
    readonly maxDelayMs = 1_000_000,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp;
    return !Number.isFinite(backoff) || backoff > this.maxDelayMs ? this.maxDelayMs : backoff;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * One token bucket shared by all items (golang.org/x/time/rate's Limiter with Reserve().Delay()):
 * starts full with `burst` tokens, refills at `qps`; every when() reserves a token, so after the burst
 * each call waits 1/qps longer than the previous. forget/numRequeues do nothing.
 */
export class BucketRateLimiter<T = string> implements RateLimiter<T> {
  private tokens: number;
  private last: number;
  private readonly clock: Clock;

  constructor(
    readonly qps = 10,
    readonly burst = 100,
    clock: Clock = realClock,
  ) {
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    const last = Math.min(this.last, now);
    let tokens = Math.min(this.burst, this.tokens + ((now - last) / 1000) * this.qps);
    tokens -= 1;
    this.tokens = tokens;
    this.last = now;
    return tokens < 0 ? (-tokens / this.qps) * 1000 : 0;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** `fast` for the first maxFastAttempts attempts of an item, `slow` after. */
export class ItemFastSlowRateLimiter<T = string> implements RateLimiter<T> {
  private readonly attempts = new Map<T, number>();
  constructor(
    readonly fastDelayMs: number,
    readonly slowDelayMs: number,
    readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const n = (this.attempts.get(item) ?? 0) + 1;
    this.attempts.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: T): void {
    this.attempts.delete(item);
  }

  numRequeues(item: T): number {
    return this.attempts.get(item) ?? 0;
  }
}

/** The longest delay of its limiters (all are asked, so all record the attempt). */
export class MaxOfRateLimiter<T = string> implements RateLimiter<T> {
  readonly limiters: readonly RateLimiter<T>[];
  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/** Caps another limiter's delay at maxDelayMs. */
export class WithMaxWaitRateLimiter<T = string> implements RateLimiter<T> {
  constructor(
    readonly limiter: RateLimiter<T>,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    return Math.min(this.limiter.when(item), this.maxDelayMs);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}

/** client-go's DefaultControllerRateLimiter: max of per-item exponential (5 ms → 1000 s) and one 10 qps / burst 100 bucket. */
export function defaultControllerRateLimiter<T = string>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1_000_000), new BucketRateLimiter<T>(10, 100, clock));
}

/** client-go's DefaultItemBasedRateLimiter: per-item exponential 1 ms → 1000 s. */
export function defaultItemBasedRateLimiter<T = string>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(1, 1_000_000);
}
