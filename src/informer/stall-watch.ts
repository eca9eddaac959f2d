// Stalled watches: a watch that has received no event and no bookmark for longer than a bound is a `stall` record
// (once per silence), saying when its last event came. Load balancers that drop idle connections without a FIN
// (240 s on one cloud's, while kube-rs asked for 290 s watches) leave informers waiting silently on a dead stream;
// this says so. Restarting such a watch is the reflector's watchdog (--watch-idle-timeout, kube-rs's idle timeout).
import type { Clock, TimerHandle } from './clock.js';
import type { Tracer } from './trace.js';
import type { ListOptions, ListPage, ListerWatcher, WatchEvent, WatchStream } from './types.js';

export interface StallOptions {
  clock: Clock;
  tracer: Tracer;
  /** Silence longer than this is a stall. */
  stallAfterMs: number;
  /** The source's name (the resource), on every record. */
  resource?: string;
}

/**
 * A ListerWatcher whose watches report their stalls. Only complete events count as activity: bytes that complete no
 * event are not seen at this layer (a server trickling one event over minutes is not a stall here).
 */
export class StallReportingListerWatcher implements ListerWatcher {
  constructor(
    private readonly inner: ListerWatcher,
    private readonly o: StallOptions,
  ) {}

  list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    return this.inner.list(options, signal);
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<WatchStream> {
    const stream = await this.inner.watch(options, signal);
    return new StallReportingStream(stream, this.o, options.resourceVersion);
  }
}

class StallReportingStream implements WatchStream {
  private lastEventAt: number;
  private lastRv?: string;
  private timer?: TimerHandle;
  private reported = false;
  private closed = false;

  constructor(
    private readonly inner: WatchStream,
    private readonly o: StallOptions,
    fromRv: string | undefined,
  ) {
    this.lastEventAt = o.clock.now();
    this.lastRv = fromRv;
    this.arm(o.stallAfterMs);
  }

  close(): void {
    this.stop();
    this.inner.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    try {
      for await (const event of this.inner) {
        this.saw(event);
        yield event;
      }
    } finally {
      this.stop();
    }
  }

  batches(): AsyncIterable<readonly WatchEvent[]> {
    const inner = this.inner;
    const saw = (event: WatchEvent) => this.saw(event);
    const stop = () => this.stop();
    return {
      async *[Symbol.asyncIterator]() {
        try {
          if (inner.batches === undefined) {
            for await (const event of inner) {
              saw(event);
              yield [event];
            }
            return;
          }
          for await (const batch of inner.batches()) {
            for (const event of batch) saw(event);
            yield batch;
          }
        } finally {
          stop();
        }
      },
    };
  }

  private saw(event: WatchEvent): void {
    this.lastEventAt = this.o.clock.now();
    this.lastRv = event.object?.metadata?.resourceVersion ?? this.lastRv;
    this.reported = false;
  }

  private arm(ms: number): void {
    if (this.closed) return;
    this.timer = this.o.clock.setTimeout(() => this.check(), ms);
  }

  private check(): void {
    const now = this.o.clock.now();
    const silentMs = now - this.lastEventAt;
    if (silentMs < this.o.stallAfterMs) return this.arm(this.o.stallAfterMs - silentMs);
    if (!this.reported && this.o.tracer.enabled) {
      this.reported = true;
      const lastEventAt = new Date(this.lastEventAt).toISOString();
      this.o.tracer.emit({ time: now, stage: 'reflector', op: 'stall', rv: this.lastRv, ...(this.o.resource ? { resource: this.o.resource } : {}), silentMs, lastEventAt, message: `the watch has received no event and no bookmark for ${Math.round(silentMs / 1000)}s (the last came at ${lastEventAt}): a proxy or load balancer may have dropped the idle connection; --watch-idle-timeout restarts it` });
    }
    this.arm(this.o.stallAfterMs);
  }

  private stop(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
  }
}
