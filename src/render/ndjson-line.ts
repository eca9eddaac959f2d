// One trace record as its `-o ndjson` line, written straight into a string: the same bytes as
// JSON.stringify(traceRecordToJSON(record)) (see the contract in trace-printer.ts), without building that
// intermediate object for every record of every event.
import type { TraceRecord } from '../informer/trace.js';
import { OBJECT_FIELDS } from './trace-detail.js';

/** The contract's leading fields, written first and never again among the details. */
export const LEADING_FIELDS: ReadonlySet<string> = new Set(['time', 'stage', 'op', 'key', 'rv', 'type']);

/**
 * What a detail key writes before its value (`,"depth":`); SKIP for the leading fields and whole objects,
 * INDEX_LIKE for keys JSON.stringify would move ahead of the leading ones (an array index such as "0").
 * Records use a few dozen keys; the cache stops growing at CACHE_MAX all the same.
 */
const SKIP = '';
const INDEX_LIKE = '0';
const CACHE_MAX = 4096;
const keyPrefixes = new Map<string, string>();
/** JSON of the short strings records repeat (listener and queue names, "real"…). */
const strings = new Map<string, string>();
/** `","stage":"watch","op":"MODIFIED","key":` by stage, then op: a closed vocabulary. */
const stageOps = new Map<string, Map<string, string>>();
/**
 * Consecutive records often share key and rv (one stage's records of one event): their JSON is kept from one record
 * to the next. Records of a chunk's events interleave by stage, so this saves less than it did per event; a map of
 * recent keys measured no better.
 */
let lastKey: unknown;
let lastKeyJSON = 'null';
let lastRv: unknown;
let lastRvJSON = 'null';

/**
 * The ndjson line of `record` (no newline) with `time` already formatted; undefined when the record has a
 * detail key that JSON.stringify would move ahead of the fixed fields, or no string stage/op, so that the
 * caller takes the general path. Whole objects are left out, as the contract says by default.
 */
export function ndjsonLine(record: TraceRecord, time: string): string | undefined {
  const { stage, op, key, rv } = record;
  if (typeof stage !== 'string' || typeof op !== 'string') return undefined;
  if (key !== lastKey) {
    lastKey = key;
    lastKeyJSON = key == null ? 'null' : JSON.stringify(key);
  }
  if (rv !== lastRv) {
    lastRv = rv;
    lastRvJSON = rv == null ? 'null' : JSON.stringify(rv);
  }
  let line = '{"time":"' + time + stageOpJSON(stage, op) + lastKeyJSON + ',"rv":' + lastRvJSON;
  if (record.type !== undefined) line += ',"type":' + JSON.stringify(record.type);
  for (const k in record) {
    let prefix = keyPrefixes.get(k);
    if (prefix === undefined) prefix = learnKey(k);
    if (prefix === SKIP) continue;
    if (prefix === INDEX_LIKE) return undefined;
    const json = valueJSON(record[k]);
    if (json !== undefined) line += prefix + json;
  }
  return line + '}';
}

function learnKey(k: string): string {
  const c = k.charCodeAt(0);
  const prefix = LEADING_FIELDS.has(k) || OBJECT_FIELDS.has(k) ? SKIP : c >= 0x30 && c <= 0x39 ? INDEX_LIKE : ',' + JSON.stringify(k) + ':';
  if (keyPrefixes.size < CACHE_MAX) keyPrefixes.set(k, prefix);
  return prefix;
}

function stageOpJSON(stage: string, op: string): string {
  let ops = stageOps.get(stage);
  if (ops === undefined) stageOps.set(stage, (ops = new Map()));
  let json = ops.get(op);
  if (json === undefined) {
    json = '","stage":' + JSON.stringify(stage) + ',"op":' + JSON.stringify(op) + ',"key":';
    if (ops.size < CACHE_MAX) ops.set(op, json);
  }
  return json;
}

function shortString(s: string): string {
  let json = strings.get(s);
  if (json === undefined) {
    json = JSON.stringify(s);
    if (s.length <= 32 && strings.size < CACHE_MAX) strings.set(s, json);
  }
  return json;
}

/** A detail value in the JSON form: an Error as its message, a bigint as its digits (JSON has neither). */
export function detailValue(v: unknown): unknown {
  return v instanceof Error ? v.message : typeof v === 'bigint' ? String(v) : v;
}

/** A detail value as JSON.stringify writes it inside an object; undefined when the key is left out. */
function valueJSON(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v.length <= 32 ? shortString(v) : JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(detailValue(v));
    case 'object':
      if (v === null) return 'null';
      return JSON.stringify(detailValue(v));
    default:
      return undefined; // undefined, functions and symbols: JSON.stringify leaves the key out
  }
}
