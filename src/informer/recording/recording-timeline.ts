// A recording seen as the requests the client made, in order (list operations and watch
// connections of one resource), plus the object state those requests reveal at any point.
// The timeline is built as replay reads it — entries are pulled from the recording only when an op or
// an event is asked for, and what replay has passed is released — so a long recording replays in the
// memory of its state, not of its length.
import type { RecordingEntry } from './recording-format.js';
import { compareResourceVersions } from '../resource-version.js';
import { metaNamespaceKey, type KubeObject, type WatchEvent } from '../types.js';
import { LatestVersions } from './unchanged-parts.js';

type ListEntry = Extract<RecordingEntry, { rec: 'list' }>;
type EventEntry = Extract<RecordingEntry, { rec: 'event' }>;
type WatchEndEntry = Extract<RecordingEntry, { rec: 'watch-end' }>;
type ErrorEntry = Extract<RecordingEntry, { rec: 'error' }>;

/** One LIST as the pager made it: its pages in order, and the error that ended it, if any. */
export interface RecordedList {
  kind: 'list';
  t: number;
  pages: ListEntry[];
  error?: ErrorEntry;
}

/**
 * One watch connection: its events as far as they have been read (`events[0]` is event number `firstEvent`;
 * earlier ones were released), and how it ended (absent when the recording stopped first).
 */
export interface RecordedWatch {
  kind: 'watch';
  t: number;
  conn: number;
  resourceVersion?: string;
  /** The request was a watch-list (sendInitialEvents=true): its first events are the initial state. */
  sendInitialEvents?: boolean;
  events: EventEntry[];
  firstEvent: number;
  end?: WatchEndEntry;
}

/** A watch request the server refused (an HTTP error, no stream). */
export interface RecordedWatchFailure {
  kind: 'watch-error';
  t: number;
  error: ErrorEntry;
}

export type RecordedOp = RecordedList | RecordedWatch | RecordedWatchFailure;

/** Where replay stands: the next op, and within a watch op the next event. */
export interface TimelinePosition {
  op: number;
  event: number;
}

/** How many passed events a watch keeps before they are dropped in one go (dropping one by one would be quadratic). */
const RELEASE_BATCH = 1024;

/** One resource's requests, read from the recording's entries as they are asked for. */
export class Timeline {
  private readonly ops: (RecordedOp | undefined)[] = [];
  private readonly watches = new Map<number, RecordedWatch>();
  private openList?: RecordedList;
  private readonly source: Iterator<RecordingEntry>;
  private ended = false;
  /** Ops before this index have been released. */
  private released = 0;
  /** Each object read shares its unchanged parts with its version before (unchanged-parts.ts). */
  private readonly versions = new LatestVersions();

  constructor(
    entries: Iterable<RecordingEntry>,
    private readonly res = 0,
  ) {
    this.source = entries[Symbol.iterator]();
  }

  /** Op `i`, with all its list pages; undefined past the end of the recording (or once released). */
  op(i: number): RecordedOp | undefined {
    while (this.ops.length <= i && this.pull());
    const op = this.ops[i];
    if (op?.kind === 'list') while (this.openList === op && this.pull());
    return op;
  }

  /** Event number `j` of a watch op, reading on as needed; undefined once the connection has no more. */
  event(op: RecordedWatch, j: number): EventEntry | undefined {
    while (op.firstEvent + op.events.length <= j && op.end === undefined && this.pull());
    return op.events[j - op.firstEvent];
  }

  /** Replay is past event `j` of `op` for good: the events before it may go. */
  releaseEvents(op: RecordedWatch, j: number): void {
    const n = j - op.firstEvent;
    if (n < RELEASE_BATCH) return;
    op.events.splice(0, n);
    op.firstEvent = j;
  }

  /** Replay never asks for ops before `i` again. */
  releaseOps(i: number): void {
    for (; this.released < Math.min(i, this.ops.length); this.released++) {
      const op = this.ops[this.released];
      if (op?.kind === 'watch') this.watches.delete(op.conn);
      this.ops[this.released] = undefined;
    }
  }

  /** Reads entries until one of this resource has been placed; false at the end of the recording. */
  private pull(): boolean {
    if (this.ended) return false;
    for (;;) {
      const next = this.source.next();
      if (next.done) {
        this.ended = true;
        this.openList = undefined;
        return false;
      }
      const e = next.value;
      if (e.res !== this.res) continue;
      this.place(e);
      return true;
    }
  }

  private place(e: RecordingEntry): void {
    switch (e.rec) {
      case 'list': {
        const open = this.openList;
        const continues = open && e.options.continue && open.pages.at(-1)?.page.metadata.continue === e.options.continue;
        this.versions.listPage(e.page.items, !continues, !e.page.metadata.continue);
        if (continues) open.pages.push(e);
        else {
          this.openList = { kind: 'list', t: e.t, pages: [e] };
          this.ops.push(this.openList);
        }
        if (!e.page.metadata.continue) this.openList = undefined;
        break;
      }
      case 'error':
        if (e.op === 'list') {
          if (this.openList && e.options.continue) this.openList.error = e;
          else this.ops.push({ kind: 'list', t: e.t, pages: [], error: e });
          this.openList = undefined;
        } else this.ops.push({ kind: 'watch-error', t: e.t, error: e });
        break;
      case 'watch-start': {
        const w: RecordedWatch = { kind: 'watch', t: e.t, conn: e.conn, resourceVersion: e.options.resourceVersion, events: [], firstEvent: 0 };
        if (e.options.sendInitialEvents) w.sendInitialEvents = true;
        this.watches.set(e.conn, w);
        this.ops.push(w);
        break;
      }
      case 'event': {
        const w = this.watches.get(e.conn);
        if (w) {
          this.versions.event(e.event);
          w.events.push(e);
        }
        break;
      }
      case 'watch-end': {
        const w = this.watches.get(e.conn);
        if (w) w.end = e;
        break;
      }
    }
  }
}

/**
 * Whether the recorded client synced with a watch-list: its first request was a watch (served or refused) with
 * sendInitialEvents. A replay must then sync the same way, or it reads the initial events as plain watch events
 * after a list the recording never made.
 */
export function startsWithWatchList(timeline: Timeline): boolean {
  const first = timeline.op(0);
  if (first?.kind === 'watch') return first.sendInitialEvents === true;
  if (first?.kind === 'watch-error') return first.error.options.sendInitialEvents === true;
  return false;
}

/** Groups one resource's entries into the requests the client made, in the order it made them. */
export function buildTimeline(entries: Iterable<RecordingEntry>, res = 0): Timeline {
  return new Timeline(entries, res);
}

/** Every op of a timeline, read to the end (for tests and small recordings: it holds them all). */
export function allOps(timeline: Timeline): RecordedOp[] {
  const ops: RecordedOp[] = [];
  for (let i = 0, op = timeline.op(0); op; op = timeline.op(++i)) {
    if (op.kind === 'watch') timeline.event(op, Number.MAX_SAFE_INTEGER);
    ops.push(op);
  }
  return ops;
}

/** The objects a client knows at some point of a recording: what lists replaced and events changed. */
export class ObjectState {
  private objects = new Map<string, KubeObject>();
  /** The resourceVersion the state is at ("" before anything was seen). */
  resourceVersion = '';

  static copy(s: ObjectState): ObjectState {
    const c = new ObjectState();
    c.objects = new Map(s.objects);
    c.resourceVersion = s.resourceVersion;
    return c;
  }

  replace(items: KubeObject[], resourceVersion: string): void {
    this.objects = new Map(items.map((o) => [metaNamespaceKey(o), o]));
    this.resourceVersion = resourceVersion;
  }

  apply(event: WatchEvent): void {
    if (event.type === 'ERROR') return;
    const rv = event.object.metadata?.resourceVersion;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') this.objects.set(metaNamespaceKey(event.object), event.object);
    else if (event.type === 'DELETED') this.objects.delete(metaNamespaceKey(event.object));
    if (rv) this.resourceVersion = rv;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  get size(): number {
    return this.objects.size;
  }

  /** The objects sorted by key, as a server lists them. */
  items(): KubeObject[] {
    return [...this.objects.keys()].sort().map((k) => this.objects.get(k)!);
  }
}

/** Applies a completed list op to a state (a list cut short by an error changes nothing). */
export function applyList(state: ObjectState, op: RecordedList): void {
  const last = op.pages.at(-1);
  if (!last || op.error || last.page.metadata.continue) return;
  state.replace(
    op.pages.flatMap((p) => p.page.items),
    last.page.metadata.resourceVersion ?? state.resourceVersion,
  );
}

/** Where a replay after some resourceVersion starts, the state just before it, and the time of the last entry applied. */
export interface StartPoint {
  /** Undefined when nothing in the recording is newer. */
  position?: TimelinePosition;
  state: ObjectState;
  t: number;
}

/**
 * One pass from the start: the first point after `rv` — the first watch event newer than it (ERROR events
 * aside), or a list op at a newer resourceVersion if one comes first — with the state before it. What the
 * pass leaves behind is released, so the timeline can go on from the point with only the state in memory.
 */
export function startAfter(timeline: Timeline, rv: string): StartPoint {
  const state = new ObjectState();
  let t = 0;
  for (let i = 0, op = timeline.op(0); op; op = timeline.op(++i)) {
    if (op.kind === 'list') {
      const listRv = op.pages.at(-1)?.page.metadata.resourceVersion;
      if (listRv && !op.error && compareResourceVersions(listRv, rv) > 0) return { position: { op: i, event: 0 }, state, t };
      applyList(state, op);
      t = op.pages.at(-1)?.t ?? op.error?.t ?? t;
    } else if (op.kind === 'watch') {
      for (let j = op.firstEvent, entry = timeline.event(op, j); entry; entry = timeline.event(op, ++j)) {
        const ev = entry.event;
        const evRv = ev.object.metadata?.resourceVersion;
        if (ev.type !== 'ERROR' && evRv && compareResourceVersions(evRv, rv) > 0) return { position: { op: i, event: j }, state, t };
        state.apply(ev);
        t = entry.t;
        timeline.releaseEvents(op, j);
      }
    } else t = op.t;
    timeline.releaseOps(i);
  }
  return { state, t };
}

/** The first point after `rv`; undefined when nothing in the recording is newer. */
export function positionAfter(timeline: Timeline, rv: string): TimelinePosition | undefined {
  return startAfter(timeline, rv).position;
}

/** The state after everything at or before `rv` (the whole recording when nothing is newer). */
export function stateAt(timeline: Timeline, rv: string): ObjectState {
  return startAfter(timeline, rv).state;
}
