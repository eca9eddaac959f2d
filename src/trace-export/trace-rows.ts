// The records a picture is drawn from: trace records with their id, time in epoch ms, and without the whole objects
// (a write keeps the paths it changed, not the object: the file stays small and never holds Secret data).
import { CauseLinker } from '../informer/trace-causes.js';
import type { Stage, TraceRecord, Tracer } from '../informer/trace.js';
import { diffObjects } from '../informer/object-diff.js';
import { OBJECT_FIELDS } from '../render/trace-detail.js';

export interface TraceRow extends TraceRecord {
  id: number;
  cause?: number[];
  echoOf?: number;
}

/** Fields that may carry a request or response body: left out like the objects. */
const BODY_FIELDS = new Set(['request', 'body', 'answer']);
/**
 * The most records one run keeps for its picture; past it the newest are dropped (`TraceCollector.dropped`), and the
 * file says how many (write-trace-file.ts) as stderr does.
 */
export const MAX_ROWS = 2_000_000;

/** A record as the picture keeps it: no objects, the fields a write changed, Errors as messages. */
export function slimRow(r: TraceRecord): TraceRow {
  const out: Record<string, unknown> = {};
  for (const k in r) {
    if (OBJECT_FIELDS.has(k) || BODY_FIELDS.has(k)) continue;
    const v = r[k];
    if (v === undefined) continue;
    out[k] = v instanceof Error ? v.message : typeof v === 'bigint' ? String(v) : v;
  }
  if ((r.op === 'write') && out.changed === undefined && isObject(r.old) && isObject(r.new)) {
    out.changed = diffObjects(r.old, r.new).map((d) => d.path);
  }
  return out as TraceRow;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Keeps every record a tracer emits, slimmed, until stopped. */
export class TraceCollector {
  readonly rows: TraceRow[] = [];
  dropped = 0;
  private readonly unsubscribe: () => void;

  constructor(tracer: Tracer) {
    this.unsubscribe = tracer.subscribe((r) => {
      if (this.rows.length >= MAX_ROWS) this.dropped++;
      else this.rows.push(slimRow(r));
    });
  }

  stop(): TraceRow[] {
    this.unsubscribe();
    return this.rows;
  }
}

const STAGE_NAMES = new Set<string>(['http', 'reflector', 'watch', 'fifo', 'indexer', 'handler', 'workqueue', 'reconcile', 'endpoint']);

/**
 * The rows of an `-o ndjson` trace, linked here by the rules the tracer follows. A trace written before records had
 * ids gets its ids and causes so; in a trace with ids every record keeps its own (`trace why` names the ids the file
 * has), a line without one (the verdict rows `--once` prints after the run) gets the next free id.
 */
export function rowsFromNdjson(text: string, source: string): TraceRow[] {
  const rows: TraceRow[] = [];
  const linker = new CauseLinker();
  let lineNo = 0;
  let withIds = 0;
  let maxId = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (line.trim() === '') continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new TraceFileError(`${source}:${lineNo}: not a JSON line: an -o ndjson trace has one JSON object per line`);
    }
    if (typeof o !== 'object' || o === null || typeof o.stage !== 'string' || typeof o.op !== 'string' || !STAGE_NAMES.has(o.stage)) {
      throw new TraceFileError(`${source}:${lineNo}: not a kwatch trace record (no known "stage" and "op")`);
    }
    const time = typeof o.time === 'number' ? o.time : Date.parse(String(o.time));
    const r: Record<string, unknown> = { ...o, time: Number.isFinite(time) ? time : 0, stage: o.stage as Stage };
    if (r.key === null) delete r.key;
    if (r.rv === null) delete r.rv;
    if (typeof r.id === 'number') {
      withIds++;
      maxId = Math.max(maxId, r.id);
    }
    rows.push(r as TraceRow);
  }
  // Causes by the tracer's rules over the records the file has: an old trace has none, and one with hidden stages
  // (kwatch reconcile's default --stages) names causes it does not hold (a queue add's handler call), where the
  // rules find the write an overlay echo came back from.
  const own = rows.map((r) => ({ id: r.id as unknown, cause: r.cause, echoOf: r.echoOf }));
  for (const r of rows) {
    delete (r as Record<string, unknown>).id;
    delete r.cause;
    delete r.echoOf;
    linker.link(r);
  }
  if (withIds === 0) return rows;
  // The file's own ids stay (trace why names what the file has); a line without one (--once's verdict rows) gets the
  // next free id. Its causes are kept, and the rules' added.
  const fileId = new Map<number, number>();
  rows.forEach((r, i) => fileId.set(r.id, typeof own[i].id === 'number' ? (own[i].id as number) : ++maxId));
  rows.forEach((r, i) => {
    const linked = r.cause;
    const linkedEcho = r.echoOf;
    r.id = fileId.get(r.id)!;
    const cause = [...new Set([...(own[i].cause ?? []), ...(linked ?? []).map((id) => fileId.get(id)!)])];
    if (cause.length > 0) r.cause = cause;
    else delete r.cause;
    const echoOf = own[i].echoOf ?? (linkedEcho !== undefined ? fileId.get(linkedEcho) : undefined);
    if (echoOf !== undefined) r.echoOf = echoOf;
    else delete r.echoOf;
  });
  return rows;
}

/** A trace file kwatch cannot read: one line for the user. */
export class TraceFileError extends Error {}

/** Where a record belongs in a per-key picture: the object it is about (a write's target, not its reconcile's key). */
export function objectKeyOf(r: TraceRow): string | undefined {
  if (r.stage === 'reconcile' && r.op === 'write' && typeof r.target === 'string') return r.target;
  return r.key;
}

/** Who wrote: the controller (kwatch reconcile) or the client process (--exec, proxy). */
export function writerOf(r: TraceRow): string {
  return String(r.client ?? r.controller ?? 'controller');
}

export function isWrite(r: TraceRow): boolean {
  return r.op === 'write' && (r.stage === 'reconcile' || r.stage === 'endpoint');
}

/** A watch event that changes an object, as the informer or a client on the endpoint received it. */
export function isChangeEvent(r: TraceRow): boolean {
  if (r.stage === 'watch') return r.op === 'ADDED' || r.op === 'MODIFIED' || r.op === 'DELETED';
  return r.stage === 'endpoint' && r.op === 'watch' && (r.event === 'ADDED' || r.event === 'MODIFIED' || r.event === 'DELETED');
}

export function eventType(r: TraceRow): string {
  return String(r.stage === 'endpoint' ? r.event : r.op);
}

/** The fields a write changed, as a short list. */
export function writeFields(r: TraceRow): string[] {
  if (Array.isArray(r.changed)) return (r.changed as unknown[]).map(String);
  // An -o ndjson write carries its diff ([{path, old, new}]) instead of the objects.
  if (Array.isArray(r.diff)) return (r.diff as { path?: unknown }[]).map((d) => String(d.path ?? '')).filter(Boolean);
  return [];
}

/**
 * The HTTP status a write got: an endpoint write's `code`; a reconcile write's `status`, the server's Status
 * (`{ code, reason, message }`, set when it failed; reconcile/writes.ts), or a plain number.
 */
export function writeCode(r: TraceRow): number | undefined {
  if (typeof r.code === 'number') return r.code;
  const status = r.status as unknown;
  if (typeof status === 'number') return status;
  const code = typeof status === 'object' && status !== null ? (status as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}

export function writeOk(r: TraceRow): boolean {
  const code = writeCode(r);
  return r.error === undefined && (code === undefined || (code >= 200 && code < 300));
}
