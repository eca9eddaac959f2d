// A list body, as the chunks it crossed the endpoint in, split into what the trace needs: its kind and metadata, each
// item's bytes (or a Table's row count). The chunks are read where they lie: a LIST of 100k pods is a GB, and joining
// it into one buffer first cost more than forwarding it (fresh memory is slow to touch). An item that straddles two
// chunks is the only thing copied.
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-scan.js';

export interface SplitBody {
  kind?: string;
  /** The top-level metadata, parsed (small: a list's resourceVersion, continue, remainingItemCount). */
  metadata?: Record<string, unknown>;
  /** The bytes of each object in `items` (undefined when the body has no `items` array). */
  items?: Buffer[];
  /** The number of objects in `rows` (a Table), when it has them. */
  rows?: number;
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
  private readonly itemSpan = new Span();
  /** Which top-level array is open at depth 2. */
  private array: 'items' | 'rows' | undefined;
  private readonly kept = new Map<string, Buffer>();
  private items?: Buffer[];
  private rows?: number;

  feed(b: Buffer): void {
    if (this.failed) return;
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    const n = b.length;
    let i = 0;
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
        // Deep inside an item: only strings and brackets count, until it is back at the item's own level.
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
          if (this.array === 'items') this.items = [];
          else this.rows = 0;
        } else if (depth === 3 && c === OPEN_BRACE && this.array !== undefined) {
          if (this.array === 'items') this.itemSpan.begin(i);
          else this.rows!++;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 2 && this.itemSpan.open) this.items!.push(this.itemSpan.end(b, i + 1));
        else if (depth === 1) this.array = undefined;
        else if (depth === 0) {
          this.closeValue(b, i);
          this.done = true;
        } else if (depth < 0) { this.failed = true; return; }
      } else if (depth === 1) {
        if (c === COLON) {
          if (KEPT.has(this.key)) this.valueSpan.begin(i + 1);
          // "items": null is how an empty list can be written: still a list.
          else if (this.key === 'items') this.items ??= [];
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
    this.itemSpan.carry(b);
  }

  /** What the body held, or undefined when it was not one complete JSON object. */
  end(): SplitBody | undefined {
    if (this.failed || this.depth !== 0 || this.inString || !this.done) return undefined;
    const kind = this.kept.get('kind');
    const meta = this.kept.get('metadata');
    try {
      const k = kind ? (JSON.parse(kind.toString('utf8')) as unknown) : undefined;
      const m = meta ? (JSON.parse(meta.toString('utf8')) as unknown) : undefined;
      return {
        ...(typeof k === 'string' ? { kind: k } : {}),
        ...(m && typeof m === 'object' && !Array.isArray(m) ? { metadata: m as Record<string, unknown> } : {}),
        ...(this.items ? { items: this.items } : {}),
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

/** Splits a body kept as chunks. */
export function splitBody(chunks: readonly Buffer[]): SplitBody | undefined {
  const s = new ListSplitter();
  for (const c of chunks) s.feed(c);
  return s.end();
}
