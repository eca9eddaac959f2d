// Stops a pipeline's input at a point: after N watch events (`--max-events`) or once the stream passes a
// resourceVersion (`--until-rv`). Events past the point never enter the pipeline.
import { compareResourceVersions } from './resource-version.js';
import type { ListOptions, ListPage, ListerWatcher, WatchEvent, WatchStream } from './types.js';
import { generatedStream, never } from './watch-streams.js';

export interface EventLimitOptions {
  /** Deliver events up to and including this resourceVersion; the first newer event is held back. */
  untilRv?: string;
  /** Deliver this many ADDED/MODIFIED/DELETED events (BOOKMARK and ERROR do not count). */
  maxEvents?: number;
  /** Called once, when the limit is reached. */
  onReached?: () => void;
}

/** One limit shared by every ListerWatcher it wraps (several resources count together). */
export class EventLimit {
  /** Object events delivered so far. */
  count = 0;
  private hit = false;
  /** Which limit stopped the stream, once reached. */
  reason?: 'until-rv' | 'max-events';

  constructor(private readonly o: EventLimitOptions = {}) {}

  get reached(): boolean {
    return this.hit;
  }

  /** A ListerWatcher whose watch streams stop delivering once the limit is reached. */
  wrap(inner: ListerWatcher): ListerWatcher {
    return {
      list: (options: ListOptions, signal?: AbortSignal): Promise<ListPage> => inner.list(options, signal),
      watch: async (options: ListOptions, signal?: AbortSignal): Promise<WatchStream> => {
        const stream = await inner.watch(options, signal);
        if (this.o.untilRv === undefined && this.o.maxEvents === undefined) return stream;
        return this.limited(stream);
      },
    };
  }

  /** Whether `event` may pass; marks the limit reached when it is the last one (or past it). */
  admit(event: WatchEvent): boolean {
    if (this.hit) return false;
    const rv = event.object.metadata?.resourceVersion;
    if (this.o.untilRv !== undefined && event.type !== 'ERROR' && rv) {
      const cmp = compareResourceVersions(rv, this.o.untilRv);
      if (cmp > 0) return this.reach(false, 'until-rv');
      if (cmp === 0) return this.reach(true, 'until-rv');
    }
    if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
      this.count++;
      if (this.o.maxEvents !== undefined && this.count >= this.o.maxEvents) return this.reach(true, 'max-events');
    }
    return true;
  }

  private reach(admitted: boolean, reason: 'until-rv' | 'max-events'): boolean {
    this.hit = true;
    this.reason = reason;
    this.o.onReached?.();
    return admitted;
  }

  private limited(stream: WatchStream): WatchStream {
    const admit = (e: WatchEvent) => this.admit(e);
    const limited = generatedStream(async function* (signal) {
      for await (const event of stream) {
        if (admit(event)) yield event;
        // Once reached, hold the stream open and idle: nothing more enters the pipeline.
        else return void (await never(signal));
      }
    });
    return {
      close: () => {
        limited.close();
        stream.close();
      },
      [Symbol.asyncIterator]: () => limited[Symbol.asyncIterator](),
    };
  }
}
