// One trace record as its `-o ndjson` line, written straight into a string: the same bytes as
// JSON.stringify(traceRecordToJSON(record)) (see the contract in trace-printer.ts), without building that
// intermediate object for every record of every event.
import type { TraceRecord } from '../informer/trace.js';
import { OBJECT_FIELDS } from './trace-detail.js';

/** The contract's leading fields, written first and never again among the details. */
export const LEADING_FIELDS: ReadonlySet<string> = new Set(['time', 'stage', 'op', 'key', 'rv', 'type']);

/**
 * How a detail key is written: its prefix (`,"depth":`), and the whole `prefix + value` of the values records repeat
 * (short strings, booleans, small counts, one-string arrays such as `types: ["Updated"]`), kept so that a line is
 * built from few pieces (each concatenation is an allocation, and writing a line flattens them all again).
 * SKIP for the leading fields and whole objects; INDEX_LIKE for keys JSON.stringify would move ahead of the leading
 * ones (an array index such as "0"). Records use a few dozen keys; the caches stop growing at their bounds.
 */
interface KeyWriter {
  prefix: string;
  strings: Map<string, string>;
  /** `prefix + ["s"]` by s. */
  arrays: Map<string, string>;
  /** `prefix + n` for integers 0 ≤ n < SMALL_INTS, filled as they come. */
  ints: string[];
  yes: string;
  no: string;
}
const SKIP = newKeyWriter('');
const INDEX_LIKE = newKeyWriter('');
const CACHE_MAX = 4096;
/** Values of one key kept whole: the names and vocabularies records repeat, not every key or resourceVersion. */
const STRINGS_PER_KEY = 64;
const SMALL_INTS = 256;
const keyWriters = new Map<string, KeyWriter>();
/** `","stage":"watch","op":"MODIFIED","key":` by stage, then op: a closed vocabulary. */
const stageOps = new Map<string, Map<string, string>>();
/**
 * Consecutive records often share time, key and rv (one stage's records of one event): their JSON is kept from one
 * record to the next. Records of a chunk's events interleave by stage, so this saves less than it did per event; a
 * map of recent keys measured no better.
 */
let lastTime = '';
let timeHead = '{"time":"';
let lastKey: unknown;
let lastKeyJSON = 'null';
let lastRv: unknown;
let keyRvJSON = 'null,"rv":null';

/**
 * The ndjson line of `record` (no newline) with `time` already formatted; undefined when the record has a
 * detail key that JSON.stringify would move ahead of the fixed fields, or no string stage/op, so that the
 * caller takes the general path. Whole objects are left out, as the contract says by default.
 */
export function ndjsonLine(record: TraceRecord, time: string): string | undefined {
  const { stage, op, key, rv } = record;
  if (typeof stage !== 'string' || typeof op !== 'string') return undefined;
  if (time !== lastTime) {
    lastTime = time;
    timeHead = '{"time":"' + time;
  }
  if (key !== lastKey || rv !== lastRv) {
    if (key !== lastKey) lastKeyJSON = key == null ? 'null' : JSON.stringify(key);
    lastKey = key;
    lastRv = rv;
    keyRvJSON = lastKeyJSON + ',"rv":' + (rv == null ? 'null' : JSON.stringify(rv));
  }
  let line = timeHead + stageOpJSON(stage, op) + keyRvJSON;
  if (record.type !== undefined) line += ',"type":' + JSON.stringify(record.type);
  for (const k in record) {
    let w = keyWriters.get(k);
    if (w === undefined) w = learnKey(k);
    if (w === SKIP) continue;
    if (w === INDEX_LIKE) return undefined;
    const v = record[k];
    switch (typeof v) {
      case 'string':
        line += v.length <= 32 ? keyedString(w, v) : w.prefix + JSON.stringify(v);
        break;
      case 'number':
        line += (v >>> 0) === v && v < SMALL_INTS ? (w.ints[v] ??= w.prefix + v) : w.prefix + (Number.isFinite(v) ? String(v) : 'null');
        break;
      case 'boolean':
        line += v ? w.yes : w.no;
        break;
      case 'object':
      case 'bigint':
        if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' && v[0].length <= 32) line += keyedString(w, v[0], true);
        else line += w.prefix + JSON.stringify(detailValue(v)); // null included: JSON.stringify(null) is "null"
        break;
      default:
        break; // undefined, functions and symbols: JSON.stringify leaves the key out
    }
  }
  return line + '}';
}

function newKeyWriter(prefix: string): KeyWriter {
  return { prefix, strings: new Map(), arrays: new Map(), ints: [], yes: prefix + 'true', no: prefix + 'false' };
}

function learnKey(k: string): KeyWriter {
  const c = k.charCodeAt(0);
  const w = LEADING_FIELDS.has(k) || OBJECT_FIELDS.has(k) ? SKIP : c >= 0x30 && c <= 0x39 ? INDEX_LIKE : newKeyWriter(',' + JSON.stringify(k) + ':');
  if (keyWriters.size < CACHE_MAX) keyWriters.set(k, w);
  return w;
}

/** `prefix + JSON of s` (or of `[s]`), kept for the first STRINGS_PER_KEY values of the key. */
function keyedString(w: KeyWriter, s: string, inArray = false): string {
  const kept = inArray ? w.arrays : w.strings;
  let out = kept.get(s);
  if (out === undefined) {
    out = w.prefix + (inArray ? '[' + JSON.stringify(s) + ']' : JSON.stringify(s));
    if (kept.size < STRINGS_PER_KEY) kept.set(s, out);
  }
  return out;
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

/** A detail value in the JSON form: an Error as its message, a bigint as its digits (JSON has neither). */
export function detailValue(v: unknown): unknown {
  return v instanceof Error ? v.message : typeof v === 'bigint' ? String(v) : v;
}
