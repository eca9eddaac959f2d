// A first-in first-out queue on a ring of slots: push and shift are O(1) and, once the ring is big enough, allocate
// nothing (the workqueue pushes and shifts once per event, and the FIFOs and listeners once per delta). Popped
// slots are cleared so that their objects can be collected. The FIFOs, the listeners' buffers and the workqueue
// all queue this way.

const INITIAL_SLOTS = 16;

export class ArrayQueue<T> {
  /** A power of two in length; the queue is slots[head], slots[head + 1], … (wrapping), `count` of them. */
  private slots: (T | undefined)[] = emptySlots(INITIAL_SLOTS);
  private head = 0;
  private count = 0;

  /**
   * A ring grown past `keepSlots` (by an initial list of 100k objects, say) is given back once the queue is
   * empty, so a burst does not hold its memory for the rest of the run.
   */
  constructor(private readonly keepSlots = 1024) {}

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.slots.length) this.grow();
    this.slots[(this.head + this.count) & (this.slots.length - 1)] = item;
    this.count++;
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.count--;
    if (this.count === 0) {
      this.head = 0;
      if (this.slots.length > this.keepSlots) this.slots = emptySlots(INITIAL_SLOTS);
    } else this.head = (this.head + 1) & (this.slots.length - 1);
    return item;
  }

  /** The item `i` places from the oldest (0 = the oldest); undefined past the end. */
  at(i: number): T | undefined {
    return i < 0 || i >= this.count ? undefined : this.slots[(this.head + i) & (this.slots.length - 1)];
  }

  /** Calls `fn` on each queued item, oldest first. */
  forEach(fn: (item: T) => void): void {
    const mask = this.slots.length - 1;
    for (let i = 0; i < this.count; i++) fn(this.slots[(this.head + i) & mask] as T);
  }

  /** The queued items, oldest first (a copy). */
  toArray(): T[] {
    const out: T[] = [];
    this.forEach((item) => out.push(item));
    return out;
  }

  clear(): void {
    this.slots = emptySlots(INITIAL_SLOTS);
    this.head = 0;
    this.count = 0;
  }

  /** Twice the slots, the queue moved to their start in order. */
  private grow(): void {
    const bigger = emptySlots<T>(this.slots.length * 2);
    const mask = this.slots.length - 1;
    for (let i = 0; i < this.count; i++) bigger[i] = this.slots[(this.head + i) & mask];
    this.slots = bigger;
    this.head = 0;
  }
}

/** Filled, not holey: V8 keeps an array made with holes slower to read for its whole life. */
function emptySlots<T>(n: number): (T | undefined)[] {
  return new Array<T | undefined>(n).fill(undefined);
}
