// Bounds a LIST body while it arrives: no single item, and no stretch of the body outside the items (the
// envelope, the gaps between items), may grow past the object-size bound. A real list may be far larger
// than the bound (100k pods are ~650 MB), so the whole body is not bounded — but one endless item, or a body
// that is no list at all, fails after the bound instead of filling the memory.
import { constants as bufferConstants } from 'node:buffer';
import { ObjectTooLargeError } from '../../informer/errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const STRUCTURAL = new Uint8Array(256);
for (const c of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) STRUCTURAL[c] = 1;

/** A streaming scanner over the body's bytes (strings and escapes tracked across chunk boundaries). */
export class ListBodyGuard {
  /** Bytes seen so far. */
  private total = 0;
  /** Where the current stretch (an item, a gap between items, the envelope) began, as an offset in the body. */
  private unitStart = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Inside the top-level items array (depth 2 is between its items). */
  private inItems = false;
  private itemsDone = false;
  /** The text of the top-level string being read (only kept up to a few bytes: we only look for "items"). */
  private key = '';
  private lastKeyIsItems = false;
  /** Chunks not scanned yet: nothing is scanned while the whole body is within the bound. */
  private pending: Uint8Array[] | undefined = [];
  private pendingBytes = 0;

  constructor(
    private readonly maxObjectBytes: number,
    /** Names the list in the error, e.g. "/api/v1/pods". */
    private readonly what: string,
  ) {}

  /**
   * Throws ObjectTooLargeError when the chunk takes an item (or the envelope) past the bound. A body no
   * longer than the bound cannot break it, so the bytes are scanned only once the body grows past it.
   */
  feed(chunk: Uint8Array): void {
    if (this.pending) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes <= this.maxObjectBytes) return;
      const pending = this.pending;
      this.pending = undefined;
      for (const c of pending) this.scan(c);
      return;
    }
    this.scan(chunk);
  }

  private scan(buf: Uint8Array): void {
    const base = this.total;
    this.total += buf.length;
    if (this.total > bufferConstants.MAX_LENGTH) throw new ObjectTooLargeError(`the list of ${this.what}`, bufferConstants.MAX_LENGTH);
    // The state in locals for the loop (this runs over every byte of lists that may be hundreds of MB).
    let { depth, inString, escaped, inItems } = this;
    const n = buf.length;
    for (let i = 0; i < n; i++) {
      const c = buf[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 1) this.lastKeyIsItems = this.key === 'items';
        } else if (depth === 1 && this.key.length <= 5) this.key += String.fromCharCode(c);
        continue;
      }
      if (STRUCTURAL[c] === 0) continue; // whitespace, digits, literals, ',' and ':': nothing to track
      if (c === QUOTE) {
        inString = true;
        if (depth === 1) this.key = '';
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (inItems && depth === 2) this.unitStart = base + i;
        else if (depth === 1 && c === OPEN_ARRAY && this.lastKeyIsItems && !this.itemsDone) {
          inItems = true;
          this.unitStart = base + i + 1;
        }
        depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
        if (inItems && depth === 2) {
          this.check(base + i + 1, 'an item of the list of');
          this.unitStart = base + i + 1;
        } else if (inItems && depth === 1) {
          inItems = false;
          this.itemsDone = true;
          this.unitStart = base + i + 1;
        }
      }
    }
    Object.assign(this, { depth, inString, escaped, inItems });
    this.check(this.total, inItems && depth > 2 ? 'an item of the list of' : 'the list envelope of');
  }

  private check(end: number, what: string): void {
    if (end - this.unitStart > this.maxObjectBytes) throw new ObjectTooLargeError(`${what} ${this.what}`, this.maxObjectBytes);
  }
}
