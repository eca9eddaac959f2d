// A list body, as the chunks it crossed the endpoint in, split into what the trace needs: its kind and metadata, each
// item's bytes (or a Table's row count). The chunks are read where they lie: a LIST of 100k pods is a GB, and joining
// it into one buffer first cost more than forwarding it (fresh memory is slow to touch). An item that straddles two
// chunks is the only thing copied.
// The top level is walked byte by byte; each item (or row) is skipped whole by the WebAssembly scanner the informer
// cuts managedFields with (16 bytes of a string at a time): walking every byte of a 20,000-pod LIST in JavaScript was
// most of the endpoint's CPU for it, more than forwarding it (issue 43). Items only counted (and a Table's rows) are
// counted by the same scanner's countObjects, 16 bytes at a time strings and all: skipping item by item, which reads
// the structure between strings byte by byte, was a quarter of the endpoint's CPU for a LIST traced with `-o ndjson`.
import { countObjects, countStart, type CountState } from '../informer/json-scan/count-objects.js';
import { endOfArray } from '../informer/json-scan/end-of-array.js';
import { wasmScanner, type WasmScanner } from '../informer/json-scan/wasm-scanner.js';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-scan.js';

export interface SplitBody {
  kind?: string;
  /** The top-level metadata, parsed (small: a list's resourceVersion, continue, remainingItemCount). */
  metadata?: Record<string, unknown>;
  /** The bytes of each object in `items` (undefined when the body has no `items` array). */
  items?: Buffer[];
  /** The number of objects in `rows` (a Table), when it has them. */
  rows?: number;
  /** The number of objects in `items`, when only counted (`countOnly`): no item's bytes are taken. */
  itemCount?: number;
}

/** Bytes that may span chunks: the pieces seen so far, and where the open one began in the current chunk. */
class Span {
  private pieces: Buffer[] = [];
  from = -1;

  get open(): boolean {
    return this.from >= 0;
  }

  begin(at: number): void {
    this.pieces = [];
    this.from = at;
  }

  /** The chunk ends while the span is open: keep its part, continue at the next chunk's start. */
  carry(chunk: Buffer): void {
    if (this.from < 0) return;
    if (this.from < chunk.length) this.pieces.push(chunk.subarray(this.from));
    this.from = 0;
  }

  end(chunk: Buffer, at: number): Buffer {
    const last = chunk.subarray(this.from, at);
    this.from = -1;
    if (this.pieces.length === 0) return last;
    const whole = Buffer.concat([...this.pieces, last]);
    this.pieces = [];
    return whole;
  }
}

/** Top-level members whose values are kept whole. */
const KEPT = new Set(['kind', 'metadata']);
/**
 * The most bytes copied into the scanner's memory at once (its memory never shrinks): a larger chunk (the fork's sim
 * writes a LIST body in one) is scanned where it lies, in JavaScript.
 */
const SCRATCH_MAX_BYTES = 1 << 20;

/** An item (or row) whose end is not in the chunks seen so far: its pieces, and when to look for its end again. */
interface OpenItem {
  pieces: Buffer[];
  bytes: number;
  /** Looked for again once this many bytes are held: doubling, so that a huge item is scanned a bounded number of times. */
  retryAt: number;
}

export class ListSplitter {
  private depth = 0;
  private inString = false;
  private escape = false;
  private failed = false;
  /** The top-level object closed. */
  private done = false;
  /** At depth 1: the next string is a member name. */
  private expectKey = false;
  private key = '';
  private readonly keySpan = new Span();
  private readonly valueSpan = new Span();
  /** The item (or row) that began in an earlier chunk and has not ended yet. */
  private open: OpenItem | undefined;
  /** The items (or rows) array being counted, not taken: where its count stands at the end of the last chunk. */
  private counting: CountState | undefined;
  /** Which top-level array is open at depth 2. */
  private array: 'items' | 'rows' | undefined;
  private readonly kept = new Map<string, Buffer>();
  private items?: Buffer[];
  private itemCount?: number;
  private rows?: number;

  /**
   * `countOnly`: the items are counted, not taken (no Buffer made per item, none joined across chunks): the trace's
   * per-page facts, while the page itself is read later if ever (client-session.ts's held pages).
   */
  constructor(private readonly countOnly = false) {}

  feed(b: Buffer): void {
    if (this.failed) return;
    if (this.counting) {
      const end = this.countIn(b, 0);
      if (end >= 0) this.walk(b, end);
      return;
    }
    if (!this.open) return this.walk(b, 0);
    const open = this.open;
    open.pieces.push(b);
    open.bytes += b.length;
    if (open.bytes >= open.retryAt) this.settle();
  }

  /**
   * Looks for the open item's end in its pieces; when found, takes it and walks what follows it (in the last chunk,
   * or from an earlier piece on when it was looked for late).
   */
  private settle(): void {
    const open = this.open!;
    const end = itemEnd(open.pieces, open.bytes);
    if (end < 0) {
      open.retryAt = 2 * open.bytes;
      return;
    }
    this.open = undefined;
    this.items!.push(Buffer.concat(open.pieces, end));
    let start = 0;
    let k = 0;
    while (start + open.pieces[k].length < end) start += open.pieces[k++].length;
    for (let j = k; j < open.pieces.length; j++) {
      const from = j === k ? end - start : 0;
      if (this.open) this.feed(open.pieces[j].subarray(from));
      else this.walk(open.pieces[j], from);
    }
  }

  /** Walks `b` from `i` to its end. */
  private walk(b: Buffer, i: number): void {
    if (this.failed) return;
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    const n = b.length;
    /** The scanner, once `b` is in its memory (copied at the first item of the chunk). */
    let scanner: WasmScanner | undefined;
    let copied = false;
    while (i < n) {
      if (inString) {
        // The bulk of a body: only the closing quote matters.
        if (escape) {
          escape = false;
          i++;
        }
        while (i < n) {
          const c = b[i];
          if (c === QUOTE) break;
          i++;
          if (c === BACKSLASH) {
            if (i < n) i++;
            else escape = true;
          }
        }
        if (i >= n) break;
        inString = false;
        if (depth === 1 && this.keySpan.open) this.key = this.keySpan.end(b, i).toString('utf8');
        i++;
        continue;
      }
      if (depth > 3) {
        // Deep inside a top-level value: only strings and brackets count, until it is back at depth 3.
        while (i < n) {
          const c = b[i];
          if (c === QUOTE) break;
          i++;
          if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
          else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 3) break;
        }
        if (i < n && b[i] === QUOTE) {
          inString = true;
          i++;
        }
        continue;
      }
      const c = b[i];
      if (c === QUOTE) {
        inString = true;
        if (depth === 1 && this.expectKey) {
          this.expectKey = false;
          this.keySpan.begin(i + 1);
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (depth === 1) {
          if (c !== OPEN_BRACE || this.done) { this.failed = true; return; }
          this.expectKey = true;
        } else if (depth === 2 && c === OPEN_BRACKET && (this.key === 'items' || this.key === 'rows')) {
          this.array = this.key;
          if (this.array === 'items') this.startItems();
          else this.rows = 0;
          if (this.countOnly || this.array === 'rows') {
            // Counted to the array's end; the walk goes on after it (in a later chunk when it ends there).
            this.counting = countStart();
            const end = this.countIn(b, i + 1);
            // The count used the scanner's memory: an item taken later in this chunk copies the chunk again.
            copied = false;
            if (end < 0) {
              i = n;
              break;
            }
            depth = 1;
            i = end;
            continue;
          }
        } else if (depth === 3 && c === OPEN_BRACE && this.array === 'items') {
          // Taken whole (items counted only, and rows, never get here): nothing inside an item is read here.
          if (!copied) {
            copied = true;
            scanner = n <= SCRATCH_MAX_BYTES ? wasmScanner() : undefined;
            if (scanner) b.copy(scanner.scratch(n), 0);
          }
          const end = scanner ? scanner.endOfArray(i, n) : endOfArray(b, i, n);
          depth = 2;
          if (end < 0) {
            // It goes on in the next chunk.
            this.open = { pieces: [b.subarray(i)], bytes: n - i, retryAt: 0 };
            i = n;
            break;
          }
          this.items!.push(b.subarray(i, end));
          i = end;
          continue;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 1) this.array = undefined;
        else if (depth === 0) {
          this.closeValue(b, i);
          this.done = true;
        } else if (depth < 0) { this.failed = true; return; }
      } else if (depth === 1) {
        if (c === COLON) {
          if (KEPT.has(this.key)) this.valueSpan.begin(i + 1);
          // "items": null is how an empty list can be written: still a list.
          else if (this.key === 'items' && this.items === undefined && this.itemCount === undefined) this.startItems();
        } else if (c === COMMA) {
          this.closeValue(b, i);
          this.expectKey = true;
        }
      }
      i++;
    }
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    this.keySpan.carry(b);
    this.valueSpan.carry(b);
  }

  /**
   * Counts on in the array being counted from `b[from]`: the index just past its end, where the walk goes on at depth
   * 1, or -1 when it goes on in the next chunk.
   */
  private countIn(b: Buffer, from: number): number {
    const st = this.counting!;
    const n = b.length;
    const scanner = wasmScanner();
    let end = -1;
    if (!scanner) end = countObjects(b, from, n, st);
    else {
      // A chunk over the scratch's bound is counted in slices: the count carries over, as from chunk to chunk.
      for (let at = from; at < n && end < 0; at += SCRATCH_MAX_BYTES) {
        const len = Math.min(n - at, SCRATCH_MAX_BYTES);
        b.copy(scanner.scratch(len), 0, at, at + len);
        const e = scanner.countObjects(0, len, st);
        if (e >= 0) end = at + e;
      }
    }
    if (end < 0) return -1;
    this.counting = undefined;
    this.depth = 1;
    if (this.array === 'items') this.itemCount = st.count;
    else this.rows = st.count;
    this.array = undefined;
    return end;
  }

  private startItems(): void {
    if (this.countOnly) this.itemCount = 0;
    else this.items = [];
  }

  /** What the body held, or undefined when it was not one complete JSON object. */
  end(): SplitBody | undefined {
    // An item still open may have ended in a chunk it was not looked for in.
    for (let last; this.open && this.open !== last && !this.failed; ) {
      last = this.open;
      this.settle();
    }
    if (this.failed || this.open || this.depth !== 0 || this.inString || !this.done) return undefined;
    return this.result();
  }

  /**
   * The kind and metadata, once the body's `items` array has begun after its metadata (as kube writes a list); else
   * undefined. Nothing after that point is read, so nothing says the body is whole: for a list whose items are read
   * later, if ever.
   */
  head(): SplitBody | undefined {
    if (this.failed || !this.kept.has('metadata') || (this.items === undefined && this.itemCount === undefined)) return undefined;
    const head = this.result();
    if (!head) return undefined;
    const { items: _items, itemCount: _count, ...rest } = head;
    return rest;
  }

  private result(): SplitBody | undefined {
    const kind = this.kept.get('kind');
    const meta = this.kept.get('metadata');
    try {
      const k = kind ? (JSON.parse(kind.toString('utf8')) as unknown) : undefined;
      const m = meta ? (JSON.parse(meta.toString('utf8')) as unknown) : undefined;
      return {
        ...(typeof k === 'string' ? { kind: k } : {}),
        ...(m && typeof m === 'object' && !Array.isArray(m) ? { metadata: m as Record<string, unknown> } : {}),
        ...(this.items ? { items: this.items } : {}),
        ...(this.itemCount !== undefined ? { itemCount: this.itemCount } : {}),
        ...(this.rows !== undefined ? { rows: this.rows } : {}),
      };
    } catch {
      return undefined;
    }
  }

  /** A top-level member's value ended at `i` (a comma or the closing brace). */
  private closeValue(b: Buffer, i: number): void {
    if (this.valueSpan.open) this.kept.set(this.key, this.valueSpan.end(b, i));
  }
}

/** Where the item that opens at the first byte of `pieces` ends (just past its brace), or -1 when it does not in them. */
function itemEnd(pieces: readonly Buffer[], bytes: number): number {
  const scanner = bytes <= SCRATCH_MAX_BYTES ? wasmScanner() : undefined;
  if (!scanner) return endOfArray(Buffer.concat(pieces, bytes), 0, bytes);
  const scratch = scanner.scratch(bytes);
  let at = 0;
  for (const p of pieces) at += p.copy(scratch, at);
  return scanner.endOfArray(0, bytes);
}

/**
 * A list body's kind and metadata, read up to where its items begin (the first chunk, as kube writes a list), or on
 * to its metadata when that comes after them (a body with none is read whole, and counted). Undefined when it is no
 * list or not JSON.
 */
export function listHead(chunks: readonly Buffer[]): SplitBody | undefined {
  const s = new ListSplitter(true);
  for (const c of chunks) {
    s.feed(c);
    const head = s.head();
    if (head) return head;
  }
  const whole = s.end();
  return whole?.itemCount !== undefined ? whole : undefined;
}

/** Splits a body kept as chunks; with `countOnly`, counts its items instead of taking them. */
export function splitBody(chunks: readonly Buffer[], countOnly = false): SplitBody | undefined {
  const s = new ListSplitter(countOnly);
  for (const c of chunks) s.feed(c);
  return s.end();
}
