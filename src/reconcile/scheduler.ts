// The scheduler: delays and de-duplicates triggers before they reach the workqueue (kube-rs's debounced
// scheduler), and says when a trigger is held because its key is running (kube-rs's hold-unless;
// client-go's dirty/processing sets do the holding).
import type { Clock, TimerHandle } from '../informer/clock.js';
import type { Tracer } from '../informer/trace.js';
import type { RateLimitingQueue } from '../informer/workqueue/rate-limiting-queue.js';
import type { TriggerReason, TriggerSink } from './trigger.js';

export interface SchedulerOptions {
  controller: string;
  /** Triggers for one key within this window make one run; each new trigger restarts the window. 0 = off. */
  debounceMs: number;
  clock: Clock;
  tracer: Tracer;
}

interface Debounced {
  reasons: TriggerReason[];
  timer: TimerHandle;
}

export class Scheduler implements TriggerSink {
  private readonly debouncing = new Map<string, Debounced>();
  private stopped = false;

  constructor(
    private readonly queue: RateLimitingQueue<string>,
    private readonly o: SchedulerOptions,
  ) {}

  trigger(key: string, reason: TriggerReason): void {
    if (this.stopped) return;
    if (this.o.debounceMs <= 0) return this.release(key, [reason]);
    const pending = this.debouncing.get(key);
    if (pending) {
      pending.reasons.push(reason);
      pending.timer.cancel();
      pending.timer = this.o.clock.setTimeout(() => this.fire(key), this.o.debounceMs);
    } else this.debouncing.set(key, { reasons: [reason], timer: this.o.clock.setTimeout(() => this.fire(key), this.o.debounceMs) });
    // Held triggers are visible while they wait, not only once the window ends.
    if (this.o.tracer.enabled) {
      const now = this.o.clock.now();
      this.o.tracer.emit({ time: now, stage: 'reconcile', op: 'debounce', key, controller: this.o.controller, reason, merged: this.debouncing.get(key)!.reasons.length, releaseAt: now + this.o.debounceMs });
    }
  }

  /** Keys waiting out their debounce window. */
  get debouncingCount(): number {
    return this.debouncing.size;
  }

  isIdle(): boolean {
    return this.debouncing.size === 0;
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.debouncing.values()) p.timer.cancel();
    this.debouncing.clear();
  }

  private fire(key: string): void {
    const pending = this.debouncing.get(key);
    if (!pending) return;
    this.debouncing.delete(key);
    this.release(key, pending.reasons);
  }

  private release(key: string, reasons: TriggerReason[]): void {
    if (this.o.tracer.enabled && this.queue.isProcessing(key)) {
      this.o.tracer.emit({ time: this.o.clock.now(), stage: 'reconcile', op: 'held', key, controller: this.o.controller, reasons });
    }
    this.queue.add(key, ...reasons);
  }
}
