// Ends a CLI run on errors no retry can fix, as long as the server has never been reached successfully.
import { ConnectionError, StatusError } from '../informer/errors.js';
import type { ListerWatcher, ListOptions, ListPage, WatchStream } from '../informer/types.js';

/**
 * The informer retries every failure forever, as client-go's does: right for a controller, wrong for
 * a CLI whose user typed a bad selector. This wrapper sits between the reflector and the server and,
 * until the first watch has opened (so through the initial LIST, or the initial watch-list), hands
 * errors that retrying cannot fix to `onFatal` — which stops the run and reports that error object
 * (the server's own Status, so the user sees the server's message). Watching the reflector's trace
 * for `list-error` would work too, but trace records carry only the message; here we keep the error.
 * Once a watch has opened, every error is the informer's to retry, visibly, in the trace.
 */
export class FailFastListerWatcher implements ListerWatcher {
  private armed = true;

  constructor(
    private readonly inner: ListerWatcher,
    private readonly onFatal: (err: Error) => void,
  ) {}

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    try {
      return await this.inner.list(options, signal);
    } catch (err) {
      this.check(err);
      throw err;
    }
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    try {
      const stream = await this.inner.watch(options, signal);
      this.armed = false;
      return stream;
    } catch (err) {
      this.check(err);
      throw err;
    }
  }

  private check(err: unknown): void {
    if (this.armed && isUnrecoverable(err)) this.onFatal(err as Error);
  }
}

/**
 * Connection failures, and 4xx answers other than 410 (expired: the reflector relists) and 429 (the
 * server asks to retry): bad selector (400), unauthorized (401), forbidden (403), not found (404),
 * invalid (422). 5xx answers are the server's trouble and are retried.
 */
export function isUnrecoverable(err: unknown): boolean {
  if (err instanceof ConnectionError) return true;
  if (!(err instanceof StatusError)) return false;
  const code = err.httpCode;
  return code >= 400 && code < 500 && code !== 410 && code !== 429;
}
