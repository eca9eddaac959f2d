// The priority queue controller-runtime runs by default since 0.23 (pkg/controller/priorityqueue, read from its
// priorityqueue.go): AddWithOpts{After, RateLimited, Priority}, one entry per key (the highest priority and the
// earliest ready time win), ready items handed out highest priority first, oldest first within a priority.
// Over kwatch's workqueue (dirty/processing sets, delaying heap, rate limiter), so never two runs of a key.
import type { QueueReason } from './queue.js';
import { RateLimitingQueue, type RateLimitingQueueOptions } from './rate-limiting-queue.js';
import { PriorityReadyList, type StarvedItem } from './priority-ready-list.js';

/** controller-runtime's AddOpts. `priority` defaults to the highest priority the reasons carry, else 0. */
export interface AddOpts {
  /** Ready after this long (ms); 0 or unset = now. */
  after?: number;
  /** Ready after the rate limiter's delay, or after `after` when that is shorter (as controller-runtime does). */
  rateLimited?: boolean;
  priority?: number;
}

/** handler.LowPriority: initial-list events of objects older than a minute, and resyncs (WithLowPriorityWhenUnchanged). */
export const LOW_PRIORITY = -100;

export interface PriorityQueueOptions<T> extends Omit<RateLimitingQueueOptions<T>, 'readyList'> {
  /** An item ready this long while items of higher priority are handed out past it is `starved` (default 60 s). */
  starvedAfterMs?: number;
}

export class PriorityQueue<T = string> extends RateLimitingQueue<T> {
  private readonly ready: PriorityReadyList<T>;

  constructor(options: PriorityQueueOptions<T> = {}) {
    const ready = new PriorityReadyList<T>({ starvedAfterMs: options.starvedAfterMs ?? 60_000 });
    super({ ...options, readyList: ready });
    this.ready = ready;
    ready.bind(this.clock, (s) => this.onStarved(s));
  }

  /** controller-runtime's AddWithOpts for one item, with kwatch's reasons. */
  addWithOpts(o: AddOpts, item: T, ...reasons: QueueReason[]): number | undefined {
    if (this.shuttingDown()) {
      // controller-runtime's AddWithOpts asks the rate limiter whatever the queue's state: the failure still counts.
      if (o.rateLimited) this.rateLimiter.when(item);
      return undefined;
    }
    const priority = o.priority ?? priorityOf(reasons);
    let after = o.after ?? 0;
    if (o.rateLimited) {
      const limited = this.rateLimiter.when(item);
      if (after <= 0 || limited < after) after = limited;
      if (this.tracer.shouldEmit('workqueue', 'add-rate-limited')) this.trace('add-rate-limited', item, { delayMs: limited, requeues: this.rateLimiter.numRequeues(item), reason: reasons[0], priority });
    }
    if (after > 0 && !this.isDirty(item)) {
      this.ready.note(item, priority, this.clock.now() + after);
      super.addAfter(item, after, ...reasons);
      return after;
    }
    // Ready now, or already ready (a later time never delays a ready item): one entry, the waiting one folded in.
    const waiting = this.takeWaiting(item) ?? [];
    this.ready.note(item, priority, after > 0 ? this.clock.now() + after : undefined);
    super.add(item, ...waiting, ...reasons);
    return 0;
  }

  override add(item: T, ...reasons: QueueReason[]): void {
    this.addWithOpts({}, item, ...reasons);
  }

  override addAfter(item: T, ms: number, ...reasons: QueueReason[]): void {
    this.addWithOpts({ after: ms }, item, ...reasons);
  }

  override addRateLimited(item: T, ...reasons: QueueReason[]): number | undefined {
    return this.addWithOpts({ rateLimited: true }, item, ...reasons);
  }

  /** The priority an item waits with, or was handed out with (until done). */
  priorityOf(item: T): number | undefined {
    return this.ready.priorityOf(item);
  }

  /** Ready items per priority, highest first (controller-runtime's depth metric with its priority label). */
  depthByPriority(): [priority: number, depth: number][] {
    return this.ready.depthByPriority();
  }

  /** The most ready items each priority had at once. */
  peakDepthByPriority(): [priority: number, depth: number][] {
    return this.ready.peakDepthByPriority();
  }

  /** Every `starved` finding so far. */
  get starved(): readonly StarvedItem<T>[] {
    return this.ready.starved;
  }

  override done(item: T): void {
    super.done(item);
    this.ready.released(item, this.isDirty(item));
  }

  protected override becameReady(item: T, readyAt: number, reasons: QueueReason[]): void {
    this.ready.note(item, priorityOf(reasons), readyAt);
    super.add(item, ...reasons);
  }

  protected override trace(op: string, item: T, detail: Record<string, unknown>): void {
    // Every workqueue record of this queue says the item's priority (a field added, nothing renamed).
    super.trace(op, item, detail.priority === undefined ? { ...detail, priority: this.ready.priorityOf(item) ?? 0 } : detail);
  }

  private onStarved(s: StarvedItem<T>): void {
    if (this.tracer.enabled) this.tracer.emit({ time: this.clock.now(), stage: 'workqueue', op: 'starved', key: String(s.item), queue: this.name, ...(this.controller !== undefined ? { controller: this.controller } : {}), priority: s.priority, waitedMs: s.waitedMs, overtakenBy: String(s.overtakenBy), overtakenByPriority: s.overtakenByPriority, message: `${String(s.item)} (priority ${s.priority}) has been ready for ${Math.round(s.waitedMs / 1000)}s while items of higher priority kept being handed out` });
  }
}

function priorityOf(reasons: readonly QueueReason[]): number {
  let p: number | undefined;
  for (const r of reasons) if (typeof r.priority === 'number' && (p === undefined || r.priority > p)) p = r.priority;
  return p ?? 0;
}
