// Small building blocks for WatchStreams made in-process (replayed and limited streams).
import type { WatchEvent, WatchStream } from './types.js';

/** A promise that never settles, except to reject with the signal's reason when it aborts. */
export function never(signal?: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A WatchStream over `make(signal)`: close() aborts the signal, and whatever the generator was waiting
 * on then ends the stream quietly (errors thrown before close() still reach the reader).
 */
export function generatedStream(make: (signal: AbortSignal) => AsyncGenerator<WatchEvent>): WatchStream {
  const ac = new AbortController();
  const gen = make(ac.signal);
  return {
    close: () => ac.abort(),
    async *[Symbol.asyncIterator]() {
      try {
        yield* gen;
      } catch (err) {
        if (!ac.signal.aborted) throw err;
      } finally {
        ac.abort();
      }
    },
  };
}

/** A stream's events as groups of one, for code that reads groups (see WatchStream.batches). */
export async function* oneByOne<T = WatchEvent>(stream: AsyncIterable<T>): AsyncGenerator<readonly T[]> {
  for await (const event of stream) yield [event];
}

/** Grouped events (see WatchStream.batches) one by one, in order, for code that reads events. */
export async function* eachEvent<T = WatchEvent>(batches: AsyncIterable<readonly T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}
