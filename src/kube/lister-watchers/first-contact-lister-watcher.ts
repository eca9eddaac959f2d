// A ListerWatcher under the first-contact policy (see first-contact.ts): the informer's first LIST or watch
// is retried or failed as the policy says, and a failure retrying cannot fix is handed to `onFatal` too, so
// a run whose informer would otherwise retry forever can stop and report the server's own error.
import type { ListerWatcher, ListOptions, ListPage, WatchEvent, WatchStream } from '../../informer/types.js';
import { classifyFirstContactError, FirstContact, FirstContactError } from '../http/first-contact.js';
import { isAbortError } from '../http/network-error.js';
import { isExpired, StatusError } from '../../informer/errors.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../informer/reflector-state.js';

export class FirstContactListerWatcher implements ListerWatcher {
  constructor(
    private readonly inner: ListerWatcher,
    readonly contact: FirstContact,
    /** kubectl's spelling of the resource, for messages: "pods", "deployments.apps". */
    private readonly name: string,
    private readonly onFatal?: (err: Error) => void,
  ) {}

  list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    return this.guard(`list ${this.name}`, () => this.inner.list(options, signal), options, signal);
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    if (this.contact.succeeded || options.sendInitialEvents !== true) return this.guard(`watch ${this.name}`, () => this.inner.watch(options, signal), options, signal);
    // An opened watch-list has not yet answered what was asked: its initial events may still be garbage or an error,
    // and the fallback LIST after them is then the first contact. Only its initial-events-end bookmark is.
    const stream = await this.guard(`watch ${this.name}`, () => this.inner.watch(options, signal), options, signal, true);
    return succeedOnInitialEventsEnd(stream, () => this.contact.succeed());
  }

  private async guard<T>(what: string, fn: () => Promise<T>, options: ListOptions, signal?: AbortSignal, provisional = false): Promise<T> {
    if (this.contact.succeeded) return fn();
    try {
      return await this.contact.attempt(what, fn, { signal, resourceVersion: options.resourceVersion, provisional });
    } catch (err) {
      // A watch-list refused with a 4xx (e.g. the 422 of a server whose WatchList gate is off) is not the end: the
      // reflector falls back to LIST+WATCH, as client-go's does ("making progress is better than deadlocking").
      // Not a 410: client-go's watchList retries that at once from "" (tools/cache/reflector.go, watchList's
      // isErrorRetriableWithSideEffectsFn), so a server answering 410 from the current state would be asked again
      // without a pause, for ever; the first-contact policy calls it what it is, as it does for a LIST.
      const refusedWatchList = options.sendInitialEvents === true && err instanceof StatusError && err.httpCode >= 400 && err.httpCode < 500 && err.httpCode !== 429 && !isExpired(err);
      const fatal = !refusedWatchList && (err instanceof FirstContactError || classifyFirstContactError(err, options.resourceVersion) === 'fatal');
      if (fatal && !signal?.aborted && !isAbortError(err)) this.onFatal?.(err as Error);
      throw err;
    }
  }
}

/** The same stream, calling `onEnd` once when the watch-list's initial-events-end bookmark passes through. */
function succeedOnInitialEventsEnd(stream: WatchStream, onEnd: () => void): WatchStream {
  let seen = false;
  const check = (e: WatchEvent) => {
    if (!seen && e.type === 'BOOKMARK' && e.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
      seen = true;
      onEnd();
    }
  };
  const wrapped: WatchStream = {
    close: () => stream.close(),
    async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
      for await (const e of stream) {
        check(e);
        yield e;
      }
    },
  };
  const batches = stream.batches?.bind(stream);
  if (batches) {
    wrapped.batches = async function* (): AsyncGenerator<readonly WatchEvent[]> {
      for await (const group of batches()) {
        if (!seen) for (const e of group) check(e);
        yield group;
      }
    };
  }
  return wrapped;
}
