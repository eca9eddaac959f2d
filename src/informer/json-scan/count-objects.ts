// How many objects a JSON array holds, counted without parsing it: the reference counter, in JavaScript. The
// WebAssembly scanner's countObjects (wasm-scanner.ts) gives the same answers faster; this one serves runtimes without
// WebAssembly, and the tests as the oracle the other must agree with. The endpoint's trace counts a list page's items
// with it (issue 43): the `list` record says how many the client was sent, and kube's remainingItemCount is no count.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where a count stands between pieces of the text: carried from one call to the next. */
export interface CountState {
  /** Brackets open inside the array (0: between its elements). */
  depth: number;
  inString: boolean;
  /** In a string, the next byte is escaped (the last piece ended on a backslash). */
  escape: boolean;
  /** Objects counted so far. */
  count: number;
}

export function countStart(): CountState {
  return { depth: 0, inString: false, escape: false, count: 0 };
}

/**
 * Counts the objects of the array whose contents run from `from` (just past its `[`, or where the last call on `st`
 * stopped) up to `n`: an object counts when its `{` opens between elements. Answers the index just past the `]` (or
 * `}`) that ends the array, or -1 when the text ends first (`st` then holds where to go on from). Closers are counted,
 * not matched, as endOfArray counts them: on malformed JSON the answer is some index or -1.
 */
export function countObjects(text: Uint8Array, from: number, n: number, st: CountState): number {
  let { depth, inString, escape, count } = st;
  let i = from;
  let end = -1;
  while (i < n) {
    const c = text[i++];
    if (inString) {
      if (escape) escape = false;
      else if (c === BACKSLASH) escape = true;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (depth === 0 && c === 0x7b) count++;
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) { end = i; break; }
      depth--;
    }
  }
  st.depth = depth;
  st.inString = inString;
  st.escape = escape;
  st.count = count;
  return end;
}
