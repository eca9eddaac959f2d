// One pass over a recording shared by the resources a replay reads side by side: each resource's entries are handed
// to it in file order, and the entries a pass reads ahead for one resource wait in the others' queues. A replay
// thus reads the file once, whatever the number of resources (issue 36: one pass each made the time grow with the
// square of it). A resource that asks for an entry far ahead (a quiet one: its next event may be the file's last
// line) would make the others' queues hold the file: past QUEUED_BYTES, that resource reads on by a pass of its
// own from where the shared one stands (line-passes.ts bounds how many of those hold a file at once).
import type { RecordingEntry } from './recording-format.js';
import type { Line, LinePosition } from './line-reader.js';

/** What the queues of a shared pass may hold at most, counted as the lines' text. */
export const QUEUED_BYTES = 32 << 20;

/** Entries waiting for one resource; a head index, not shift(): a queue can hold many thousands. */
interface Queue {
  entries: { entry: RecordingEntry; bytes: number }[];
  head: number;
  /** Its own pass, once it left the shared one. */
  own?: Iterator<RecordingEntry>;
}

export class SharedPass {
  private source?: Iterator<RecordingEntry>;
  private readonly queues = new Map<number, Queue>();
  private queuedBytes = 0;
  /** Where the line after the last entry read starts, and that entry's size. */
  private position?: LinePosition;
  private lastBytes = 0;
  private ended = false;

  constructor(
    /** The body's entries from the start, telling `onEntry` each one's line before handing it over. */
    private readonly open: (onEntry: (line: Line) => void) => Iterator<RecordingEntry>,
    /** Resource `res`'s entries read alone from `from` (from the start when undefined). */
    private readonly own: (res: number, from?: LinePosition) => Iterator<RecordingEntry>,
    private readonly maxQueuedBytes = QUEUED_BYTES,
  ) {}

  /** A resource can join until the pass has read its first line (it would have missed entries). */
  canJoin(res: number): boolean {
    return this.source === undefined && !this.queues.has(res);
  }

  /** Resource `res`'s entries. */
  join(res: number): Iterator<RecordingEntry> {
    const queue: Queue = { entries: [], head: 0 };
    this.queues.set(res, queue);
    return {
      next: () => this.next(res, queue),
      return: () => {
        this.leave(res, queue);
        queue.own?.return?.();
        return { done: true, value: undefined };
      },
    };
  }

  /** The number of entries queued for resources that have not asked for them yet (for tests). */
  get queued(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.entries.length - q.head;
    return n;
  }

  private next(res: number, queue: Queue): IteratorResult<RecordingEntry> {
    if (queue.head < queue.entries.length) {
      const { entry, bytes } = queue.entries[queue.head++];
      this.queuedBytes -= bytes;
      if (queue.head > 1024 && queue.head * 2 > queue.entries.length) {
        queue.entries.splice(0, queue.head);
        queue.head = 0;
      }
      return { done: false, value: entry };
    }
    if (queue.own) return queue.own.next();
    if (!this.queues.has(res)) return { done: true, value: undefined };
    this.source ??= this.open((line) => {
      this.position = { offset: line.end, number: line.number };
      this.lastBytes = line.text.length;
    });
    for (;;) {
      if (this.ended) return { done: true, value: undefined };
      if (this.queuedBytes > this.maxQueuedBytes) {
        // Reading on for this one would make the others' queues hold the file: it reads alone from here.
        this.leave(res, queue);
        queue.own = this.own(res, this.position);
        return queue.own.next();
      }
      const r = this.source.next();
      if (r.done) {
        this.ended = true;
        return r;
      }
      const entry = r.value;
      if (entry.res === res) return r;
      const other = this.queues.get(entry.res);
      if (other && !other.own) {
        other.entries.push({ entry, bytes: this.lastBytes });
        this.queuedBytes += this.lastBytes;
      }
    }
  }

  private leave(res: number, queue: Queue): void {
    if (this.queues.get(res) !== queue) return;
    this.queues.delete(res);
    for (let i = queue.head; i < queue.entries.length; i++) this.queuedBytes -= queue.entries[i].bytes;
    queue.entries = [];
    queue.head = 0;
    // Nobody reads it any more: its file goes.
    if (this.queues.size === 0) this.source?.return?.();
  }
}
