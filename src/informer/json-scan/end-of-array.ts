// Where a JSON array (or object) ends, found without parsing it: the reference scanner, in JavaScript. The
// WebAssembly scanner (wasm-scanner.ts) does the same faster; this one serves texts too big for its memory,
// runtimes without WebAssembly, and the tests as the oracle the other must agree with.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The index just past the `]` or `}` closing the value that opens at `open` (json[open] is `[` or `{`), looking
 * no further than `n`; -1 when the bytes end first. Closers are counted, not matched: on malformed JSON the
 * answer is some index or -1, and JSON.parse of the result reports the error.
 */
export function endOfArray(json: Uint8Array, open: number, n = json.length): number {
  let depth = 0;
  let i = open;
  while (i < n) {
    const c = json[i++];
    if (c === QUOTE) {
      // A string: on to its closing quote, stepping over escaped characters (multi-byte UTF-8 never contains `"` or `\`).
      for (let d = json[i++]; d !== QUOTE; d = json[i++]) {
        if (d === BACKSLASH) i++;
        if (i >= n) return -1;
      }
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if ((c === 0x5d || c === 0x7d) && --depth === 0) return i;
  }
  return -1;
}
