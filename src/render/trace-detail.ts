// The DETAIL cell of a trace line: a record's remaining fields as a compact `k=v` summary.
import { stringifyBounded } from '../informer/nesting.js';
import type { TraceRecord } from '../informer/trace.js';
import { formatBytes } from './format-units.js';

/** Fields every printer shows in their own column (or as the record's identity), never in DETAIL. */
export const CORE_FIELDS: ReadonlySet<string> = new Set(['time', 'stage', 'op', 'key', 'rv', 'type']);

/** Fields holding whole Kubernetes objects: too big for a line; kept in ndjson only on request. */
export const OBJECT_FIELDS: ReadonlySet<string> = new Set(['old', 'new', 'object', 'obj', 'oldObject', 'newObject']);

/**
 * `pages=3 items=1200 bytes=7.1MB ms=180`, `deltas=Updated,Updated`, `conn=2 timeout=412s`.
 * Sizes (`bytes`, `*Bytes`) print in units, `*Seconds` fields drop the suffix and gain `s`, arrays
 * join with commas, strings with spaces are quoted. `skip` names further fields to leave out.
 */
export function formatDetail(record: TraceRecord, skip?: ReadonlySet<string>): string {
  const parts: string[] = [];
  for (const k in record) {
    if (CORE_FIELDS.has(k) || OBJECT_FIELDS.has(k) || skip?.has(k)) continue;
    const v = record[k];
    if (v === undefined || v === null) continue;
    // A tombstone says what it is: `tombstone=DeletedFinalStateUnknown (deleted while the watch was down; …)`.
    if (k === 'tombstoneType' || k === 'tombstoneExplanation') continue;
    if (k === 'tombstone' && v === true && typeof record.tombstoneType === 'string') {
      parts.push(`tombstone=${record.tombstoneType}${typeof record.tombstoneExplanation === 'string' ? ` (${record.tombstoneExplanation})` : ''}`);
      continue;
    }
    if (k.endsWith('Seconds') && typeof v === 'number') {
      parts.push(`${k.slice(0, -'Seconds'.length)}=${v}s`);
    } else if ((k === 'reason' || k === 'reasons') && isQueueReasonLike(v)) {
      parts.push(`${k}=${formatReasons(v)}`);
    } else if ((k === 'bytes' || k.endsWith('Bytes')) && typeof v === 'number') {
      parts.push(`${k}=${formatBytes(v)}`);
    } else {
      parts.push(`${k}=${formatValue(v)}`);
    }
  }
  return parts.join(' ');
}

/** One detail value: scalars bare (quoted when they hold spaces), arrays comma-joined, objects as JSON. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return v === '' || /[\s"]/.test(v) ? JSON.stringify(v) : v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 10) / 10);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Error) return JSON.stringify(v.message);
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object' || x === null) ? v.map((x) => formatValue(x)).join(',') : stringifyBounded(v);
  return stringifyBounded(v) ?? String(v);
}

interface ReasonLike {
  op: string;
  rv?: string;
  /** kwatch reconcile's trigger text (kube-rs's ReconcileReason), with what caused it. */
  reason?: string;
  resource?: string;
  key?: string;
  own?: boolean;
  local?: boolean;
  afterMs?: number;
}

function isReason(v: unknown): v is ReasonLike {
  return typeof v === 'object' && v !== null && typeof (v as ReasonLike).op === 'string';
}

function isQueueReasonLike(v: unknown): v is ReasonLike | ReasonLike[] {
  return isReason(v) || (Array.isArray(v) && v.length > 0 && v.every(isReason));
}

/** Workqueue reasons as `OnUpdate@1234,OnDelete@1240`: why a key is queued, without the bookkeeping fields. */
function formatReasons(v: ReasonLike | ReasonLike[]): string {
  return (Array.isArray(v) ? v : [v]).map((r) => (typeof r.reason === 'string' ? JSON.stringify(describeReason(r)) : r.rv ? `${r.op}@${r.rv}` : r.op)).join(',');
}

/**
 * A reconcile trigger as a sentence: `object updated (OnUpdate@4121)`, `related object updated
 * (replicasets.apps default/web-7d9f@4121, own write)`, `reconciler requested retry (after 30s)`.
 */
export function describeReason(r: ReasonLike): string {
  const text = r.reason ?? r.op;
  const notes: string[] = [];
  if (text.startsWith('related object')) notes.push(`${r.resource ?? ''} ${r.key ?? ''}${r.rv ? `@${r.rv}` : ''}`.trim());
  else if (r.resource !== undefined) notes.push(r.rv ? `${r.op}@${r.rv}` : r.op);
  if (typeof r.afterMs === 'number') notes.push(`after ${formatMs(r.afterMs)}`);
  if (r.local) notes.push('local');
  if (r.own) notes.push('own write');
  return notes.length > 0 ? `${text} (${notes.join(', ')})` : text;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10}s` : `${Math.round(ms)}ms`;
}
