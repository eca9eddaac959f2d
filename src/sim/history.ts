// The bounded change log of the store (like etcd's revisions before compaction): replays watches and rebuilds old list snapshots.
import type { SimObject } from './api.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** What the store keeps of an object besides its JSON: identity, labels and selectable fields (for selectors and routing). */
export interface ObjectSummary {
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** The selectable field values (field selectors), computed at write time. */
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * One object version as stored: its JSON (serialised once, at write time), the small summary selectors need, and its
 * revision. The JSON is the source of truth: `obj` parses a fresh copy on demand, so nobody can change stored state
 * through an object they were handed. The table, the history and snapshots share these (and so their strings).
 */
export class StoredObject {
  constructor(
    readonly key: string,
    readonly json: string,
    readonly rv: number,
    readonly meta: ObjectSummary,
  ) {}

  /** A fresh copy of the object (parsed on every access). */
  get obj(): SimObject {
    return JSON.parse(this.json) as SimObject;
  }
}

/** One committed change. For DELETED, `cur` is the last state carrying the deletion revision. */
export interface Change {
  readonly rv: number;
  readonly type: ChangeType;
  /** resourceId() of the collection. */
  readonly resId: string;
  readonly key: string;
  readonly namespace: string;
  readonly cur: StoredObject;
  /** The state before the change (MODIFIED, DELETED). */
  readonly prev?: StoredObject;
  readonly time: number;
  /** A write through the status subresource: only status changed (the quota controller ignores those, as kube's does). */
  readonly statusOnly?: boolean;
  /** Watch event lines, rendered and UTF-8 encoded once per change and shared by every watcher. */
  lines?: Partial<Record<'ADDED' | 'MODIFIED' | 'DELETED' | 'LEFT', Buffer>>;
}

export interface HistoryOptions {
  /** Most changes kept; older ones are compacted. Default 10 000. */
  maxEvents?: number;
  /** Oldest change kept, in ms; older ones are compacted. Default 5 min. */
  maxAgeMs?: number;
  now?: () => number;
}

/** Replaces the metadata.resourceVersion in a stored object's JSON (the first such key: metadata is serialised first). */
export function withResourceVersion(json: string, rv: number): string {
  return json.replace(/"resourceVersion":"[^"]*"/, `"resourceVersion":"${rv}"`);
}

/** A watch event line ending in "\n", for a change seen as `as` (LEFT = stopped matching a selector), as bytes. */
export function eventLine(change: Change, as: 'ADDED' | 'MODIFIED' | 'DELETED' | 'LEFT'): Buffer {
  const memo = (change.lines ??= {});
  let line = memo[as];
  if (line === undefined) {
    const json = as === 'LEFT' ? withResourceVersion((change.prev ?? change.cur).json, change.rv) : change.cur.json;
    line = Buffer.from(`{"type":"${as === 'LEFT' ? 'DELETED' : as}","object":${json}}\n`);
    memo[as] = line;
  }
  return line;
}

/** Changes ordered by revision; everything at or below `compactedRevision` is gone. */
export class History {
  private changes: Change[] = [];
  private head = 0;
  private compacted = 0;
  readonly maxEvents: number;
  readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(opts: HistoryOptions = {}) {
    this.maxEvents = opts.maxEvents ?? 10_000;
    this.maxAgeMs = opts.maxAgeMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Every change with rv <= this revision has been compacted away. */
  get compactedRevision(): number { return this.compacted; }

  get size(): number { return this.changes.length - this.head; }

  /** Sets the starting point of an empty history (the revision the store starts at). */
  startAt(rv: number): void { this.compacted = rv; }

  append(c: Change): void {
    this.changes.push(c);
    this.trim();
  }

  /** Drops changes beyond the count and age bounds. */
  trim(): void {
    const cutoff = this.now() - this.maxAgeMs;
    while (this.size > this.maxEvents || (this.size > 0 && this.changes[this.head].time < cutoff)) {
      this.compacted = this.changes[this.head].rv;
      this.head++;
    }
    // Reclaim the dropped prefix now and then rather than shifting on every append.
    if (this.head > 1024 && this.head * 2 > this.changes.length) {
      this.changes = this.changes.slice(this.head);
      this.head = 0;
    }
  }

  /** Compacts every change up to `rv` (default: all of them). */
  compact(rv = Infinity): void {
    while (this.size > 0 && this.changes[this.head].rv <= rv) {
      this.compacted = this.changes[this.head].rv;
      this.head++;
    }
    if (rv !== Infinity && rv > this.compacted) this.compacted = rv;
    this.changes = this.changes.slice(this.head);
    this.head = 0;
  }

  /** Changes with revision > rv, oldest first (caller checks rv >= compactedRevision). */
  since(rv: number): Change[] {
    let lo = this.head, hi = this.changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.changes[mid].rv <= rv) lo = mid + 1; else hi = mid;
    }
    return this.changes.slice(lo);
  }
}
