// The first-contact policy every command shares. Until the server has once answered what was asked (a list
// page, an opened watch), an answer no retry can fix — a 4xx, a redirect, a malformed or oversized answer, a
// TLS or DNS failure — fails at once; a transient one — 5xx, 429, connection refused or reset, a timeout — is
// retried with the reflector's backoff, each retry announced, until a deadline. After that first answer the
// informer's own retries take over (a controller must ride out a server's bad minutes; a CLI's first request
// must not hang silently, nor hammer).
import { ExponentialBackoffManager, REFLECTOR_BACKOFF } from '../../informer/backoff.js';
import { ConnectionError, isExpired, KwatchError, RunStopped, StatusError, type KwatchErrorCode } from '../../informer/errors.js';
import { isAbortError } from './network-error.js';

/** How long a failing first contact is retried when --request-timeout does not say. */
export const DEFAULT_FIRST_CONTACT_MS = 30_000;

export interface FirstContactRetry {
  /** What was being attempted, e.g. "list pods". */
  what: string;
  error: Error;
  /** The wait before the next attempt. */
  delayMs: number;
}

export interface FirstContactOptions {
  /** Give up once this long has passed since the first attempt (ms). */
  deadlineMs: number;
  /** Told once per retry, before its wait. */
  onRetry?(retry: FirstContactRetry): void;
  now?: () => number;
  random?: () => number;
  /** Ends the retries (the user's --for or Ctrl-C) when an attempt does not bring its own signal. */
  signal?: AbortSignal;
  /** Waits between attempts (tests pass one that only moves their clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * 'retry': transient; 'fatal': retrying cannot help; 'pass': not the policy's to decide — a 410 for a
 * request at a specific resourceVersion, which the caller answers by relisting.
 */
export type FirstContactVerdict = 'retry' | 'fatal' | 'pass';

/** Connection failures worth retrying: the server (or the path to it) is down or slow, not misconfigured. */
const TRANSIENT_NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export function classifyFirstContactError(err: unknown, resourceVersion?: string): FirstContactVerdict {
  if (err instanceof StatusError) {
    const code = err.httpCode;
    if (code >= 500 || code === 429) return 'retry';
    // A 410 at a known resourceVersion is the reflector's cue to relist; from the current state it is nonsense.
    if (isExpired(err) && resourceVersion && resourceVersion !== '0') return 'pass';
    return 'fatal';
  }
  if (err instanceof ConnectionError) return err.sysCode && TRANSIENT_NETWORK.has(err.sysCode) ? 'retry' : 'fatal';
  return 'fatal';
}

/** The first contact failed for good: the deadline passed, or the user stopped the run, while it was being retried. */
export class FirstContactError extends KwatchError {
  constructor(
    message: string,
    /** The last failure seen. */
    readonly last: Error,
  ) {
    super(last instanceof KwatchError ? last.code : ('CONNECTION' satisfies KwatchErrorCode), message, { cause: last });
  }
}

/** One resource's first contact: attempt() until something succeeds once, then attempt() just calls through. */
export class FirstContact {
  private done = false;
  private startedAt: number | undefined;
  private readonly backoff: ExponentialBackoffManager;
  private readonly now: () => number;
  /** The last transient failure retried, while nothing has succeeded yet. */
  lastError: Error | undefined;

  constructor(private readonly opts: FirstContactOptions) {
    this.now = opts.now ?? Date.now;
    this.backoff = new ExponentialBackoffManager(REFLECTOR_BACKOFF, this.now, opts.random ?? Math.random);
  }

  /** True once an attempt succeeded. */
  get succeeded(): boolean {
    return this.done;
  }

  /** What was asked for has arrived (a watch-list's initial-events-end bookmark): the policy steps aside. */
  succeed(): void {
    this.done = true;
    this.lastError = undefined;
  }

  /** Seconds since the first attempt (for messages). */
  elapsedSeconds(): number {
    return this.startedAt === undefined ? 0 : Math.round((this.now() - this.startedAt) / 1000);
  }

  /**
   * Seconds to name in "stopped after": the run's own length when the stop tells it (--for 2s stops after 2s, however
   * late the first attempt began), else the time since the first attempt.
   */
  secondsAtStop(signal: AbortSignal | undefined): number {
    const r: unknown = signal?.reason;
    return r instanceof RunStopped ? Math.round(r.afterMs / 1000) : this.elapsedSeconds();
  }

  /**
   * Runs `fn` until it succeeds, retrying transient failures with backoff until the deadline. Throws
   * fatal and 'pass' errors as they are, FirstContactError at the deadline, the abort reason when `signal` aborts.
   */
  async attempt<T>(what: string, fn: () => Promise<T>, o: { signal?: AbortSignal; resourceVersion?: string; provisional?: boolean } = {}): Promise<T> {
    if (this.done) return fn();
    this.startedAt ??= this.now();
    const signal = o.signal ?? this.opts.signal;
    for (;;) {
      try {
        const value = await fn();
        // A provisional answer (an opened watch-list) is not yet what was asked for: the caller calls succeed() later.
        if (!o.provisional) this.done = true;
        this.lastError = undefined;
        return value;
      } catch (err) {
        if (signal?.aborted || isAbortError(err)) throw err;
        if (classifyFirstContactError(err, o.resourceVersion) !== 'retry') throw err;
        const error = err as Error;
        this.lastError = error;
        const left = this.startedAt + this.opts.deadlineMs - this.now();
        if (left <= 0) throw new FirstContactError(`gave up on ${what} after ${this.elapsedSeconds()}s of retries (the first-contact deadline: --request-timeout, 30s when unset)`, error);
        const retryAfterMs = err instanceof StatusError && err.retryAfterSeconds ? err.retryAfterSeconds * 1000 : 0;
        const delayMs = Math.min(Math.max(this.backoff.next(), retryAfterMs), left);
        this.opts.onRetry?.({ what, error, delayMs });
        await (this.opts.sleep ?? sleep)(delayMs, signal);
        // Stopped while waiting: the answer to give is still the server's error.
        if (signal?.aborted) throw new FirstContactError(`stopped after ${this.secondsAtStop(signal)}s while ${what} was still failing`, error);
      }
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
