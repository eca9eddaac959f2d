// The wire only: watches one or more resources and hands over each event with the exact line the
// server sent, re-watching from the last resourceVersion when the server ends a stream.
import { isExpired, StatusError } from '../informer/errors.js';
import type { Status, WatchEvent } from '../informer/types.js';
import type { Connection } from './connection.js';
import { HttpListerWatcher, type ListWatchTarget } from './http-lister-watcher.js';

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
}

/** Runs until the signal aborts. Rejects when a watch cannot be started (e.g. unknown namespace, forbidden). */
export async function runRawWatch(conn: Connection, targets: ListWatchTarget[], opts: RawWatchOptions): Promise<void> {
  await Promise.all(targets.map((t, i) => watchOne(conn, t, i, opts)));
}

async function watchOne(conn: Connection, target: ListWatchTarget, index: number, opts: RawWatchOptions): Promise<void> {
  const lw = new HttpListerWatcher(conn, target);
  let rv = opts.resourceVersion;
  let first = true;
  while (!opts.signal.aborted) {
    const started = Date.now();
    let stream;
    try {
      stream = await lw.rawWatch({ resourceVersion: rv, allowWatchBookmarks: opts.allowWatchBookmarks }, opts.signal);
    } catch (err) {
      if (opts.signal.aborted) return;
      // The first watch failing is the user's problem to see; later failures are reported and retried.
      if (first) throw err;
      opts.onNotice?.({ target: index, message: `re-watch failed: ${(err as Error).message}; retrying in 1s` });
      await sleep(1000, opts.signal);
      continue;
    }
    first = false;
    opts.onOpen?.(index);
    let expired: Status | undefined;
    try {
      for await (const item of stream) {
        opts.onEvent({ target: index, line: item.line, event: item.event });
        const eventRv = item.event.object?.metadata?.resourceVersion;
        if (item.event.type === 'ERROR') {
          const status = item.event.object as unknown as Status;
          if (isExpired(new StatusError(status))) expired = status;
        } else if (eventRv) {
          rv = eventRv;
        }
      }
    } catch (err) {
      if (opts.signal.aborted) return;
      opts.onNotice?.({ target: index, message: `watch broke: ${(err as Error).message}; re-watching from resourceVersion ${rv ?? '(unset)'}` });
      continue;
    } finally {
      stream.close();
    }
    if (opts.signal.aborted) return;
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (expired) {
      opts.onNotice?.({ target: index, message: `the server no longer has resourceVersion ${rv} (${expired.message}); re-watching from the current state` });
      rv = undefined;
    } else {
      opts.onNotice?.({ target: index, message: `the server closed the watch after ${secs}s; re-watching from resourceVersion ${rv ?? '(unset)'}` });
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}
