// A ListerWatcher that records everything its inner ListerWatcher received — list pages, watch
// starts, every event, watch ends, errors — with timings and connection numbers, for `kwatch replay`.
import { performance } from 'node:perf_hooks';
import { StatusError } from '../../informer/errors.js';
import type { ListerWatcher, ListOptions, ListPage, WatchEvent, WatchStream } from '../../informer/types.js';
import { eachEvent, oneByOne } from '../../informer/watch-streams.js';
import type { RecordingSink } from './recording-file.js';

export class RecordingListerWatcher implements ListerWatcher {
  constructor(
    private readonly inner: ListerWatcher,
    private readonly sink: RecordingSink,
    /** Index of this resource in the recording header's `resources`. */
    private readonly res: number,
  ) {}

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    const conn = this.sink.nextConn();
    const t0 = performance.now();
    let page: ListPage;
    try {
      page = await this.inner.list(options, signal);
    } catch (err) {
      if (!signal?.aborted) this.error(conn, 'list', options, err);
      throw err;
    }
    const { bytes, ...body } = page;
    this.sink.write({ rec: 'list', t: this.sink.elapsed(), res: this.res, conn, options, page: body, ...(bytes !== undefined ? { bytes } : {}), ms: round(performance.now() - t0) });
    return page;
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const conn = this.sink.nextConn();
    let stream: WatchStream;
    try {
      stream = await this.inner.watch(options, signal);
    } catch (err) {
      if (!signal?.aborted) this.error(conn, 'watch', options, err);
      throw err;
    }
    this.sink.write({ rec: 'watch-start', t: this.sink.elapsed(), res: this.res, conn, options });
    return this.recorded(conn, stream);
  }

  private recorded(conn: number, stream: WatchStream): WatchStream {
    let ended = false;
    const end = (reason: 'eof' | 'error' | 'aborted', error?: unknown) => {
      if (ended) return;
      ended = true;
      this.sink.write({ rec: 'watch-end', t: this.sink.elapsed(), res: this.res, conn, reason, ...(error !== undefined ? { error: message(error) } : {}) });
    };
    const sink = this.sink;
    const res = this.res;
    // Each event is recorded as it is handed on: a group at a time when the inner stream groups its events.
    async function* recordedBatches(batches: AsyncIterable<readonly WatchEvent[]>): AsyncGenerator<readonly WatchEvent[]> {
      try {
        for await (const batch of batches) {
          for (const event of batch) sink.write({ rec: 'event', t: sink.elapsed(), res, conn, event });
          yield batch;
        }
        end('eof');
      } catch (err) {
        end('error', err);
        throw err;
      }
    }
    const groups = () => (stream.batches !== undefined ? stream.batches() : oneByOne(stream));
    return {
      close() {
        end('aborted');
        stream.close();
      },
      batches: () => recordedBatches(groups()),
      [Symbol.asyncIterator]: () => eachEvent(recordedBatches(groups())),
    };
  }

  /**
   * A request the server failed. One the run itself gave up on (its signal aborted: Ctrl-C, --for, --until-synced) is
   * no answer and is left out: recorded, a replay would take the stop for a failure, back off and relist.
   */
  private error(conn: number, op: 'list' | 'watch', options: ListOptions, err: unknown): void {
    const status = err instanceof StatusError ? err.status : undefined;
    // The answer's size, so that a replay's summary counts the bytes the live run received for it.
    const bytes = err instanceof StatusError ? err.bytes : undefined;
    this.sink.write({ rec: 'error', t: this.sink.elapsed(), res: this.res, conn, op, options, ...(status ? { status } : {}), message: message(err), ...(bytes !== undefined ? { bytes } : {}) });
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
