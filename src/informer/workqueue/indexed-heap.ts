// A binary min-heap whose entries know their position (`index`), so that one can be moved after its key changed or
// taken out from the middle in O(log n): what the delaying queue's waiting items and the priority queue's ready items
// both need.

export interface HeapEntry {
  /** Position in the heap; -1 while not in it. */
  index: number;
}

export class IndexedHeap<E extends HeapEntry> {
  private entries: E[] = [];

  /** `less(a, b)`: a comes out before b. */
  constructor(private readonly less: (a: E, b: E) => boolean) {}

  get length(): number {
    return this.entries.length;
  }

  /** The entry that comes out next, left in place. */
  peek(): E | undefined {
    return this.entries[0];
  }

  push(e: E): void {
    e.index = this.entries.length;
    this.entries.push(e);
    this.up(e.index);
  }

  /** Takes the first entry out. */
  pop(): E | undefined {
    const top = this.entries[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Takes an entry out from wherever it stands. */
  remove(e: E): void {
    const last = this.entries.pop()!;
    if (last !== e) {
      this.entries[e.index] = last;
      last.index = e.index;
      this.down(last.index);
      this.up(last.index);
    }
    e.index = -1;
  }

  /** After an entry's key moved it earlier. */
  movedUp(e: E): void {
    this.up(e.index);
  }

  clear(): void {
    for (const e of this.entries) e.index = -1;
    this.entries = [];
  }

  private swap(i: number, j: number): void {
    const h = this.entries;
    [h[i], h[j]] = [h[j], h[i]];
    h[i].index = i;
    h[j].index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.entries[i], this.entries[p])) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.entries.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(this.entries[l], this.entries[m])) m = l;
      if (r < n && this.less(this.entries[r], this.entries[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
