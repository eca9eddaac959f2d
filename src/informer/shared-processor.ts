// sharedProcessor: fans each notification out to the listeners (sync notifications only to those due a resync).
import type { Clock } from './clock.js';
import type { Notification } from './processor-listener.js';
import { ProcessorListener } from './processor-listener.js';
import type { Tracer } from './trace.js';

/**
 * Overflow policy — backpressure, nothing dropped. client-go's listener buffers grow without bound
 * ("until we OOM"); ours hold at most `bufferSize` notifications. The informer checks hasRoom() before
 * every FIFO pop and, when a listener is full, waits (waitForRoom) instead of popping: the pipeline
 * stalls, the FIFO grows in its place, and a `handler overflow` trace record names the listener. So a
 * slow handler delays only its own listener until its buffer fills, then it slows everyone — the
 * price of losing nothing. Two exceptions can exceed the bound: one popped item's deltas are always
 * distributed whole (DeltaFIFO can pop several at once), and the cached objects replayed to a handler
 * registered after start are queued at once (that replay is as large as the cache, like client-go's).
 */
export class SharedProcessor {
  /** Every registered listener (copy-on-write, so distribute can iterate while handlers register). */
  private listeners: ProcessorListener[] = [];
  /** Listeners found due a resync by the last shouldResync(). */
  private syncingListeners: ProcessorListener[] = [];
  private readonly clock: Clock;
  private readonly tracer: Tracer;
  /** The most notifications a listener holds before the pipeline blocks. */
  readonly bufferSize: number;

  constructor(options: { clock: Clock; tracer: Tracer; bufferSize: number }) {
    this.clock = options.clock;
    this.tracer = options.tracer;
    this.bufferSize = Math.max(1, options.bufferSize);
  }

  get listenerCount(): number {
    return this.listeners.length;
  }

  getListeners(): readonly ProcessorListener[] {
    return this.listeners;
  }

  addListener(listener: ProcessorListener): void {
    this.listeners = [...this.listeners, listener];
    this.syncingListeners = [...this.syncingListeners, listener];
  }

  removeListener(listener: ProcessorListener): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
    this.syncingListeners = this.syncingListeners.filter((l) => l !== listener);
    listener.stop();
  }

  /** Non-sync notifications go to every listener; sync ones only to listeners due a resync. */
  distribute(n: Notification, sync: boolean): void {
    const targets = sync ? this.syncingListeners : this.listeners;
    for (let i = 0; i < targets.length; i++) targets[i].add(n);
  }

  /** Marks the listeners due a resync now and schedules their next one; true if any is due. */
  shouldResync(): boolean {
    const now = this.clock.now();
    const syncing: ProcessorListener[] = [];
    for (const l of this.listeners) {
      if (l.shouldResync(now)) {
        syncing.push(l);
        l.determineNextResync(now);
      }
    }
    this.syncingListeners = syncing;
    return syncing.length > 0;
  }

  /** The informer's resync check period changed (before start): recompute every listener's period. */
  resyncCheckPeriodChanged(checkPeriodMs: number): void {
    for (const l of this.listeners) l.setResyncPeriod(determineResyncPeriod(l.requestedResyncPeriodMs, checkPeriodMs).periodMs);
  }

  /** True when no listener has anything buffered or a handler call running. */
  isIdle(): boolean {
    return this.listeners.every((l) => l.idle);
  }

  /** True when every listener has room for another notification. */
  hasRoom(): boolean {
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) if (ls[i].buffered >= this.bufferSize) return false;
    return true;
  }

  /** Waits until every listener has room, emitting `handler overflow` for each full one. */
  async waitForRoom(): Promise<void> {
    for (;;) {
      const full = this.listeners.filter((l) => l.buffered >= this.bufferSize);
      if (full.length === 0) return;
      for (const l of full) {
        l.stats.overflows++;
        if (this.tracer.enabled) {
          this.tracer.emit({ time: this.clock.now(), stage: 'handler', op: 'overflow', listener: l.name, buffered: l.buffered, bound: this.bufferSize, policy: 'block' });
        }
      }
      // Wait for the first full listener to drain a little; then re-check all of them.
      await full[0].waitForRoom(this.bufferSize);
    }
  }

  /** Stops every listener (buffered notifications are dropped). */
  stop(): void {
    for (const l of this.listeners) l.stop();
  }
}

/**
 * client-go's determineResyncPeriod: 0 stays 0; a non-resyncing informer (check period 0) disables it
 * (with a warning); a period shorter than the check period is raised to it.
 */
export function determineResyncPeriod(desiredMs: number, checkMs: number): { periodMs: number; warning?: string } {
  if (desiredMs === 0) return { periodMs: 0 };
  if (checkMs === 0) return { periodMs: 0, warning: `the specified resyncPeriod ${desiredMs}ms is invalid because this shared informer doesn't support resyncing` };
  if (desiredMs < checkMs) return { periodMs: checkMs, warning: `the specified resyncPeriod ${desiredMs}ms is being increased to the minimum resyncCheckPeriod ${checkMs}ms` };
  return { periodMs: desiredMs };
}
