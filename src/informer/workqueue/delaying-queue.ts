// The delaying queue (client-go delaying_queue.go): addAfter holds items in a min-heap until their time comes.
import type { TimerHandle } from '../clock.js';
import type { QueueOptions, QueueReason } from './queue.js';
import { Queue } from './queue.js';
import { IndexedHeap } from './indexed-heap.js';

interface Waiting<T> {
  item: T;
  readyAt: number;
  /** Tie-break so equal ready times keep insertion order. */
  seq: number;
  /** Position in the heap. */
  index: number;
  reasons: QueueReason[];
}

/**
 * Contracts: an item waits at most once (`byItem` and `heap` hold the same entries); a repeated
 * addAfter only ever moves its ready time earlier; one timer is armed for the earliest entry.
 * Waiting items are dropped on shutDown (as client-go's waiting loop exits).
 */
export class DelayingQueue<T = string> extends Queue<T> {
  private readonly heap = new IndexedHeap<Waiting<T>>((a, b) => a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq));
  private readonly byItem = new Map<T, Waiting<T>>();
  private seq = 0;
  private timer?: TimerHandle;
  private timerAt = Infinity;

  constructor(options: QueueOptions<T> = {}) {
    super(options);
  }

  /** Adds item after ms; ms <= 0 adds now. Ignored after shutDown. */
  addAfter(item: T, ms: number, ...reasons: QueueReason[]): void {
    if (this.shuttingDown()) return;
    if (ms <= 0) {
      this.add(item, ...reasons);
      return;
    }
    const readyAt = this.clock.now() + ms;
    if (this.tracer.shouldEmit('workqueue', 'add-after')) this.trace('add-after', item, { delayMs: ms, readyAt, reason: reasons[0] });
    const existing = this.byItem.get(item);
    if (existing !== undefined) {
      existing.reasons.push(...reasons);
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.heap.movedUp(existing);
      }
    } else {
      const w: Waiting<T> = { item, readyAt, seq: this.seq++, index: -1, reasons };
      this.heap.push(w);
      this.byItem.set(item, w);
    }
    this.arm();
  }

  /** An item whose time came; the priority queue keeps when that was. */
  protected becameReady(item: T, _readyAt: number, reasons: QueueReason[]): void {
    this.add(item, ...reasons);
  }

  /** Whether item waits for its time. */
  isWaiting(item: T): boolean {
    return this.byItem.has(item);
  }

  /** Takes item out of the waiting heap (it is being added now instead); its reasons, or undefined if it was not waiting. */
  protected takeWaiting(item: T): QueueReason[] | undefined {
    const w = this.byItem.get(item);
    if (w === undefined) return undefined;
    this.byItem.delete(item);
    this.heap.remove(w);
    return w.reasons;
  }

  /** Items waiting for their time. */
  waitingCount(): number {
    return this.heap.length;
  }

  protected override onShutDown(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    this.heap.clear();
    this.byItem.clear();
  }

  /** Arms the timer for the earliest entry if it is earlier than the one armed. */
  private arm(): void {
    const first = this.heap.peek();
    if (first === undefined || first.readyAt >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = first.readyAt;
    this.timer = this.clock.setTimeout(() => this.fire(), first.readyAt - this.clock.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let w = this.heap.peek(); w !== undefined && w.readyAt <= now; w = this.heap.peek()) {
      this.heap.pop();
      this.byItem.delete(w.item);
      this.becameReady(w.item, w.readyAt, w.reasons);
    }
    this.arm();
  }
}
