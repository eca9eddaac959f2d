// A recording seen as the requests the client made, in order (list operations and watch
// connections of one resource), plus the object state those requests reveal at any point.
import type { RecordingEntry } from './recording-format.js';
import { compareResourceVersions } from '../resource-version.js';
import { metaNamespaceKey, type KubeObject, type WatchEvent } from '../types.js';

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

/** One watch connection: its events, and how it ended (absent when the recording stopped first). */
export interface RecordedWatch {
  kind: 'watch';
  t: number;
  conn: number;
  resourceVersion?: string;
  events: EventEntry[];
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

/** Groups one resource's entries into the requests the client made, in the order it made them. */
export function buildTimeline(entries: RecordingEntry[], res = 0): RecordedOp[] {
  const ops: RecordedOp[] = [];
  const watches = new Map<number, RecordedWatch>();
  let openList: RecordedList | undefined;
  for (const e of entries) {
    if (e.res !== res) continue;
    switch (e.rec) {
      case 'list': {
        const continues = openList && e.options.continue && openList.pages.at(-1)?.page.metadata.continue === e.options.continue;
        if (continues) openList!.pages.push(e);
        else {
          openList = { kind: 'list', t: e.t, pages: [e] };
          ops.push(openList);
        }
        if (!e.page.metadata.continue) openList = undefined;
        break;
      }
      case 'error':
        if (e.op === 'list') {
          if (openList && e.options.continue) openList.error = e;
          else ops.push({ kind: 'list', t: e.t, pages: [], error: e });
          openList = undefined;
        } else ops.push({ kind: 'watch-error', t: e.t, error: e });
        break;
      case 'watch-start': {
        const w: RecordedWatch = { kind: 'watch', t: e.t, conn: e.conn, resourceVersion: e.options.resourceVersion, events: [] };
        watches.set(e.conn, w);
        ops.push(w);
        break;
      }
      case 'event':
        watches.get(e.conn)?.events.push(e);
        break;
      case 'watch-end': {
        const w = watches.get(e.conn);
        if (w) w.end = e;
        break;
      }
    }
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

/**
 * The first point after `rv`: the first watch event newer than it (ERROR events aside), or a list
 * op at a newer resourceVersion if one comes first. Undefined when nothing in the recording is newer.
 */
export function positionAfter(ops: RecordedOp[], rv: string): TimelinePosition | undefined {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.kind === 'list') {
      const listRv = op.pages.at(-1)?.page.metadata.resourceVersion;
      if (listRv && !op.error && compareResourceVersions(listRv, rv) > 0) return { op: i, event: 0 };
    } else if (op.kind === 'watch') {
      for (let j = 0; j < op.events.length; j++) {
        const ev = op.events[j].event;
        const evRv = ev.object.metadata?.resourceVersion;
        if (ev.type !== 'ERROR' && evRv && compareResourceVersions(evRv, rv) > 0) return { op: i, event: j };
      }
    }
  }
  return undefined;
}

/** The state a client had just before `pos`, and the time of the last entry applied. */
export function stateBefore(ops: RecordedOp[], pos: TimelinePosition): { state: ObjectState; t: number } {
  const state = new ObjectState();
  let t = 0;
  for (let i = 0; i <= pos.op && i < ops.length; i++) {
    const op = ops[i];
    if (op.kind === 'list') {
      if (i === pos.op) break;
      applyList(state, op);
      t = op.pages.at(-1)?.t ?? op.error?.t ?? t;
    } else if (op.kind === 'watch') {
      const n = i === pos.op ? pos.event : op.events.length;
      for (let j = 0; j < n; j++) {
        state.apply(op.events[j].event);
        t = op.events[j].t;
      }
    } else if (i < pos.op) t = op.t;
  }
  return { state, t };
}

/** The state after everything at or before `rv` (the whole recording when nothing is newer). */
export function stateAt(ops: RecordedOp[], rv: string): ObjectState {
  const pos = positionAfter(ops, rv) ?? { op: ops.length, event: 0 };
  return stateBefore(ops, pos).state;
}
