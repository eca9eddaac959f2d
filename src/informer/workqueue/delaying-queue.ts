// The delaying queue (client-go delaying_queue.go): addAfter holds items in a min-heap until their time comes.
import type { TimerHandle } from '../clock.js';
import type { QueueOptions, QueueReason } from './queue.js';
import { Queue } from './queue.js';

interface Waiting<T> {
  item: T;
  readyAt: number;
  /** Tie-break so equal ready times keep insertion order. */
  seq: number;
  /** Position in the heap array. */
  index: number;
  reasons: QueueReason[];
}

/**
 * Contracts: an item waits at most once (`byItem` and `heap` hold the same entries); a repeated
 * addAfter only ever moves its ready time earlier; one timer is armed for the earliest entry.
 * Waiting items are dropped on shutDown (as client-go's waiting loop exits).
 */
export class DelayingQueue<T = string> extends Queue<T> {
  private heap: Waiting<T>[] = [];
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
        this.up(existing.index);
      }
    } else {
      const w: Waiting<T> = { item, readyAt, seq: this.seq++, index: this.heap.length, reasons };
      this.heap.push(w);
      this.byItem.set(item, w);
      this.up(w.index);
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
    const last = this.heap.pop()!;
    if (last !== w) {
      this.heap[w.index] = last;
      last.index = w.index;
      this.down(w.index);
      this.up(last.index);
    }
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
    this.heap = [];
    this.byItem.clear();
  }

  /** Arms the timer for the earliest entry if it is earlier than the one armed. */
  private arm(): void {
    const first = this.heap[0];
    if (first === undefined || first.readyAt >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = first.readyAt;
    this.timer = this.clock.setTimeout(() => this.fire(), first.readyAt - this.clock.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    while (this.heap.length > 0 && this.heap[0].readyAt <= now) {
      const w = this.popMin();
      this.byItem.delete(w.item);
      this.becameReady(w.item, w.readyAt, w.reasons);
    }
    this.arm();
  }

  private less(a: Waiting<T>, b: Waiting<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const h = this.heap;
    [h[i], h[j]] = [h[j], h[i]];
    h[i].index = i;
    h[j].index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.heap[i], this.heap[p])) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(this.heap[l], this.heap[m])) m = l;
      if (r < n && this.less(this.heap[r], this.heap[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private popMin(): Waiting<T> {
    const top = this.heap[0];
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      last.index = 0;
      this.down(0);
    }
    return top;
  }
}
