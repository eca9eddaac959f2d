// Lets a fixed number of watch events through (--max-events), or none after a point (--until-synced),
// so that every stage downstream sees exactly the events the CLI promised to show.
import type { ListerWatcher, ListOptions, ListPage, WatchEvent, WatchStream } from '../../informer/types.js';

/** Shared by the GatedListerWatchers of one run: counts events across all of them. */
export class EventGate {
  private count = 0;
  private isClosed = false;
  private readonly waiters = new Set<() => void>();

  /** `max` events pass (undefined = no limit); the gate closes after the last one. */
  constructor(private readonly max?: number) {
    if (max !== undefined && max <= 0) this.isClosed = true;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get passed(): number {
    return this.count;
  }

  /** Events handed to a consumer that has not yet come back for the next one (still being dispatched). */
  inFlight = 0;

  /** Counts one event through; closes the gate when the budget is spent. */
  pass(): void {
    this.count++;
    if (this.max !== undefined && this.count >= this.max) this.close();
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** Resolves once the gate is closed. */
  whenClosed(): Promise<void> {
    return this.isClosed ? Promise.resolve() : new Promise((resolve) => this.waiters.add(resolve));
  }
}

/**
 * Watch streams pass events only while the gate is open; once closed, a stream holds still (reads
 * nothing more from the server) until it is closed. Lists pass untouched.
 */
export class GatedListerWatcher implements ListerWatcher {
  constructor(
    private readonly inner: ListerWatcher,
    private readonly gate: EventGate,
  ) {}

  list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    return this.inner.list(options, signal);
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const stream = await this.inner.watch(options, signal);
    const gate = this.gate;
    let release!: () => void;
    const closed = new Promise<void>((resolve) => (release = resolve));
    return {
      close() {
        release();
        stream.close();
      },
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
        const it = stream[Symbol.asyncIterator]();
        for (;;) {
          if (gate.closed) {
            await closed;
            return;
          }
          const r = await it.next();
          if (r.done) return;
          if (gate.closed) {
            // the budget ran out while this read was in flight: drop it, as the server would never have sent it
            await closed;
            return;
          }
          // Only changes count (as in `kwatch replay`): bookmarks and errors pass without spending the budget.
          if (r.value.type === 'ADDED' || r.value.type === 'MODIFIED' || r.value.type === 'DELETED') gate.pass();
          gate.inFlight++;
          try {
            yield r.value;
          } finally {
            gate.inFlight--;
          }
        }
      },
    };
  }
}
