// client-go's REST-layer Retry-After rule, which our ListerWatchers leave to their callers (they never retry).
import { StatusError } from './errors.js';

/** client-go's default `maxRetries` for one request. */
export const MAX_RETRY_AFTER_RETRIES = 10;

/**
 * How long to wait before repeating a request that failed with `err`, or undefined when client-go's REST
 * layer would not retry it: only a 429 or 5xx answer whose Retry-After header held whole seconds
 * (StatusError.retryAfterSeconds) is retried (rest/with_retry.go `checkWait`).
 */
export function retryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof StatusError)) return undefined;
  const s = err.retryAfterSeconds;
  if (s === undefined || !Number.isInteger(s) || s < 0) return undefined;
  const code = err.httpCode;
  return code === 429 || code >= 500 ? s * 1000 : undefined;
}
