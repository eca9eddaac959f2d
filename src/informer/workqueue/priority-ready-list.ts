// The ready items of the priority queue, in controller-runtime's order (priorityqueue.go's `less`): items added
// ready come before items that waited for a time, those by the time they became ready; then the higher priority;
// then the earlier add. It also keeps the depth per priority and spots starved items.
import type { Clock } from '../clock.js';
import type { ReadyList } from './queue.js';
import { IndexedHeap } from './indexed-heap.js';

/** An item ready for longer than the bound while an item of higher priority was handed out past it. */
export interface StarvedItem<T> {
  item: T;
  priority: number;
  waitedMs: number;
  overtakenBy: T;
  overtakenByPriority: number;
}

interface Entry<T> {
  item: T;
  priority: number;
  /** When the item became ready after waiting for a time; undefined = added ready. */
  readyAt?: number;
  /** Add order (controller-runtime's AddedCounter). */
  seq: number;
  /** When it entered the ready list (starvation is measured from here). */
  since: number;
  /** Position in the heap; -1 while not in it (noted, not yet pushed: waiting, or processing). */
  index: number;
  reported: boolean;
}

export class PriorityReadyList<T> implements ReadyList<T> {
  private readonly heap = new IndexedHeap<Entry<T>>(readyBefore);
  private readonly entries = new Map<T, Entry<T>>();
  /** The priority each item handed out had, until done() (controller-runtime requeues with it). */
  private readonly handedOut = new Map<T, number>();
  /** Ready items per priority, in the order they became ready (the first is the one waiting longest). */
  private readonly levels = new Map<number, Set<T>>();
  /** The most ready items each priority had at once. */
  private readonly peaks = new Map<number, number>();
  private seq = 0;
  private clock?: Clock;
  private onStarved?: (s: StarvedItem<T>) => void;
  readonly starved: StarvedItem<T>[] = [];

  constructor(private readonly o: { starvedAfterMs: number }) {}

  bind(clock: Clock, onStarved: (s: StarvedItem<T>) => void): void {
    this.clock = clock;
    this.onStarved = onStarved;
  }

  get length(): number {
    return this.heap.length;
  }

  /**
   * Records an add's priority and ready time before the queue pushes the item: the highest priority wins, and the
   * earliest ready time (undefined, ready now, earliest of all), as AddWithOpts merges a key added twice.
   */
  note(item: T, priority: number, readyAt: number | undefined): void {
    const e = this.entries.get(item);
    if (e === undefined) {
      this.entries.set(item, { item, priority, readyAt, seq: this.seq++, since: 0, index: -1, reported: false });
      return;
    }
    const moved = priority > e.priority || (e.readyAt !== undefined && (readyAt === undefined || readyAt < e.readyAt));
    if (!moved) return;
    if (e.index >= 0) this.levelOf(e.priority).delete(item);
    if (priority > e.priority) e.priority = priority;
    if (e.readyAt !== undefined && (readyAt === undefined || readyAt < e.readyAt)) e.readyAt = readyAt;
    if (e.index >= 0) {
      this.enter(e.priority, item);
      this.heap.movedUp(e);
    }
  }

  push(item: T): void {
    let e = this.entries.get(item);
    if (e === undefined) {
      e = { item, priority: 0, seq: this.seq++, since: 0, index: -1, reported: false };
      this.entries.set(item, e);
    }
    e.since = this.now();
    this.heap.push(e);
    this.enter(e.priority, item);
  }

  shift(): T | undefined {
    const top = this.heap.pop();
    if (top === undefined) return undefined;
    this.entries.delete(top.item);
    this.levelOf(top.priority).delete(top.item);
    this.handedOut.set(top.item, top.priority);
    this.checkStarved(top);
    return top.item;
  }

  /** done(): the handed-out priority is forgotten (a new add was noted separately). */
  released(item: T, _readded: boolean): void {
    this.handedOut.delete(item);
  }

  priorityOf(item: T): number | undefined {
    return this.entries.get(item)?.priority ?? this.handedOut.get(item);
  }

  depthByPriority(): [number, number][] {
    return [...this.levels].filter(([, s]) => s.size > 0).map(([p, s]): [number, number] => [p, s.size]).sort((a, b) => b[0] - a[0]);
  }

  /** The most ready items per priority at any one time, highest priority first. */
  peakDepthByPriority(): [number, number][] {
    return [...this.peaks].sort((a, b) => b[0] - a[0]);
  }

  private enter(priority: number, item: T): void {
    const level = this.levelOf(priority);
    level.add(item);
    if (level.size > (this.peaks.get(priority) ?? 0)) this.peaks.set(priority, level.size);
  }

  /** Each lower level's longest-waiting item, once it has waited past the bound while `taken` went ahead of it. */
  private checkStarved(taken: Entry<T>): void {
    const now = this.now();
    for (const [priority, level] of this.levels) {
      if (priority >= taken.priority || level.size === 0) continue;
      const first = this.entries.get(level.values().next().value as T);
      if (first === undefined || first.reported || now - first.since <= this.o.starvedAfterMs) continue;
      first.reported = true;
      const s: StarvedItem<T> = { item: first.item, priority, waitedMs: now - first.since, overtakenBy: taken.item, overtakenByPriority: taken.priority };
      this.starved.push(s);
      this.onStarved?.(s);
    }
  }

  private levelOf(priority: number): Set<T> {
    let s = this.levels.get(priority);
    if (s === undefined) this.levels.set(priority, (s = new Set()));
    return s;
  }

  private now(): number {
    return this.clock?.now() ?? Date.now();
  }
}

/** controller-runtime's less: ready-at-add first; then by ready time; then higher priority; then earlier add. */
function readyBefore<T>(a: Entry<T>, b: Entry<T>): boolean {
  if (a.readyAt === undefined && b.readyAt !== undefined) return true;
  if (b.readyAt === undefined && a.readyAt !== undefined) return false;
  if (a.readyAt !== undefined && b.readyAt !== undefined && a.readyAt !== b.readyAt) return a.readyAt < b.readyAt;
  if (a.priority !== b.priority) return a.priority > b.priority;
  return a.seq < b.seq;
}
