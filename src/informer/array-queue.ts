// A first-in first-out array whose shift() is O(1): popped slots are cleared (so their objects can be
// collected) and the array is cut down once more than half of it has been consumed. The FIFOs, the
// listeners' buffers and the workqueue all queue this way.

export class ArrayQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  /** Consumed slots kept before the array is compacted (compaction also needs half of it consumed). */
  constructor(private readonly compactAfter = 1024) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > this.compactAfter && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Calls `fn` on each queued item, oldest first. */
  forEach(fn: (item: T) => void): void {
    for (let i = this.head; i < this.items.length; i++) fn(this.items[i] as T);
  }

  /** The queued items, oldest first (a copy). */
  toArray(): T[] {
    return this.items.slice(this.head) as T[];
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
