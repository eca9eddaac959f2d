// A ListerWatcher under the first-contact policy (see first-contact.ts): the informer's first LIST or watch
// is retried or failed as the policy says, and a failure retrying cannot fix is handed to `onFatal` too, so
// a run whose informer would otherwise retry forever can stop and report the server's own error.
import type { ListerWatcher, ListOptions, ListPage, WatchStream } from '../../informer/types.js';
import { classifyFirstContactError, FirstContact, FirstContactError } from '../http/first-contact.js';
import { isAbortError } from '../http/network-error.js';
import { StatusError } from '../../informer/errors.js';

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

  watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    return this.guard(`watch ${this.name}`, () => this.inner.watch(options, signal), options, signal);
  }

  private async guard<T>(what: string, fn: () => Promise<T>, options: ListOptions, signal?: AbortSignal): Promise<T> {
    if (this.contact.succeeded) return fn();
    try {
      return await this.contact.attempt(what, fn, { signal, resourceVersion: options.resourceVersion });
    } catch (err) {
      // A watch-list refused with a 4xx (e.g. the 422 of a server whose WatchList gate is off) is not the end: the
      // reflector falls back to LIST+WATCH, as client-go's does ("making progress is better than deadlocking").
      const refusedWatchList = options.sendInitialEvents === true && err instanceof StatusError && err.httpCode >= 400 && err.httpCode < 500 && err.httpCode !== 429;
      const fatal = !refusedWatchList && (err instanceof FirstContactError || classifyFirstContactError(err, options.resourceVersion) === 'fatal');
      if (fatal && !signal?.aborted && !isAbortError(err)) this.onFatal?.(err as Error);
      throw err;
    }
  }
}
