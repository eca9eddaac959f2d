// The wire only: watches one or more resources and hands over each event with the exact line the
// server sent, re-watching from the last resourceVersion when the server ends a stream — through the
// reflector's backoff whenever the watch failed or ended early, so a misbehaving server is never hammered.
import { ExponentialBackoffManager, REFLECTOR_BACKOFF } from '../../informer/backoff.js';
import { isExpired, StatusError } from '../../informer/errors.js';
import { MAX_RETRY_AFTER_RETRIES, retryAfterMs } from '../../informer/retry-after.js';
import type { Status, WatchEvent } from '../../informer/types.js';
import type { Connection } from '../http/connection.js';
import { explainWatchExpiry, type PreviousWatch } from '../recording/expired-resource-version.js';
import { DEFAULT_FIRST_CONTACT_MS, FirstContact, FirstContactError, type FirstContactOptions } from '../http/first-contact.js';
import { HttpListerWatcher, resourcePath, type ListWatchTarget } from './http-lister-watcher.js';

export interface RawWatchLine {
  /** Index into the targets this event belongs to. */
  target: number;
  line: string;
  event: WatchEvent;
}

export interface RawWatchNotice {
  target: number;
  /** What happened to the stream, in words, e.g. "the server closed the watch after 300s; re-watching from 1234". */
  message: string;
}

export interface RawWatchOptions {
  signal: AbortSignal;
  /** Start each watch at this resourceVersion (default: unset — the current state as ADDED events, then changes). */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  onEvent(line: RawWatchLine): void;
  /** Called each time a watch stream opens (status 200 received). */
  onOpen?(target: number): void;
  onNotice?(notice: RawWatchNotice): void;
  /** The first watch's deadline and retry notices (default: 30s, silent). */
  firstContact?: FirstContactOptions;
  /** [0, 1) draws for backoff jitter and watch timeouts (tests). Default Math.random. */
  random?: () => number;
  /** Waits between watches (tests see the waits asked for). Default: a timer the signal cuts short. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Runs until the signal aborts. Rejects when a watch cannot be started (e.g. unknown namespace, forbidden). */
export async function runRawWatch(conn: Connection, targets: ListWatchTarget[], opts: RawWatchOptions): Promise<void> {
  const contacts = targets.map(() => new FirstContact(opts.firstContact ?? { deadlineMs: DEFAULT_FIRST_CONTACT_MS }));
  await Promise.all(targets.map((t, i) => watchOne(conn, t, i, contacts[i], opts)));
  // Stopped while the first watch was still failing: nothing ever worked.
  const never = contacts.findIndex((c) => !c.succeeded && c.lastError);
  if (never >= 0) {
    const c = contacts[never];
    throw new FirstContactError(`stopped after ${c.secondsAtStop(opts.signal)}s while the first watch of ${resourcePath(targets[never])} was still failing`, c.lastError!);
  }
}

/**
 * A watch open at least this long and then closed by the server is a normal end (its timeout): re-watch at
 * once, as client-go does. Anything shorter, or any failure, waits the reflector's backoff first (client-go
 * calls a watch under a second with no events a "very short watch" and backs off).
 */
const HEALTHY_WATCH_MS = 1000;

async function watchOne(conn: Connection, target: ListWatchTarget, index: number, contact: FirstContact, opts: RawWatchOptions): Promise<void> {
  const lw = new HttpListerWatcher(conn, target);
  const backoff = new ExponentialBackoffManager(REFLECTOR_BACKOFF, Date.now, opts.random ?? Math.random);
  const what = `watch ${resourcePath(target)}`;
  let rv = opts.resourceVersion;
  const from = () => (rv ? `resourceVersion ${rv}` : 'the current state');
  const wait = opts.sleep ?? sleep;
  /** Waits the next backoff, telling the user why and for how long. */
  const backOff = async (why: string) => {
    const ms = backoff.next();
    opts.onNotice?.({ target: index, message: `${sentence(why)}; re-watching from ${from()} in ${(ms / 1000).toFixed(1)}s` });
    await wait(ms, opts.signal);
  };
  // As the informer path does (reflector-state's onWatchFailed): client-go's REST layer repeats a request answered
  // 429/5xx with a Retry-After after exactly that wait, up to MAX_RETRY_AFTER_RETRIES times in a row, before the
  // reflector's backoff takes over.
  let retryAfterRetries = 0;
  /** The last watch that ended, for a 410 to say whether a quiet watch's resourceVersion had fallen behind. */
  let previous: PreviousWatch | undefined;
  const retryAfter = async (why: string, ms: number) => {
    retryAfterRetries++;
    opts.onNotice?.({ target: index, message: `${sentence(why)}; the server asked to wait ${(ms / 1000).toFixed(1)}s (Retry-After); re-watching from ${from()} then` });
    await wait(ms, opts.signal);
  };
  while (!opts.signal.aborted) {
    const started = Date.now();
    // As the reflector does: the server ends each watch after a random 5–10 minutes, and one silent for
    // longer than that (plus a grace) is stalled — the idle-read timeout catches it.
    const options = { resourceVersion: rv, allowWatchBookmarks: opts.allowWatchBookmarks, timeoutSeconds: watchTimeoutSeconds(opts.random ?? Math.random) };
    let stream;
    try {
      stream = await contact.attempt(what, () => lw.rawWatch(options, opts.signal), { signal: opts.signal, resourceVersion: rv });
    } catch (err) {
      if (opts.signal.aborted) return;
      // The first watch failing for good is the user's problem to see; later failures are reported and retried.
      if (!contact.succeeded) throw err;
      const asked = retryAfterMs(err);
      if (asked !== undefined && retryAfterRetries < MAX_RETRY_AFTER_RETRIES) await retryAfter(`re-watch failed: ${(err as Error).message}`, asked);
      else {
        retryAfterRetries = 0;
        await backOff(`re-watch failed: ${(err as Error).message}`);
      }
      continue;
    }
    retryAfterRetries = 0;
    opts.onOpen?.(index);
    let expired: Status | undefined;
    let broke: unknown;
    const startedAt = rv;
    let events = 0;
    try {
      for await (const item of stream) {
        opts.onEvent({ target: index, line: item.line, event: item.event });
        if (item.event.type !== 'ERROR') events++;
        const eventRv = item.event.object?.metadata?.resourceVersion;
        if (item.event.type === 'ERROR') {
          const status = item.event.object as unknown as Status;
          if (isExpired(new StatusError(status))) expired = status;
        } else if (eventRv) {
          rv = eventRv;
        }
      }
    } catch (err) {
      broke = err;
    } finally {
      stream.close();
    }
    if (opts.signal.aborted) return;
    const ms = Date.now() - started;
    const ended = previous;
    previous = { events, ms, resourceVersion: startedAt };
    if (broke !== undefined) {
      await backOff(`watch broke: ${(broke as Error).message}`);
    } else if (expired) {
      const why = rv
        ? explainWatchExpiry({ requested: rv, serverMessage: expired.message ?? '', next: 'With --raw there is no cache to relist: kwatch watches again from the current state.', previous: ended, askedBookmarks: opts.allowWatchBookmarks === true })
        : `the server answered a watch from the current state with 410 Expired (${expired.message})`;
      rv = undefined;
      previous = undefined;
      await backOff(why);
      continue;
    } else if (ms < HEALTHY_WATCH_MS) {
      await backOff(`the server closed the watch after ${(ms / 1000).toFixed(1)}s`);
    } else {
      opts.onNotice?.({ target: index, message: `the server closed the watch after ${(ms / 1000).toFixed(1)}s; re-watching from ${from()}` });
    }
  }
}

/** A message as the first clause of a notice: without the full stop a server's message may end with ("…later.; re-watching"). */
function sentence(text: string): string {
  return text.replace(/[.\s]+$/, '');
}

/** client-go's reflector: timeoutSeconds uniformly in [300, 600). */
function watchTimeoutSeconds(random: () => number): number {
  return Math.floor(300 * (1 + random()));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
