// Perfetto's input: Chrome Trace Event JSON (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU),
// which ui.perfetto.dev opens locally. A process track per pipeline stage (per client process on the endpoint), threads
// handed out so that no two X slices overlap on one track (Perfetto draws no overlapping slices), X slices for list
// pages, requests, watch connections, reconciles and writes (a delivered event is a 1 µs slice, so that the flow
// arrows event → reconcile → write → echo have a slice to bind to), instants for bookmarks, faults, 409s, 410s and
// relists, counters for queue depth, cache size and events/s.
import { previousStep, TraceIndex } from './causal-chain.js';
import { eventType, isChangeEvent, isWrite, objectKeyOf, writeCode, writeFields, writerOf, type TraceRow } from './trace-rows.js';

export interface ChromeEvent {
  name: string;
  ph: 'X' | 'i' | 'C' | 'M';
  ts: number;
  pid: number;
  tid: number;
  dur?: number;
  cat?: string;
  s?: 't' | 'p' | 'g';
  args?: Record<string, unknown>;
  bind_id?: string;
  flow_in?: boolean;
  flow_out?: boolean;
}

interface Slice {
  name: string;
  cat: string;
  pid: number;
  start: number;
  end: number;
  /** Slices of one lane family share threads (a watch connection never shares a thread with a reconcile). */
  family: string;
  args: Record<string, unknown>;
  row?: TraceRow;
}

/** µs timestamps, strictly increasing in record order: records of one millisecond keep their order. */
function timestamps(rows: readonly TraceRow[]): Map<number, number> {
  const ts = new Map<number, number>();
  let last = -Infinity;
  for (const r of rows) {
    const t = Math.max(Math.round(r.time * 1000), last + 1);
    ts.set(r.id, t);
    last = t;
  }
  return ts;
}

/**
 * `dropped`: records the run made past the collector's limit (trace-rows.ts MAX_ROWS). Perfetto's JSON importer reads
 * no top-level metadata (it skips `otherData`; json_trace_tokenizer.cc), so the file says it where the user looks: an
 * instant on a `kwatch` track where the kept records end, and `otherData` for chrome://tracing and scripts.
 */
export function toPerfetto(rows: readonly TraceRow[], dropped = 0): { traceEvents: ChromeEvent[]; displayTimeUnit: 'ms'; otherData: Record<string, string> } {
  const ts = timestamps(rows);
  const at = (r: TraceRow) => ts.get(r.id)!;
  const pids = new Map<string, number>();
  const pidOf = (name: string): number => {
    let p = pids.get(name);
    if (p === undefined) pids.set(name, (p = pids.size + 1));
    return p;
  };
  const processOf = (r: TraceRow): string => (r.stage === 'endpoint' ? `client ${String(r.client ?? '?')}` : r.stage);
  const slices: Slice[] = [];
  const instants: ChromeEvent[] = [];
  const counters: ChromeEvent[] = [];
  /** Slices begun and not yet ended, by slot: what one still open at the end of the trace is named, and its family. */
  const open = new Map<string, { row: TraceRow; start: number; name: string; family: string }>();
  const lastTs = rows.length ? at(rows[rows.length - 1]) : 0;
  const instant = (r: TraceRow, name: string, cat: string, args: Record<string, unknown> = {}) =>
    instants.push({ name, ph: 'i', s: 't', ts: at(r), pid: pidOf(processOf(r)), tid: 0, cat, args: { id: r.id, key: r.key, rv: r.rv, ...args } });
  const closeSlice = (slot: string, end: TraceRow, name: string, cat: string, family: string, args: Record<string, unknown> = {}) => {
    const o = open.get(slot);
    if (!o) return;
    open.delete(slot);
    slices.push({ name, cat, pid: pidOf(processOf(o.row)), start: o.start, end: Math.max(at(end), o.start + 1), family, args: { id: o.row.id, ...args }, row: o.row });
  };
  const eventsPerSecond = new Map<string, Map<number, number>>();

  for (const r of rows) {
    const t = at(r);
    const pidName = processOf(r);
    switch (r.stage) {
      case 'http':
        if (r.op === 'response' && typeof r.ms === 'number') slices.push({ name: `${String(r.method ?? '')} ${shortUrl(r.url)}`, cat: 'http', pid: pidOf(pidName), start: t - Math.round(r.ms * 1000), end: t, family: 'request', args: { id: r.id, status: r.status, bytes: r.bytes, url: r.url } });
        break;
      case 'reflector': {
        const name = String(r.name ?? r.resource ?? '');
        if (r.op === 'list-page' && typeof r.ms === 'number') slices.push({ name: `LIST ${name} page ${String(r.page ?? '')}`, cat: 'list', pid: pidOf(pidName), start: t - Math.round(r.ms * 1000), end: t, family: 'list', args: { id: r.id, items: r.items, bytes: r.bytes, rv: r.rv } });
        // A watch-list's initial events are its LIST (client-go 1.35's default sync): the same category, from the watch's start.
        else if (r.op === 'initial-events-end' && typeof r.ms === 'number') slices.push({ name: `WATCH-LIST ${name} initial events`, cat: 'list', pid: pidOf(pidName), start: t - Math.round(r.ms * 1000), end: t, family: 'list', args: { id: r.id, events: r.events, rv: r.rv } });
        else if (r.op === 'watch-start') open.set(`watch ${name}`, { row: r, start: t, name: `WATCH ${name}`, family: `watch ${name}` });
        else if (r.op === 'watch-close' || r.op === 'watch-error' || r.op === 'stopped' || r.op === 'expired') {
          closeSlice(`watch ${name}`, r, `WATCH ${name} conn ${String(open.get(`watch ${name}`)?.row.conn ?? '')}`.trim(), 'watch', `watch ${name}`, { end: r.op, reason: r.reason ?? r.error });
          if (r.op === 'expired') instant(r, '410 Gone (expired)', 'fault', { rv: r.rv });
          if (r.op === 'watch-error') instant(r, `watch error`, 'fault', { error: r.error });
        } else if (r.op === 'relist') instant(r, `relist ${name}`, 'relist', { reason: r.reason });
        else if (r.op === 'bookmark') instant(r, 'BOOKMARK', 'bookmark');
        else if (r.op === 'backoff' || r.op === 'retry-after' || r.op === 'list-error' || r.op === 'watchdog' || r.op === 'very-short-watch') instant(r, r.op, 'fault', detailOf(r));
        break;
      }
      case 'watch':
        if (isChangeEvent(r)) {
          slices.push({ name: `${r.op} ${r.key ?? ''}`, cat: 'event', pid: pidOf(pidName), start: t, end: t + 1, family: 'event', args: { id: r.id, key: r.key, rv: r.rv, echoOf: r.echoOf }, row: r });
          countEvent(eventsPerSecond, pidName, t);
        } else if (r.op === 'BOOKMARK') instant(r, 'BOOKMARK', 'bookmark');
        else if (r.op === 'ERROR') instant(r, `ERROR ${String(r.code ?? '')}`.trim(), 'fault', { error: r.message ?? r.error });
        break;
      case 'fifo':
      case 'workqueue':
        // A tombstone a relist's Replace queued (a delete the watch never delivered): on the reflector's track,
        // beside the relist that delivered it.
        if (r.stage === 'fifo' && r.op === 'Deleted' && r.tombstone === true) instants.push({ name: `tombstone ${r.key ?? ''}`, ph: 'i', s: 't', ts: t, pid: pidOf('reflector'), tid: 0, cat: 'relist', args: { id: r.id, key: r.key, rv: r.rv, tombstoneType: r.tombstoneType, tombstoneExplanation: r.tombstoneExplanation } });
        if (typeof r.depth === 'number') counters.push({ name: `${r.stage} depth`, ph: 'C', ts: t, pid: pidOf(pidName), tid: 0, args: { depth: r.depth } });
        break;
      case 'indexer':
        if (typeof r.size === 'number') counters.push({ name: 'cache size', ph: 'C', ts: t, pid: pidOf(pidName), tid: 0, args: { objects: r.size } });
        break;
      case 'reconcile': {
        const slot = `reconcile ${String(r.controller ?? '')} ${r.key ?? ''}`;
        if (r.op === 'start') open.set(slot, { row: r, start: t, name: `reconcile ${r.key ?? ''}`, family: 'reconcile' });
        else if (r.op === 'success' || r.op === 'error' || r.op === 'requeue-after' || r.op === 'requeue' || r.op === 'end') closeSlice(slot, r, `reconcile ${r.key ?? ''}`, 'reconcile', 'reconcile', { result: r.op, error: r.error });
        else if (r.op === 'write') slices.push(writeSlice(r, t, pidOf(pidName)));
        else if (r.op === 'loop') instant(r, `loop ${r.key ?? ''}`, 'finding', { rounds: r.rounds, fields: r.fields });
        break;
      }
      case 'endpoint': {
        const slot = `watch ${String(r.client)} ${String(r.resource)} ${r.key ?? '*'}`;
        if (r.op === 'watch' && r.event === 'start') open.set(slot, { row: r, start: t, name: `WATCH ${String(r.resource)}`, family: `watch ${String(r.resource)}` });
        else if (r.op === 'watch' && r.event === 'close') closeSlice(slot, r, `WATCH ${String(r.resource)}`, 'watch', `watch ${String(r.resource)}`, { reason: r.reason });
        else if (r.op === 'watch' && isChangeEvent(r)) {
          slices.push({ name: `${eventType(r)} ${r.key ?? ''}`, cat: 'event', pid: pidOf(pidName), start: t, end: t + 1, family: 'event', args: { id: r.id, key: r.key, rv: r.rv, echoOf: r.echoOf }, row: r });
          countEvent(eventsPerSecond, pidName, t);
        } else if (r.op === 'watch' && r.event === 'BOOKMARK') instant(r, 'BOOKMARK', 'bookmark');
        else if (r.op === 'watch' && r.event === 'ERROR') instant(r, `${String(r.code ?? '')} ${r.code === 410 ? 'Gone' : 'ERROR'}`.trim(), 'fault', { error: r.error });
        else if (r.op === 'write') slices.push(writeSlice(r, t, pidOf(pidName)));
        else if (r.op === 'list') slices.push({ name: `LIST ${String(r.resource ?? '')}`, cat: 'list', pid: pidOf(pidName), start: t - 1, end: t, family: 'list', args: { id: r.id, items: r.items, rv: r.rv } });
        else if (r.op === 'http' && typeof r.ms === 'number' && r.method !== 'GET') slices.push({ name: `${String(r.method)} ${String(r.path ?? '')}`, cat: 'http', pid: pidOf(pidName), start: t - Math.round(r.ms * 1000), end: t, family: 'request', args: { id: r.id, status: r.status } });
        else if (r.op === 'relist' || r.op === 'stale-write' || r.op === 'loop' || r.op === 'stall' || r.op === 'fault' || r.op === 'conflict') instant(r, r.op, r.op === 'relist' ? 'relist' : 'finding', detailOf(r));
        break;
      }
      default:
        break;
    }
  }
  // Still open at the end of the trace (a watch that was running when the run stopped): it ends there.
  // Named and threaded as it would have been when closed (an endpoint watch by its resource, not its client).
  for (const o of open.values()) {
    const reconcile = o.family === 'reconcile';
    slices.push({ name: `${o.name} (${reconcile ? 'running' : 'open'} at the end)`, cat: reconcile ? 'reconcile' : 'watch', pid: pidOf(processOf(o.row)), start: o.start, end: Math.max(lastTs, o.start + 1), family: o.family, args: { id: o.row.id }, row: o.row });
  }

  const events: ChromeEvent[] = [];
  /** The record id → its slice, for binding flow arrows. */
  const flowSlices = new Map<number, ChromeEvent>();
  const threadNames = new Map<string, string>();
  for (const s of assignThreads(slices)) {
    const e: ChromeEvent = { name: s.name, ph: 'X', ts: s.start, dur: s.end - s.start, pid: s.pid, tid: s.tid, cat: s.cat, args: s.args };
    events.push(e);
    if (s.row) flowSlices.set(s.row.id, e);
    threadNames.set(`${s.pid} ${s.tid}`, `${s.family} ${s.lane}`);
  }
  addFlows(rows, flowSlices);
  for (const [pt, name] of threadNames) {
    const [pid, tid] = pt.split(' ').map(Number);
    events.push({ name: 'thread_name', ph: 'M', ts: 0, pid, tid, args: { name } });
  }
  for (const [name, pid] of pids) {
    events.push({ name: 'process_name', ph: 'M', ts: 0, pid, tid: 0, args: { name } });
    events.push({ name: 'process_sort_index', ph: 'M', ts: 0, pid, tid: 0, args: { sort_index: pid } });
  }
  for (const [pidName, perSecond] of eventsPerSecond) {
    for (const [second, n] of perSecond) counters.push({ name: 'events/s', ph: 'C', ts: second * 1_000_000, pid: pidOf(pidName), tid: 0, args: { events: n } });
  }
  const otherData: Record<string, string> = { generator: 'kwatch --trace-out' };
  if (dropped > 0) {
    const pid = pids.size + 1;
    instants.push({ name: `${dropped} later records dropped past the limit`, ph: 'i', s: 'p', ts: lastTs, pid, tid: 0, cat: 'fault', args: { kept: rows.length, dropped } });
    events.push({ name: 'process_name', ph: 'M', ts: 0, pid, tid: 0, args: { name: 'kwatch' } }, { name: 'process_sort_index', ph: 'M', ts: 0, pid, tid: 0, args: { sort_index: 0 } });
    otherData.droppedRecords = String(dropped);
  }
  return { traceEvents: [...events, ...instants, ...counters], displayTimeUnit: 'ms', otherData };
}

/** Where a record is and how it links: the slice or instant already shows it, or Perfetto has no use for it. */
const BOOKKEEPING = new Set(['time', 'stage', 'op', 'id', 'cause', 'echoOf']);

/**
 * What a fault or finding record says, for the instant's detail pane: each op carries its own fields (a Retry-After
 * its `seconds`, a watchdog its `silentMs`, a fork's conflict the side it kept), so all of them, not a chosen few.
 */
function detailOf(r: TraceRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (!BOOKKEEPING.has(k)) out[k] = v;
  return out;
}

function writeSlice(r: TraceRow, t: number, pid: number): Slice {
  const fields = writeFields(r);
  const target = objectKeyOf(r) ?? '';
  const code = writeCode(r);
  const ms = typeof r.ms === 'number' ? r.ms : 0;
  return {
    name: `${String(r.verb ?? 'write')} ${target}${code !== undefined && code >= 400 ? ` → ${code}` : ''}`,
    cat: 'write',
    pid,
    start: t,
    end: t + Math.max(1, Math.round(ms * 1000)),
    family: `writes`,
    args: { id: r.id, writer: writerOf(r), target, rv: r.rv, code, fields, mode: r.mode, error: r.error, cause: r.cause },
    row: r,
  };
}

function countEvent(m: Map<string, Map<number, number>>, pidName: string, tsUs: number): void {
  let per = m.get(pidName);
  if (!per) m.set(pidName, (per = new Map()));
  const second = Math.floor(tsUs / 1_000_000);
  per.set(second, (per.get(second) ?? 0) + 1);
}

/** Hands each slice the first thread of its process and family that is free at its start: slices never overlap on a thread. */
function assignThreads(slices: Slice[]): (Slice & { tid: number; lane: number })[] {
  const sorted = [...slices].sort((a, b) => a.start - b.start || a.end - b.end);
  const lanes = new Map<string, { tid: number; end: number }[]>();
  const nextTid = new Map<number, number>();
  const out: (Slice & { tid: number; lane: number })[] = [];
  for (const s of sorted) {
    const k = `${s.pid} ${s.family}`;
    let ls = lanes.get(k);
    if (!ls) lanes.set(k, (ls = []));
    let lane = ls.findIndex((l) => l.end <= s.start);
    if (lane < 0) {
      const tid = (nextTid.get(s.pid) ?? 0) + 1;
      nextTid.set(s.pid, tid);
      ls.push({ tid, end: s.end });
      lane = ls.length - 1;
    } else ls[lane].end = s.end;
    out.push({ ...s, tid: ls[lane].tid, lane: lane + 1 });
  }
  return out;
}

/**
 * Flow arrows along each causal chain: event → reconcile → write → echo → …, as slice events with `bind_id`,
 * `flow_out` on the earlier and `flow_in` on the later. A slice takes one incoming arrow and hands one on, so each
 * chain is one bind_id; a reconcile's second write starts no new arrow from it.
 */
function addFlows(rows: readonly TraceRow[], sliceOf: Map<number, ChromeEvent>): void {
  const index = new TraceIndex(rows);
  const chainOf = new Map<number, string>();
  const handedOn = new Set<number>();
  let next = 1;
  for (const r of rows) {
    const slice = sliceOf.get(r.id);
    if (!slice) continue;
    // A reconcile's slice is keyed by its start record.
    const prev = r.stage === 'reconcile' && r.op === 'start' ? previousStep(index, r) : isWrite(r) || isChangeEvent(r) ? previousStep(index, r) : undefined;
    if (!prev || handedOn.has(prev.id)) continue;
    const from = sliceOf.get(prev.id);
    if (!from || from.ts > slice.ts) continue;
    let chain = chainOf.get(prev.id);
    if (!chain) chainOf.set(prev.id, (chain = `0x${(next++).toString(16)}`));
    if (from.bind_id !== undefined && from.bind_id !== chain) continue;
    if (slice.bind_id !== undefined) continue;
    from.bind_id = chain;
    from.flow_out = true;
    handedOn.add(prev.id);
    slice.bind_id = chain;
    slice.flow_in = true;
    chainOf.set(r.id, chain);
  }
}

function shortUrl(u: unknown): string {
  return String(u ?? '').replace(/\?.*$/, '');
}
