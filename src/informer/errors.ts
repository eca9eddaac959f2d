// Errors the informer core understands, each with a stable code. ListerWatcher implementations
// throw these so the reflector can decide between re-watch, relist and backoff.
import type { Status } from './types.js';

export type KwatchErrorCode =
  | 'STATUS' // the server answered with a Status (see .status)
  | 'CONNECTION' // the server could not be reached, or the connection broke
  | 'WATCH_DECODE' // a watch line was not a valid watch event
  | 'STREAM_CUT' // the stream ended in the middle of a line
  | 'CONTROLLER_MODULE' // a user's controller module (kwatch reconcile --with) could not be loaded
  | 'TOO_LARGE' // one object (a watch line, a list item) exceeded the size bound
  | 'TOO_DEEP'; // one object nests deeper than kwatch follows (nesting.ts)

export class KwatchError extends Error {
  constructor(
    readonly code: KwatchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A Status answer from the server: HTTP error bodies, or ERROR watch events. */
export class StatusError extends KwatchError {
  constructor(
    readonly status: Status,
    /** Seconds from a numeric Retry-After header, if the server sent one. */
    readonly retryAfterSeconds?: number,
    /** Size of the HTTP body it came in (an answer's, not a watch ERROR event's), as the http response record counts it. */
    readonly bytes?: number,
  ) {
    super('STATUS', status.message || `the server responded with status ${status.code}${status.reason ? ` (${status.reason})` : ''}`);
  }
  get httpCode(): number {
    return this.status.code;
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

/** The body size of a failed request's answer, when the error is one (the bytes a summary counts for it). */
export function answerBytes(err: unknown): number | undefined {
  return err instanceof StatusError ? err.bytes : undefined;
}

/** client-go's IsResourceExpired / IsGone: reason Expired or Gone, or a 410 with an unknown reason. */
export function isExpired(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  const r = err.reason;
  if (r === 'Expired' || r === 'Gone') return true;
  return err.httpCode === 410 && (!r || r === 'Unknown');
}

/** The 504 "Too large resource version" answer (cause ResourceVersionTooLarge). */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  return (err.status.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');
}

export function isTooManyRequests(err: unknown): boolean {
  return err instanceof StatusError && (err.httpCode === 429 || err.reason === 'TooManyRequests');
}

/** The abort reason of the user's stop (Ctrl-C, --for): why, and how long the run had gone on by then. */
export class RunStopped extends Error {
  constructor(readonly why: string, readonly afterMs: number) {
    super(`stopped: ${why}`);
  }
}

export class ConnectionError extends KwatchError {
  constructor(
    message: string,
    /** The system error code, e.g. ECONNREFUSED, ECONNRESET, ETIMEDOUT. */
    readonly sysCode?: string,
    options?: { cause?: unknown },
  ) {
    super('CONNECTION', message, options);
  }
  get refused(): boolean {
    return this.sysCode === 'ECONNREFUSED';
  }
}

export class WatchDecodeError extends KwatchError {
  constructor(
    message: string,
    readonly line: string,
  ) {
    super('WATCH_DECODE', message);
  }
}

export class StreamCutError extends KwatchError {
  constructor(readonly partialLine: string) {
    super('STREAM_CUT', `the watch stream ended in the middle of an event (${partialLine.length} bytes of an unfinished line)`);
  }
}

/**
 * One object on the wire grew past the bound the client allows (a watch line without its newline, one
 * list item, a list envelope): the request is failed instead of letting one endless answer eat the memory.
 */
export class ObjectTooLargeError extends KwatchError {
  constructor(
    /** What was too large, e.g. "a watch event" or "an item of the list of /api/v1/pods". */
    readonly what: string,
    readonly limitBytes: number,
  ) {
    super('TOO_LARGE', `${what} is larger than ${formatBytes(limitBytes)} (the --max-object-size bound): the server sent more without the object ending`);
  }
}

/** 67108864 → "64Mi"; other sizes in plain bytes. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['Gi', 1 << 30], ['Mi', 1 << 20], ['Ki', 1 << 10]] as const) {
    if (n >= size && n % size === 0) return `${n / size}${unit}`;
  }
  return `${n} bytes`;
}
