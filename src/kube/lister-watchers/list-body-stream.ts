// Decoding a LIST body while it arrives. kube-apiserver's watch cache answers `resourceVersion=0` lists — the
// reflector's first list, as in client-go — in full, ignoring `limit`, so 100k realistic pods arrive as one
// ~650 MB body. Collecting it before parsing costs its size in memory twice over (the chunks, then their
// concatenation) and a long garbage collection after. Here the items are parsed as their bytes arrive and the
// bytes are let go; only the list's envelope (kind, metadata — before or after the items) is kept to the end.
//
// Two ways to find the items in the byte stream, both exact:
// - runs: items of one list share their first key, so `,{"k":` (k = the first item's first key) marks a likely
//   boundary between items. A run of bytes up to such a mark is parsed as one array. The mark never lies inside
//   a string (its `"` follows `{`, so it is no escaped quote), but may lie inside an item (a nested object with
//   the same first key); then the run's brackets do not balance and JSON.parse refuses it. So a run that parses
//   ended exactly between items, and a run that does not hands the bytes to the scanner below.
// - the scanner: walks the bytes (strings and escapes tracked across chunks; UTF-8 continuation bytes are never
//   `"` or `\`) and parses each item alone. Used when runs cannot be trusted: pretty-printed bodies, items with
//   different first keys, items that are not objects, malformed bodies (so the error is JSON.parse's own).
import { ObjectTooLargeError } from '../../informer/errors.js';
import { parseIfCutExact, parseOmittingManagedFields } from '../../informer/omit-managed-fields.js';
import type { KubeObject, ListPage } from '../../informer/types.js';

export interface ListBodyStreamOptions {
  /** Leave metadata.managedFields out of the items (for caches that strip them anyway). */
  omitManagedFields?: boolean;
  /** No item, and no stretch of the envelope, may be longer than this (--max-object-size). */
  maxObjectBytes: number;
  /** Names the list in errors, e.g. "/api/v1/pods". */
  what: string;
  /** Bodies up to this size are collected and parsed in one piece (fastest for a page); larger ones stream. */
  streamAfterBytes?: number;
  /** Target size of a run of items parsed in one JSON.parse. */
  runBytes?: number;
}

const STREAM_AFTER_BYTES = 8 * 1024 * 1024;
const RUN_BYTES = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Byte classes for the scanner: 0 nothing to track, 1 `"`, 2 `{` `[`, 3 `}` `]`, 4 `,`. */
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = 1;
CLASS[OPEN_OBJECT] = CLASS[OPEN_ARRAY] = 2;
CLASS[CLOSE_OBJECT] = CLASS[CLOSE_ARRAY] = 3;
CLASS[COMMA] = 4;

const toBuffer = (c: Uint8Array) => (Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength));
const concat = (pieces: Buffer[]) => (pieces.length === 1 ? pieces[0] : Buffer.concat(pieces));
const itself = (obj: KubeObject) => [obj];
const pageItems = (page: ListPage) => (Array.isArray(page?.items) ? page.items : []);
const asArray = (a: unknown) => (Array.isArray(a) ? (a as KubeObject[]) : []);

type Mode = 'pending' | 'head' | 'runs' | 'scan' | 'tail';

/** Feed the body's chunks as they come, then end() for the page. Throws SyntaxError or ObjectTooLargeError. */
export class ListBodyStream {
  /** Bytes fed so far. */
  bytes = 0;
  private mode: Mode = 'pending';
  private readonly items: unknown[] = [];
  private readonly max: number;
  private readonly streamAfter: number;
  private readonly runTarget: number;
  /** pending: the whole body so far; head: the envelope so far; tail: the envelope after the items. */
  private pieces: Buffer[] = [];
  private piecesBytes = 0;
  /** The envelope up to and including the items array's `[`. */
  private prefix: Buffer | undefined;

  // head: finding the top-level `"items": [` (depth 1 is inside the top-level object).
  private headDepth = 0;
  private headInString = false;
  private headEscaped = false;
  private topIsObject = false;
  /** The top-level string being read, kept up to a few bytes: only "items" matters. */
  private headKey = '';
  /** 0 nothing, 1 just read the key "items", 2 and its `:`. */
  private itemsKeyState = 0;

  // runs: the bytes from the start of the next unparsed item, in window[1, windowEnd): one buffer reused from
  // run to run (byte 0 is spare, so that a run can be parsed in place as `[` run `]`).
  private window = Buffer.alloc(1);
  private windowEnd = 1;
  /** `,{"k":` once the first item's first key is known. */
  private boundary: Buffer | undefined;

  // scan: nesting (2 = between the items), string state, the item being read.
  private depth = 2;
  private inString = false;
  private escaped = false;
  private inItem = false;
  /** After `[` or `,`: an item must come next (`]` may too, right after `[`). */
  private expectItem = true;
  private afterComma = false;
  private itemPieces: Buffer[] = [];
  private itemBytes = 0;

  constructor(private readonly opts: ListBodyStreamOptions) {
    this.max = opts.maxObjectBytes;
    this.streamAfter = Math.min(opts.streamAfterBytes ?? STREAM_AFTER_BYTES, opts.maxObjectBytes);
    this.runTarget = Math.max(1, Math.min(opts.runBytes ?? RUN_BYTES, opts.maxObjectBytes));
  }

  feed(chunk: Uint8Array): void {
    const buf = toBuffer(chunk);
    this.bytes += buf.length;
    if (this.mode === 'pending') {
      this.pieces.push(buf);
      this.piecesBytes += buf.length;
      if (this.piecesBytes <= this.streamAfter) return;
      // Too big for one piece: stream from here on, starting with what came so far.
      const pending = this.pieces;
      this.pieces = [];
      this.piecesBytes = 0;
      this.mode = 'head';
      for (const p of pending) this.take(p);
      return;
    }
    this.take(buf);
  }

  end(): ListPage {
    switch (this.mode) {
      case 'pending': {
        const body = concat(this.pieces);
        this.pieces = [];
        this.piecesBytes = 0;
        return this.parseWhole(body);
      }
      case 'head':
        // No items array at all (items null or missing, a Status, or no list): small, parsed as it is.
        return JSON.parse(concat(this.pieces).toString('utf8')) as ListPage;
      case 'runs':
        this.endRuns();
        break;
      default:
        break;
    }
    if (this.mode !== 'tail') throw new SyntaxError('Unexpected end of JSON input');
    return this.envelope();
  }

  /**
   * A small body in one JSON.parse. Should one of its cuts not be an item's metadata.managedFields, it is
   * streamed after all, so that only that item is parsed as sent (as in a large body).
   */
  private parseWhole(body: Buffer): ListPage {
    if (!this.opts.omitManagedFields) return JSON.parse(body.toString('utf8')) as ListPage;
    const page = parseIfCutExact<ListPage>(body, pageItems);
    if (page !== undefined) return page;
    this.mode = 'head';
    this.take(body);
    return this.end();
  }

  private take(buf: Buffer): void {
    switch (this.mode) {
      case 'head':
        return this.takeHead(buf);
      case 'runs':
        return this.takeRuns(buf);
      case 'scan':
        return this.scan(buf, 0);
      case 'tail':
        return this.takeTail(buf, 0);
      default:
        throw new Error(`unexpected mode ${this.mode}`);
    }
  }

  private takeHead(buf: Buffer): void {
    let { headDepth: depth, headInString: inString, headEscaped: escaped } = this;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 1) this.itemsKeyState = this.headKey === 'items' ? 1 : 0;
        } else if (depth === 1 && this.headKey.length <= 5) this.headKey += String.fromCharCode(c);
        continue;
      }
      if (isSpace(c)) continue;
      if (depth === 0 && c === OPEN_OBJECT) this.topIsObject = true;
      if (depth === 1 && this.topIsObject) {
        if (c === OPEN_ARRAY && this.itemsKeyState === 2) {
          this.pieces.push(buf.subarray(0, i + 1));
          this.prefix = concat(this.pieces);
          this.pieces = [];
          this.piecesBytes = 0;
          this.mode = 'runs';
          if (i + 1 < buf.length) this.takeRuns(buf.subarray(i + 1));
          return;
        }
        if (c === COLON && this.itemsKeyState === 1) this.itemsKeyState = 2;
        else if (c !== QUOTE) this.itemsKeyState = 0;
      }
      if (c === QUOTE) {
        inString = true;
        if (depth === 1) this.headKey = '';
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
    }
    Object.assign(this, { headDepth: depth, headInString: inString, headEscaped: escaped });
    this.pieces.push(buf);
    this.piecesBytes += buf.length;
    if (this.piecesBytes > this.max) throw new ObjectTooLargeError(`the list envelope of ${this.opts.what}`, this.max);
  }

  private takeRuns(buf: Buffer): void {
    if (this.windowEnd + buf.length > this.window.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.windowEnd + buf.length, 2 * this.runTarget + 65_537, 2 * this.window.length));
      this.window.copy(grown, 0, 0, this.windowEnd);
      this.window = grown;
    }
    this.windowEnd += buf.copy(this.window, this.windowEnd);
    // Moving the leftover of the last run to the front again is cheap when a good stretch has come since.
    if (this.windowEnd - 1 < 2 * this.runTarget) return;
    const r = this.window;
    let start = 1;
    const end = this.windowEnd;
    if (this.boundary === undefined && !this.findBoundary(r, start, end)) return;
    const boundary = this.boundary!;
    for (;;) {
      const cut = r.indexOf(boundary, start + (this.runTarget >> 1));
      if (cut < 0 || cut >= end) {
        // No mark where one should be: the items are not shaped alike (or one is long) — the scanner decides.
        if (end - start > Math.min(this.max, 4 * this.runTarget)) return this.toScan(r.subarray(start, end));
        break;
      }
      if (cut - start > this.max) return this.toScan(r.subarray(start, end));
      if (!this.parseRun(r, start, cut)) {
        // The scanner reads this run item by item (through its ','). Ending between items, the mark was a real
        // boundary (the run failed on an item that is not cut alike, or is malformed): runs go on from there.
        this.toScan(r.subarray(start, cut + 1));
        if (this.mode === 'tail') return this.takeTail(r.subarray(cut + 1, end), 0);
        if (this.inItem || this.inString || this.depth !== 2) return this.scan(r.subarray(cut + 1, end), 0);
        this.mode = 'runs';
      }
      start = cut + 1; // past the ','
    }
    r.copyWithin(1, start, end);
    this.window = r;
    this.windowEnd = 1 + end - start;
  }

  /**
   * Learns the boundary mark from the first item; false (with the bytes kept) until enough has come. Hands
   * an empty items array to the tail, and items that are not objects to the scanner.
   */
  private findBoundary(r: Buffer, start: number, end: number): boolean {
    let i = start;
    while (i < end && isSpace(r[i])) i++;
    if (i === end) return false;
    if (r[i] === CLOSE_ARRAY) {
      this.mode = 'tail';
      this.takeTail(r.subarray(i, end), 0);
      this.releaseWindow();
      return false;
    }
    if (r[i] !== OPEN_OBJECT) {
      this.toScan(r.subarray(start, end));
      return false;
    }
    const colon = r.indexOf(COLON, i);
    if (colon < 0 || colon >= end) {
      if (end - start > this.max) this.toScan(r.subarray(start, end));
      return false;
    }
    this.boundary = Buffer.concat([Buffer.from([COMMA]), r.subarray(i, colon + 1)]);
    return true;
  }

  private releaseWindow(): void {
    this.window = Buffer.alloc(1);
    this.windowEnd = 1;
  }

  /** Parses r[start, cut) as `[` … `]` in place; false (bytes unchanged) unless it is one or more whole items. */
  private parseRun(r: Buffer, start: number, cut: number): boolean {
    const before = r[start - 1];
    const after = r[cut];
    r[start - 1] = OPEN_ARRAY;
    r[cut] = CLOSE_ARRAY;
    let parsed: unknown;
    try {
      const bytes = r.subarray(start - 1, cut + 1);
      // A cut that was not every item's metadata.managedFields: the scanner parses the run item by item.
      parsed = this.opts.omitManagedFields ? parseIfCutExact<unknown>(bytes, asArray) : JSON.parse(bytes.toString('utf8'));
    } catch {
      parsed = undefined;
    } finally {
      r[start - 1] = before;
      r[cut] = after;
    }
    // `[ ]` parses too, but whitespace between two commas is no item: only non-empty runs count.
    if (!Array.isArray(parsed) || parsed.length === 0) return false;
    for (const item of parsed) this.items.push(item);
    return true;
  }

  /** At the end of the body: the last run ends at the `]` of a body that ends in `]}`, or the scanner decides. */
  private endRuns(): void {
    const r = this.window;
    const end = this.windowEnd;
    let i = end - 1;
    while (i >= 1 && isSpace(r[i])) i--;
    if (i >= 1 && r[i] === CLOSE_OBJECT) {
      i--;
      while (i >= 1 && isSpace(r[i])) i--;
      if (i > 1 && r[i] === CLOSE_ARRAY && i - 1 <= this.max && this.parseRun(r, 1, i)) {
        this.mode = 'tail';
        this.takeTail(r.subarray(i, end), 0);
        this.releaseWindow();
        return;
      }
    }
    this.toScan(r.subarray(1, end));
  }

  /** The scanner takes over from here on (the window's bytes, if any, are what `bytes` refers to). */
  private toScan(bytes: Buffer): void {
    this.mode = 'scan';
    this.releaseWindow();
    this.scan(bytes, 0);
  }

  /** The exact scanner, from an item's start (or between items); each item is parsed as soon as it ends. */
  private scan(buf: Buffer, from: number): void {
    let { depth, inString, escaped, inItem } = this;
    let itemStart = inItem ? 0 : -1;
    const n = buf.length;
    let i = from;
    for (; i < n; i++) {
      const c = buf[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      const k = CLASS[c];
      if (depth > 2) {
        if (k === 1) inString = true;
        else if (k === 2) depth++;
        else if (k === 3) depth--;
        continue;
      }
      // Between items, or at the top of an item (a scalar, or a container that has just closed).
      if (k === 4 || c === CLOSE_ARRAY) {
        if (inItem) {
          this.pushItem(buf.subarray(itemStart, i));
          inItem = false;
          itemStart = -1;
        } else if (c === COMMA || this.afterComma) throw new SyntaxError(`Unexpected token '${String.fromCharCode(c)}' in the items array of the list`);
        if (c === COMMA) {
          this.expectItem = true;
          this.afterComma = true;
          continue;
        }
        // The items array closes: the rest is the envelope's.
        this.mode = 'tail';
        Object.assign(this, { depth: 1, inString, escaped, inItem });
        this.takeTail(buf, i);
        return;
      }
      if (isSpace(c)) continue;
      if (!inItem) {
        if (!this.expectItem) throw new SyntaxError(`Unexpected token '${String.fromCharCode(c)}' in the items array of the list (a ',' is missing)`);
        if (c === CLOSE_OBJECT) throw new SyntaxError("Unexpected token '}' in the items array of the list");
        inItem = true;
        itemStart = i;
        this.expectItem = false;
        this.afterComma = false;
      } else if (c === CLOSE_OBJECT) throw new SyntaxError("Unexpected token '}' in the items array of the list");
      if (k === 1) inString = true;
      else if (k === 2) depth++;
    }
    Object.assign(this, { depth, inString, escaped, inItem });
    if (inItem) {
      const piece = buf.subarray(itemStart, n);
      this.itemPieces.push(piece);
      this.itemBytes += piece.length;
      if (this.itemBytes > this.max) throw new ObjectTooLargeError(`an item of the list of ${this.opts.what}`, this.max);
    }
  }

  /** The item read so far plus its last piece, parsed. */
  private pushItem(last: Buffer): void {
    this.itemPieces.push(last);
    const bytes = concat(this.itemPieces);
    this.itemPieces = [];
    this.itemBytes = 0;
    if (bytes.length > this.max) throw new ObjectTooLargeError(`an item of the list of ${this.opts.what}`, this.max);
    let first = 0;
    while (isSpace(bytes[first])) first++;
    this.items.push(this.opts.omitManagedFields && bytes[first] === OPEN_OBJECT ? parseOmittingManagedFields<KubeObject>(bytes, itself) : JSON.parse(bytes.toString('utf8')));
  }

  private takeTail(buf: Buffer, from: number): void {
    const piece = from === 0 ? buf : buf.subarray(from);
    // A copy: the chunk it came in may be large, the envelope is small.
    this.pieces.push(Buffer.from(piece));
    this.piecesBytes += piece.length;
    if (this.piecesBytes > this.max) throw new ObjectTooLargeError(`the list envelope of ${this.opts.what}`, this.max);
  }

  /**
   * The envelope with a placeholder where the items were: JSON.parse validates it and reads the list's
   * metadata. Should the envelope hold another "items" key after ours, it wins, as in JSON.parse of the body.
   */
  private envelope(): ListPage {
    const prefix = this.prefix!;
    const tail = concat(this.pieces);
    const text = prefix.toString('utf8', 0, prefix.length - 1) + '0' + tail.toString('utf8', 1);
    const page = JSON.parse(text) as Omit<ListPage, 'items'> & { items: unknown };
    if (page.items === 0) page.items = this.items;
    return page as ListPage;
  }
}
