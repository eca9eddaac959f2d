// `-o ndjson` lines written straight into bytes: the same bytes as JSON.stringify(traceRecordToJSON(record)) (see
// the contract in trace-printer.ts), without the intermediate object, without a string per piece, and without
// the join that flattened those pieces again. Measured on the whole pipeline (30k watch events, network-free,
// interleaved runs), that was 4% of an event's time with tracing on.
import type { TraceRecord } from '../informer/trace.js';
import { FifoDeltaRecord, FifoPopRecord, HandlerCallRecord, QueueOpRecord, WatchEventRecord } from '../informer/trace-records.js';
import type { PendingText } from './line-batcher.js';
import { OBJECT_FIELDS } from './trace-detail.js';

/** The contract's leading fields, written first and never again among the details. */
export const LEADING_FIELDS: ReadonlySet<string> = new Set(['time', 'stage', 'op', 'key', 'rv', 'type']);

/** A detail value in the JSON form: an Error as its message, a bigint as its digits (JSON has neither). */
export function detailValue(v: unknown): unknown {
  return v instanceof Error ? v.message : typeof v === 'bigint' ? String(v) : v;
}

/**
 * How a detail key is written: `,"depth":`, and the whole `,"fifo":"real"` of the short string values a key
 * repeats (vocabularies, names), kept for the first STRINGS_PER_KEY of them. SKIP for the leading fields and whole
 * objects; INDEX_LIKE for keys JSON.stringify would move ahead of the leading ones (an array index such as "0").
 */
interface KeyWriter {
  prefix: Uint8Array;
  yes: Uint8Array;
  no: Uint8Array;
  strings: Map<string, Uint8Array>;
  /** `prefix + ["s"]` by s. */
  arrays: Map<string, Uint8Array>;
  /** The last value written through `strings` and its piece: a key's records mostly repeat one value (fifo "real"). */
  lastString: string | undefined;
  lastStringPiece: Uint8Array | undefined;
  lastArray: string | undefined;
  lastArrayPiece: Uint8Array | undefined;
}
const SKIP = keyWriter('');
const INDEX_LIKE = keyWriter('');
const CACHE_MAX = 4096;
const STRINGS_PER_KEY = 64;
const SHORT = 32;

/**
 * What is known of one stage and op: `","stage":…,"op":…,"key":`, and the detail keys of its last record in their
 * order with their writers. A producer emits the same shape every time, so each key is found by comparing it with
 * the one in its place last time (the same interned string) rather than by a lookup.
 */
interface OpShape {
  head: Uint8Array;
  /** False for a stage or op that is not printable ASCII: such records take the general path. */
  ascii: boolean;
  keys: string[];
  writers: KeyWriter[];
}
const MAX_SHAPE_KEYS = 32;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** The writer's own pieces, as bytes: copying bytes costs a fraction of reading a string's characters. */
const RV = ascii(',"rv":');
const TYPE = ascii(',"type":');
const NULL = ascii('null');
const TRUE = ascii('true');
const FALSE = ascii('false');
const END = ascii('}\n');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const INITIAL_BYTES = 64 * 1024;
/** Year 10000: toISOString writes a six-digit year with a sign from there on. */
const MAX_FOUR_DIGIT_YEAR_MS = 253402300800000;
/** Pieces up to this many bytes are copied by a loop, longer ones by Uint8Array#set (measured: the cheaper each side). */
const COPY_BY_LOOP = 16;
/** A buffer grown past this (by one huge line) is given back once it is emptied. */
const KEEP_BYTES = 1024 * 1024;

/**
 * Pending ndjson text as bytes. `record` appends a record's line; `push` appends text made elsewhere (the general
 * path's lines); `take` hands everything over as one string and empties the buffer. Lines stay in the order they came.
 */
export class NdjsonBuffer implements PendingText {
  private buf = Buffer.allocUnsafe(INITIAL_BYTES);
  private pos = 0;
  /** False once a byte ≥ 0x80 was written: take() then decodes UTF-8 rather than copying bytes. */
  private ascii = true;
  private readonly keyWriters = new Map<string, KeyWriter>();
  private readonly shapes = new Map<string, Map<string, OpShape>>();
  /** The epoch ms whose `{"time":"…` is timeHead, and its second: within one, only the milliseconds change. */
  private lastMs = NaN;
  private lastSecond = NaN;
  private timeHead = ascii('{"time":"');
  /**
   * Where the bytes of the last `"key","rv":"rv"` pair sit in buf (-1: nowhere). An event's records come in runs
   * of one key and version (watch event and delta, then pop, handler call and queue add): the next record of the
   * run copies those bytes rather than reading the strings' characters again.
   */
  private keyRvAt = -1;
  private keyRvEnd = 0;
  private keyRvKey: string | null | undefined = undefined;
  private keyRvRv: string | null | undefined = undefined;
  /** The writers of the fixed-shape records' detail keys. */
  private readonly fixed = {
    name: this.writerOf('name'),
    bytes: this.writerOf('bytes'),
    conn: this.writerOf('conn'),
    id: this.writerOf('id'),
    echoOf: this.writerOf('echoOf'),
    cause: this.writerOf('cause'),
    depth: this.writerOf('depth'),
    fifo: this.writerOf('fifo'),
    deltas: this.writerOf('deltas'),
    types: this.writerOf('types'),
    isInInitialList: this.writerOf('isInInitialList'),
    batch: this.writerOf('batch'),
    listener: this.writerOf('listener'),
    controller: this.writerOf('controller'),
    oldRv: this.writerOf('oldRv'),
    sync: this.writerOf('sync'),
    error: this.writerOf('error'),
    queue: this.writerOf('queue'),
    reason: this.writerOf('reason'),
    processing: this.writerOf('processing'),
    reasons: this.writerOf('reasons'),
  };

  get size(): number {
    return this.pos;
  }

  push(text: string): void {
    this.ensure(text.length * 3);
    const start = this.pos;
    this.pos += this.buf.write(text, start, 'utf8');
    if (this.ascii && !isAscii(this.buf, start, this.pos)) this.ascii = false;
  }

  take(): string {
    const text = this.buf.toString(this.ascii ? 'latin1' : 'utf8', 0, this.pos);
    this.pos = 0;
    this.keyRvAt = -1;
    this.ascii = true;
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafe(INITIAL_BYTES);
    return text;
  }

  /**
   * Appends the line of `record` (with its newline) with `time` already formatted; false, having written nothing,
   * when the record has a detail key that JSON.stringify would move ahead of the fixed fields or no string stage
   * or op: the caller then takes the general path. Whole objects are left out, as the contract says by default.
   */
  record(record: TraceRecord): boolean {
    const { stage, op, key, rv, type } = record;
    if (typeof stage !== 'string' || typeof op !== 'string') return false;
    // Leading fields of another type (from an odd producer) are left to the general path, which defines their bytes.
    if (!stringOrAbsent(key) || !stringOrAbsent(rv) || !stringOrAbsent(type)) return false;
    if (record.time !== this.lastMs && !this.setTime(record.time)) return false;
    const start = this.pos;
    const shape = this.shape(stage, op);
    if (!shape.ascii) return false;
    this.bytes(this.timeHead);
    this.bytes(shape.head);
    this.keyAndRv(key, rv);
    if (type !== undefined) {
      this.bytes(TYPE);
      this.json(type);
    }
    if (this.fixedDetails(record)) {
      this.bytes(END);
      return true;
    }
    let i = 0;
    for (const k in record) {
      let w: KeyWriter | undefined;
      if (shape.keys[i] === k) w = shape.writers[i];
      else {
        w = this.keyWriters.get(k) ?? this.learnKey(k);
        if (i < MAX_SHAPE_KEYS) {
          shape.keys[i] = k;
          shape.writers[i] = w;
        }
      }
      i++;
      if (w === SKIP) continue;
      if (w === INDEX_LIKE) {
        this.rollBack(start);
        return false;
      }
      this.field(w, record[k]);
    }
    this.bytes(END);
    return true;
  }

  /** `"key","rv":"rv"` (null for either when absent), copied from the last record's when both are the same. */
  private keyAndRv(key: string | null | undefined, rv: string | null | undefined): void {
    const at = this.keyRvAt;
    if (at >= 0 && key === this.keyRvKey && rv === this.keyRvRv) {
      const n = this.keyRvEnd - at;
      if (this.pos + n > this.buf.length) this.ensure(n);
      const b = this.buf;
      const p = this.pos;
      // Within one buffer: a loop, as for short pieces (copyWithin's call into the runtime costs about as much).
      for (let i = 0; i < n; i++) b[p + i] = b[at + i];
      this.pos = p + n;
      return;
    }
    const start = this.pos;
    this.json(key);
    this.bytes(RV);
    this.json(rv);
    this.keyRvAt = start;
    this.keyRvEnd = this.pos;
    this.keyRvKey = key;
    this.keyRvRv = rv;
  }

  /** Drops what was written from `to` on (a record left to the general path), and the pair kept there. */
  private rollBack(to: number): void {
    this.pos = to;
    if (this.keyRvEnd > to) this.keyRvAt = -1;
  }

  /**
   * The details of a fixed-shape record (informer/trace-records.ts), read by name in the order the class declares
   * them: the same bytes as the walk over its fields in record(), which a record of one class always has in that
   * order, without the walk (each key compared, each value read by a key only known at run time).
   */
  private fixedDetails(r: TraceRecord): boolean {
    const f = this.fixed;
    if (r instanceof FifoPopRecord) {
      this.field(f.deltas, r.deltas);
      this.field(f.types, r.types);
      this.field(f.isInInitialList, r.isInInitialList);
      this.field(f.depth, r.depth);
      this.field(f.fifo, r.fifo);
      this.field(f.batch, r.batch);
      this.field(f.id, r.id);
      this.field(f.cause, r.cause);
    } else if (r instanceof QueueOpRecord) {
      this.field(f.queue, r.queue);
      this.field(f.controller, r.controller);
      this.field(f.depth, r.depth);
      this.field(f.reason, r.reason);
      this.field(f.processing, r.processing);
      this.field(f.reasons, r.reasons);
      this.field(f.id, r.id);
      this.field(f.cause, r.cause);
      this.field(f.echoOf, r.echoOf);
    } else if (r instanceof FifoDeltaRecord) {
      this.field(f.depth, r.depth);
      this.field(f.fifo, r.fifo);
      this.field(f.id, r.id);
      this.field(f.cause, r.cause);
    } else if (r instanceof HandlerCallRecord) {
      this.field(f.listener, r.listener);
      this.field(f.controller, r.controller);
      this.field(f.isInInitialList, r.isInInitialList);
      this.field(f.oldRv, r.oldRv);
      this.field(f.sync, r.sync);
      this.field(f.error, r.error);
      this.field(f.id, r.id);
      this.field(f.cause, r.cause);
    } else if (r instanceof WatchEventRecord) {
      this.field(f.name, r.name);
      this.field(f.bytes, r.bytes);
      this.field(f.conn, r.conn);
      this.field(f.id, r.id);
      this.field(f.echoOf, r.echoOf);
    } else return false;
    return true;
  }

  /** One detail: `,"k":` and its value's JSON; nothing for undefined (and functions and symbols), as JSON.stringify. */
  private field(w: KeyWriter, v: unknown): void {
    switch (typeof v) {
      case 'string':
        if (v.length <= SHORT) this.keyed(w, v, false);
        else {
          this.bytes(w.prefix);
          this.string(v);
        }
        break;
      case 'number':
        this.bytes(w.prefix);
        this.number(v);
        break;
      case 'boolean':
        this.bytes(v ? w.yes : w.no);
        break;
      case 'object':
      case 'bigint':
        if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' && v[0].length <= SHORT) this.keyed(w, v[0], true);
        else if (Array.isArray(v) && this.countArray(w, v)) break;
        else {
          const before = this.pos;
          this.bytes(w.prefix);
          if (this.flatObject(v)) break;
          const json = JSON.stringify(detailValue(v)); // null included: JSON.stringify(null) is "null"
          if (json === undefined) this.rollBack(before); // a toJSON that returns undefined: the key is left out
          else this.push(json);
        }
        break;
      default:
        break; // undefined, functions and symbols: JSON.stringify leaves the key out
    }
  }

  /**
   * timeHead for epoch ms `ms` (RFC 3339 as Date#toISOString writes it), false for a time it cannot hold (left to the
   * general path). A new Date and its string for each new second only: the records of a busy run come a few per
   * millisecond, and formatting each new millisecond's date whole cost more than writing the rest of the line.
   */
  private setTime(ms: unknown): boolean {
    if (typeof ms !== 'number' || !(ms >= 0 && ms < MAX_FOUR_DIGIT_YEAR_MS)) return false;
    // A Date keeps whole milliseconds (TimeClip truncates), as toISOString prints them.
    const whole = Math.trunc(ms);
    const second = Math.floor(whole / 1000);
    if (second !== this.lastSecond) {
      this.timeHead = ascii('{"time":"' + new Date(whole).toISOString());
      this.lastSecond = second;
    } else {
      // "…:SS.mmmZ": the three digits before the Z.
      const h = this.timeHead;
      const milli = whole - second * 1000;
      const at = h.length - 4;
      h[at] = 0x30 + Math.floor(milli / 100);
      h[at + 1] = 0x30 + (Math.floor(milli / 10) % 10);
      h[at + 2] = 0x30 + (milli % 10);
    }
    this.lastMs = ms;
    return true;
  }

  /** Room for `n` more bytes. */
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  private bytes(piece: Uint8Array): void {
    const n = piece.length;
    if (this.pos + n > this.buf.length) this.ensure(n);
    const b = this.buf;
    const p = this.pos;
    // set() costs a call into the runtime, about what a loop over 16 bytes costs: the loop for the short pieces.
    if (n > COPY_BY_LOOP) b.set(piece, p);
    else for (let i = 0; i < n; i++) b[p + i] = piece[i];
    this.pos = p + n;
  }

  private byte(c: number): void {
    if (this.pos === this.buf.length) this.ensure(1);
    this.buf[this.pos++] = c;
  }

  /** Text known to be ASCII that needs no escaping. */
  private raw(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.ensure(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** A string's JSON: copied byte for byte while it is printable ASCII, else JSON.stringify's own. */
  private string(s: string): void {
    const n = s.length;
    if (this.pos + n + 2 > this.buf.length) this.ensure(n + 2);
    const b = this.buf;
    const start = this.pos;
    let p = start;
    b[p++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c >= 0x80 || c === QUOTE || c === BACKSLASH) {
        this.pos = start;
        this.push(JSON.stringify(s));
        return;
      }
      b[p++] = c;
    }
    b[p++] = QUOTE;
    this.pos = p;
  }

  /** A leading field's JSON: null when absent. */
  private json(v: string | null | undefined): void {
    if (v == null) this.bytes(NULL);
    else this.string(v);
  }

  private number(v: number): void {
    if ((v >>> 0) !== v) return this.largeNumber(v);
    // A count, a depth, a size, an id: its digits, without a string for them, written from the last one back.
    let digits = 1;
    for (let rest = v; rest >= 10; rest = (rest / 10) >>> 0) digits++;
    if (this.pos + digits > this.buf.length) this.ensure(digits);
    const b = this.buf;
    let p = this.pos + digits;
    this.pos = p;
    let rest = v;
    do {
      const next = (rest / 10) >>> 0;
      b[--p] = 0x30 + rest - next * 10;
      rest = next;
    } while (rest > 0);
  }

  /**
   * A number past 2^32 - 1 or not a whole one: the digits of a whole one up to 2^53 (epoch ms, a reason's `time`)
   * without a string for them; String(v) otherwise (its form is JSON's for every finite number).
   */
  private largeNumber(v: number): void {
    if (!(v > 0 && v <= Number.MAX_SAFE_INTEGER && Math.floor(v) === v)) return this.raw(Number.isFinite(v) ? String(v) : 'null');
    // 2^32 ≤ v ≤ 2^53: high digits as a count below 2^32 after the low nine, which stay exact in a double.
    let high = Math.floor(v / 1e9);
    let low = v - high * 1e9;
    // The quotient is rounded: near a multiple of 1e9 its floor can be one off.
    if (low < 0) {
      high--;
      low += 1e9;
    } else if (low >= 1e9) {
      high++;
      low -= 1e9;
    }
    this.number(high);
    if (this.pos + 9 > this.buf.length) this.ensure(9);
    const b = this.buf;
    let p = this.pos + 9;
    this.pos = p;
    let rest = low;
    for (let i = 0; i < 9; i++) {
      const next = Math.floor(rest / 10);
      b[--p] = 0x30 + rest - next * 10;
      rest = next;
    }
  }

  /** `prefix + JSON of s` (or of `[s]`), the whole piece kept for the first STRINGS_PER_KEY values of the key. */
  private keyed(w: KeyWriter, s: string, inArray: boolean): void {
    if (inArray ? s === w.lastArray : s === w.lastString) return this.bytes((inArray ? w.lastArrayPiece : w.lastStringPiece)!);
    const kept = inArray ? w.arrays : w.strings;
    const piece = kept.get(s);
    if (piece !== undefined) {
      if (inArray) {
        w.lastArray = s;
        w.lastArrayPiece = piece;
      } else {
        w.lastString = s;
        w.lastStringPiece = piece;
      }
      return this.bytes(piece);
    }
    const start = this.pos;
    this.bytes(w.prefix);
    if (inArray) this.byte(0x5b); // [
    this.string(s);
    if (inArray) this.byte(0x5d); // ]
    // Kept only as ASCII: bytes() copies pieces without telling take() to decode UTF-8.
    if (kept.size < STRINGS_PER_KEY && isAscii(this.buf, start, this.pos)) kept.set(s, new Uint8Array(this.buf.subarray(start, this.pos)));
  }

  /**
   * Writes `prefix + [1,2]` for an array of counts (a record's `cause` ids) and returns true; false, having written
   * nothing, when an element is anything else.
   */
  private countArray(w: KeyWriter, v: unknown[]): boolean {
    const n = v.length;
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (typeof x !== 'number' || (x >>> 0) !== x) return false;
    }
    this.bytes(w.prefix);
    this.byte(0x5b); // [
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(0x2c); // ,
      this.number(v[i] as number);
    }
    this.byte(0x5d); // ]
    return true;
  }

  /**
   * Writes JSON.stringify of a plain object whose values are strings, numbers, booleans or null (a workqueue
   * reason, say) and returns true; false, having written nothing, for anything else (nested objects, arrays, a
   * toJSON, Dates, Errors, a prototype of its own), which is left to JSON.stringify itself.
   */
  private flatObject(v: object | bigint | null): boolean {
    if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype || 'toJSON' in v) return false;
    const o = v as Record<string, unknown>;
    const start = this.pos;
    this.byte(0x7b); // {
    for (const k of Object.keys(o)) {
      const x = o[k];
      switch (typeof x) {
        case 'undefined':
        case 'function':
        case 'symbol':
          continue;
        case 'object':
          if (x !== null) {
            this.pos = start;
            return false;
          }
          break;
        case 'bigint':
          this.pos = start;
          return false;
      }
      if (this.pos !== start + 1) this.byte(0x2c); // ,
      this.string(k);
      this.byte(0x3a); // :
      if (typeof x === 'string') this.string(x);
      else if (typeof x === 'number') this.number(x);
      else this.bytes(x === null ? NULL : x ? TRUE : FALSE);
    }
    this.byte(0x7d); // }
    return true;
  }

  private writerOf(k: string): KeyWriter {
    return this.keyWriters.get(k) ?? this.learnKey(k);
  }

  private learnKey(k: string): KeyWriter {
    const c = k.charCodeAt(0);
    const prefix = ',' + JSON.stringify(k) + ':';
    // A record with a key that is not printable ASCII takes the general path (rare enough not to matter).
    const w = LEADING_FIELDS.has(k) || OBJECT_FIELDS.has(k) ? SKIP : (c >= 0x30 && c <= 0x39) || !PRINTABLE_ASCII.test(prefix) ? INDEX_LIKE : keyWriter(prefix);
    if (this.keyWriters.size < CACHE_MAX) this.keyWriters.set(k, w);
    return w;
  }

  private shape(stage: string, op: string): OpShape {
    let ops = this.shapes.get(stage);
    if (ops === undefined) this.shapes.set(stage, (ops = new Map()));
    let shape = ops.get(op);
    if (shape === undefined) {
      const head = '","stage":' + JSON.stringify(stage) + ',"op":' + JSON.stringify(op) + ',"key":';
      shape = { head: ascii(head), ascii: PRINTABLE_ASCII.test(head), keys: [], writers: [] };
      if (ops.size < CACHE_MAX) ops.set(op, shape);
    }
    return shape;
  }
}

function ascii(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, 'latin1'));
}

function keyWriter(prefix: string): KeyWriter {
  return { prefix: ascii(prefix), yes: ascii(prefix + 'true'), no: ascii(prefix + 'false'), strings: new Map(), arrays: new Map(), lastString: undefined, lastStringPiece: undefined, lastArray: undefined, lastArrayPiece: undefined };
}

function stringOrAbsent(v: unknown): v is string | null | undefined {
  return v == null || typeof v === 'string';
}

function isAscii(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] >= 0x80) return false;
  return true;
}
