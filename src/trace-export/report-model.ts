// What the HTML report draws, computed here so that the page only draws: a lane per key (events, reconciles, writes,
// 409s) and, for informer runs, a lane per watch connection (starts, closes, relists with their reason, 410s); arrows
// write → echo → the write that echo triggered; the findings; the verdict. Past MAX_MARKS marks the page gets per-key
// aggregates and the marks of the keys with findings only (never more than it can draw).
import { previousStep, TraceIndex } from './causal-chain.js';
import { findFindings, type Finding } from './findings.js';
import { eventType, isChangeEvent, isWrite, objectKeyOf, writeCode, writeFields, writeOk, writerOf, type TraceRow } from './trace-rows.js';

export const MAX_MARKS = 10_000;

export type MarkKind = 'event-own' | 'event-other' | 'event-upstream' | 'write' | 'write-failed' | 'conflict' | 'gone' | 'relist' | 'reconcile' | 'watch-start' | 'watch-close' | 'list' | 'fault' | 'bookmark' | 'tombstone';

export interface Mark {
  id: number;
  t: number;
  kind: MarkKind;
  label: string;
  client?: string;
  stage: string;
  detail?: string;
}

export interface Lane {
  id: string;
  kind: 'key' | 'watch';
  label: string;
  marks: Mark[];
}

export interface KeyAggregate {
  key: string;
  events: number;
  writes: number;
  conflicts: number;
  reconciles: number;
  writers: string[];
}

export interface ReportModel {
  title: string;
  verdict: string;
  summary: [string, string | number][];
  start: number;
  end: number;
  lanes: Lane[];
  arrows: { from: number; to: number; kind: 'echo' | 'trigger' }[];
  findings: Finding[];
  aggregates: KeyAggregate[];
  truncated?: string;
}

/** `dropped`: records the run made past the collector's limit (trace-rows.ts MAX_ROWS), shown beside the count. */
export function buildReportModel(rows: readonly TraceRow[], title: string, dropped = 0): ReportModel {
  const index = new TraceIndex(rows);
  const findings = findFindings(rows, index);
  const keyLanes = new Map<string, Lane>();
  const watchLanes = new Map<string, Lane>();
  const arrows: ReportModel['arrows'] = [];
  const aggregates = new Map<string, KeyAggregate>();
  const agg = (key: string) => {
    let a = aggregates.get(key);
    if (!a) aggregates.set(key, (a = { key, events: 0, writes: 0, conflicts: 0, reconciles: 0, writers: [] }));
    return a;
  };
  const laneOf = (m: Map<string, Lane>, id: string, kind: Lane['kind']) => {
    let l = m.get(id);
    if (!l) m.set(id, (l = { id, kind, label: id, marks: [] }));
    return l;
  };
  const counts = { events: 0, writes: 0, conflicts: 0, gones: 0, relists: 0, reconciles: 0 };
  /** The informer's latest relist: the tombstones its Replace queues are its own. */
  let lastRelist: { lane: string; mark: Mark; tombstones: number; reason?: string } | undefined;
  /** Watch lane → when its watch last closed: the next start says how long it was down. */
  const lastDown = new Map<string, number>();
  for (const r of rows) {
    const key = objectKeyOf(r);
    const client = r.stage === 'endpoint' ? String(r.client ?? '') : isWrite(r) ? writerOf(r) : undefined;
    if (isChangeEvent(r) && key !== undefined) {
      counts.events++;
      agg(key).events++;
      const write = index.echoOf(r);
      const reader = r.stage === 'endpoint' ? String(r.client) : undefined;
      const kind: MarkKind = !write ? 'event-upstream' : reader === undefined || writerOf(write) === reader ? 'event-own' : 'event-other';
      laneOf(keyLanes, key, 'key').marks.push({ id: r.id, t: r.time, kind, label: `${eventType(r)}@${String(r.rv ?? '')}`, client: reader, stage: r.stage, detail: write ? `echo of write #${write.id} by ${writerOf(write)}` : 'a change from outside' });
      if (write) arrows.push({ from: write.id, to: r.id, kind: 'echo' });
    } else if (isWrite(r) && key !== undefined) {
      counts.writes++;
      const a = agg(key);
      a.writes++;
      if (!a.writers.includes(writerOf(r))) a.writers.push(writerOf(r));
      const code = writeCode(r);
      if (code === 409) {
        counts.conflicts++;
        a.conflicts++;
      }
      const fields = writeFields(r);
      laneOf(keyLanes, key, 'key').marks.push({ id: r.id, t: r.time, kind: code === 409 ? 'conflict' : writeOk(r) ? 'write' : 'write-failed', label: `${String(r.verb ?? 'write')}${code !== undefined ? ` ${code}` : ''}`, client, stage: r.stage, detail: `${writerOf(r)} ${String(r.mode ?? '')}${fields.length ? `: ${fields.join(', ')}` : ''}${r.error ? ` — ${String(r.error)}` : ''}` });
      // The echo this write reacted to → this write.
      const prev = previousStep(index, r);
      const echo = prev && prev.stage === 'reconcile' ? previousStep(index, prev) : prev;
      if (echo && isChangeEvent(echo)) arrows.push({ from: echo.id, to: r.id, kind: 'trigger' });
      else if (echo && isWrite(echo)) arrows.push({ from: echo.id, to: r.id, kind: 'trigger' });
    } else if (r.stage === 'fifo' && r.op === 'Deleted' && r.tombstone === true && lastRelist !== undefined) {
      // A relist's Replace queues a tombstone for every cached object the new list lacks (a delete the watch never
      // delivered): drawn in the lane of the watch that relisted, and counted on its relist mark.
      const relist = lastRelist;
      relist.tombstones++;
      relist.mark.detail = `${relist.reason ?? ''}${relist.reason ? '; ' : ''}delivered ${relist.tombstones} tombstone${relist.tombstones === 1 ? '' : 's'}`;
      laneOf(watchLanes, relist.lane, 'watch').marks.push({ id: r.id, t: r.time, kind: 'tombstone', label: `tombstone ${key ?? ''}`, stage: r.stage, detail: [r.tombstoneType, r.tombstoneExplanation].filter((x) => typeof x === 'string').join(': ') || undefined });
    } else if (r.stage === 'reconcile' && r.op === 'start' && key !== undefined) {
      counts.reconciles++;
      agg(key).reconciles++;
      laneOf(keyLanes, key, 'key').marks.push({ id: r.id, t: r.time, kind: 'reconcile', label: 'reconcile', stage: r.stage, client: String(r.controller ?? '') });
    } else if (r.stage === 'reflector' || (r.stage === 'endpoint' && (r.op === 'watch' || r.op === 'relist' || r.op === 'list'))) {
      const who = r.stage === 'endpoint' ? `${String(r.client)} · ${String(r.resource)}` : `watch ${String(r.name ?? r.resource ?? '')}`;
      const lane = () => laneOf(watchLanes, who, 'watch');
      const stage = r.stage;
      if ((r.stage === 'reflector' && r.op === 'watch-start') || (r.op === 'watch' && r.event === 'start')) {
        const down = lastDown.get(who);
        lane().marks.push({ id: r.id, t: r.time, kind: 'watch-start', label: `watch from ${String(r.rv ?? '')}`, client, stage, detail: down !== undefined ? `down for ${((r.time - down) / 1000).toFixed(1)}s` : undefined });
      } else if ((r.stage === 'reflector' && (r.op === 'watch-close' || r.op === 'watch-error')) || (r.op === 'watch' && r.event === 'close')) {
        lastDown.set(who, r.time);
        lane().marks.push({ id: r.id, t: r.time, kind: 'watch-close', label: r.op === 'watch-error' ? 'watch error' : 'watch closed', client, stage, detail: String(r.reason ?? r.error ?? '') });
      } else if (r.op === 'relist') {
        counts.relists++;
        const mark: Mark = { id: r.id, t: r.time, kind: 'relist', label: 'relist', client, stage, detail: String(r.reason ?? '') };
        lane().marks.push(mark);
        if (r.stage === 'reflector') lastRelist = { lane: who, mark, tombstones: 0, reason: mark.detail };
      } else if (r.op === 'expired' || (r.op === 'watch' && r.event === 'ERROR' && r.code === 410)) {
        counts.gones++;
        lane().marks.push({ id: r.id, t: r.time, kind: 'gone', label: '410 Gone', client, stage, detail: String(r.error ?? r.reason ?? `resourceVersion ${String(r.rv ?? '')} expired`) });
      } else if (r.op === 'list-page' || r.op === 'list') {
        lane().marks.push({ id: r.id, t: r.time, kind: 'list', label: 'list', client, stage, detail: `${String(r.items ?? '?')} items${typeof r.bytes === 'number' ? `, ${r.bytes} bytes` : ''}` });
      } else if (r.op === 'initial-events-end') {
        // The end of a watch-list's initial events: the sync a LIST used to be.
        lane().marks.push({ id: r.id, t: r.time, kind: 'list', label: 'watch-list', client, stage, detail: `${String(r.events ?? '?')} initial events` });
      }
    }
  }
  const start = rows[0]?.time ?? 0;
  const end = rows[rows.length - 1]?.time ?? start;
  let lanes = [...watchLanes.values(), ...[...keyLanes.values()].sort((a, b) => a.id.localeCompare(b.id))];
  let total = lanes.reduce((n, l) => n + l.marks.length, 0);
  let truncated: string | undefined;
  if (total > MAX_MARKS) {
    // Keys with findings first, then the busiest, until the budget is spent; the rest are in the aggregates table.
    const flagged = new Set(findings.map((f) => f.key).filter(Boolean));
    const ranked = [...lanes].sort((a, b) => Number(flagged.has(b.id)) - Number(flagged.has(a.id)) || b.marks.length - a.marks.length);
    const kept: Lane[] = [];
    let budget = MAX_MARKS;
    for (const l of ranked) {
      if (l.marks.length > budget) {
        if (budget > 100) kept.push({ ...l, marks: l.marks.slice(-budget), label: `${l.label} (last ${budget} of ${l.marks.length})` });
        break;
      }
      kept.push(l);
      budget -= l.marks.length;
    }
    truncated = `${total} marks: the lanes show ${kept.length} of ${lanes.length} (keys with findings first, then the busiest); every key is in the table below`;
    lanes = kept;
    total = MAX_MARKS;
  }
  const shown = new Set(lanes.flatMap((l) => l.marks.map((m) => m.id)));
  const verdict = verdictOf(findings);
  return {
    title,
    verdict,
    summary: [
      ['records', rows.length],
      ...(dropped > 0 ? [['dropped past the limit', dropped] as [string, number]] : []),
      ['keys', keyLanes.size],
      ['watch events', counts.events],
      ['reconciles', counts.reconciles],
      ['writes', counts.writes],
      ['409 Conflict', counts.conflicts],
      ['410 Gone', counts.gones],
      ['relists', counts.relists],
      ['findings', findings.length],
      ['span', `${((end - start) / 1000).toFixed(1)}s from ${new Date(start).toISOString()}`],
    ],
    start,
    end,
    lanes,
    arrows: arrows.filter((a) => shown.has(a.from) && shown.has(a.to)),
    findings,
    aggregates: [...aggregates.values()].sort((a, b) => b.writes - a.writes || b.events - a.events),
    truncated,
  };
}

function verdictOf(findings: Finding[]): string {
  if (findings.length === 0) return 'no loop, fight or stall found';
  const by = new Map<string, number>();
  for (const f of findings) by.set(f.kind, (by.get(f.kind) ?? 0) + 1);
  return [...by].map(([k, n]) => `${n} ${k}${n > 1 ? 's' : ''}`).join(', ');
}
