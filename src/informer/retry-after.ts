// client-go's REST-layer Retry-After rule, which our ListerWatchers leave to their callers (they never retry).
import { REFLECTOR_BACKOFF } from './backoff.js';
import { StatusError } from './errors.js';

/** client-go's default `maxRetries` for one request. */
export const MAX_RETRY_AFTER_RETRIES = 10;

/** The longest Retry-After kwatch waits: the reflector's backoff cap (a server's `Retry-After: 999999999` is not a plan). */
export const MAX_RETRY_AFTER_MS = REFLECTOR_BACKOFF.maxMs;

/**
 * How long to wait before repeating a request that failed with `err`, or undefined when client-go's REST
 * layer would not retry it: only a 429 or 5xx answer whose Retry-After header held whole seconds
 * (StatusError.retryAfterSeconds) is retried (rest/with_retry.go `checkWait`). At most MAX_RETRY_AFTER_MS.
 */
export function retryAfterMs(err: unknown): number | undefined {
  const asked = askedRetryAfterMs(err);
  return asked === undefined ? undefined : Math.min(asked, MAX_RETRY_AFTER_MS);
}

/** The wait the server asked for, when it was cut to MAX_RETRY_AFTER_MS (for the trace to say so); else undefined. */
export function clampedRetryAfterMs(err: unknown): number | undefined {
  const asked = askedRetryAfterMs(err);
  return asked !== undefined && asked > MAX_RETRY_AFTER_MS ? asked : undefined;
}

function askedRetryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof StatusError)) return undefined;
  const s = err.retryAfterSeconds;
  if (s === undefined || !Number.isInteger(s) || s < 0) return undefined;
  const code = err.httpCode;
  return code === 429 || code >= 500 ? s * 1000 : undefined;
}
