// A walk over JSON bytes that finds where values begin and end and reads only the members asked for, without building
// the document. The endpoint forwards LIST bodies of hundreds of MB and watch streams of thousands of events/s; parsing
// each whole to learn an object's name and resourceVersion cost more CPU (and garbage) than forwarding it.
// The input is trusted to be JSON from a Kubernetes server; malformed input throws JsonScanError (callers then trace
// less, never fail the request).

/** The bytes of JSON's structure (UTF-8 continuation bytes are never one of them). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

export class JsonScanError extends Error {}

const fail = (why: string, at: number): never => {
  throw new JsonScanError(`${why} at byte ${at}`);
};

export function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else break;
  }
  return i;
}

/** The end (exclusive) of the string whose opening quote is at `i`. */
function stringEnd(b: Uint8Array, i: number): number {
  const n = b.length;
  i++;
  while (i < n) {
    const c = b[i++];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return fail('unterminated string', i);
}

/**
 * The end (exclusive) of the object or array that `depth` levels up from `i` are still open: `closeOf(b, i + 1, 1)`
 * for the one whose bracket is at `i`.
 */
export function closeOf(b: Uint8Array, i: number, depth: number): number {
  const n = b.length;
  while (i < n) {
    const c = b[i++];
    if (c === QUOTE) {
      // Inline rather than stringEnd: the bulk of a Kubernetes body is strings.
      for (;;) {
        if (i >= n) fail('unterminated string', i);
        const d = b[i++];
        if (d === QUOTE) break;
        if (d === BACKSLASH) i++;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return i;
    }
  }
  return fail('unterminated object or array', i);
}

/** The end (exclusive) of the value that starts at `i` (no space before it). */
export function valueEnd(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return closeOf(b, i + 1, 1);
  // A number, true, false or null: up to the next delimiter.
  const n = b.length;
  let j = i;
  while (j < n) {
    const d = b[j];
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
    j++;
  }
  return j > i ? j : fail('a value expected', i);
}

/** What a member visitor answers to stop the walk. */
export const STOP = -1;

/**
 * A fixed set of strings, recognised in JSON bytes without making a string of them: a watch stream delivers thousands
 * of events a second, and reading each member name of each object's metadata as a string cost more than the rest of
 * the scan (a string per name, made in C++).
 */
export class KnownStrings<T extends string = string> {
  private readonly bytes: { text: T; b: Buffer }[];

  constructor(texts: readonly T[]) {
    this.bytes = texts.map((text) => ({ text, b: Buffer.from(text, 'utf8') }));
  }

  /** The string whose JSON (quotes included) is `b[start, end)`, when it is one of these written without escapes. */
  match(b: Uint8Array, start: number, end: number): T | undefined {
    const n = end - start - 2;
    if (n < 0 || b[start] !== QUOTE) return undefined;
    outer: for (const { text, b: t } of this.bytes) {
      if (t.length !== n) continue;
      for (let j = 0; j < n; j++) if (b[start + 1 + j] !== t[j]) continue outer;
      return text;
    }
    return undefined;
  }
}

/**
 * Visits the members of the object whose brace is at `i`, in order: `visit(key, start)` with where the value starts.
 * The visitor may read the value and answer where it ends, answer STOP to end the walk there (the rest is not read),
 * or answer nothing to have it skipped. Answers the object's end, or STOP. With `only`, a member whose name is not one
 * of those is skipped without a visit (and without reading its name as a string).
 */
export function members<K extends string = string>(b: Buffer, i: number, visit: (key: K, start: number) => number | void, only?: KnownStrings<K>): number {
  if (b[i] !== OPEN_BRACE) fail('an object expected', i);
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) fail('a member name expected', i);
    const keyEnd = stringEnd(b, i);
    // A name with an escape is read by the full rules, then looked for among `only`'s.
    const key = only ? (only.match(b, i, keyEnd) ?? escapedKnown(b, i, keyEnd, only)) : (keyText(b, i, keyEnd) as K);
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) fail('":" expected', i);
    const start = skipSpace(b, i + 1);
    const read = key === undefined ? undefined : visit(key, start);
    if (read === STOP) return STOP;
    i = skipSpace(b, read ?? valueEnd(b, start));
    if (b[i] === COMMA) i = skipSpace(b, i + 1);
    else if (b[i] === CLOSE_BRACE) return i + 1;
    else fail('"," or "}" expected', i);
  }
}

/** The string value at [start, end), or undefined when that value is not a string. */
export function stringAt(b: Buffer, start: number, end: number): string | undefined {
  if (b[start] !== QUOTE) return undefined;
  // Escapes are rare in names and versions: only then the full JSON rules.
  for (let j = start + 1; j < end - 1; j++) if (b[j] === BACKSLASH) return JSON.parse(b.toString('utf8', start, end)) as string;
  return b.toString('utf8', start + 1, end - 1);
}

/** A member name written with escapes (rare: never in what kube writes) that is one of `only`'s once read. */
function escapedKnown<K extends string>(b: Buffer, start: number, end: number, only: KnownStrings<K>): K | undefined {
  for (let j = start + 1; j < end - 1; j++) {
    if (b[j] === BACKSLASH) {
      const text = Buffer.from(JSON.stringify(JSON.parse(b.toString('utf8', start, end)) as string), 'utf8');
      return only.match(text, 0, text.length);
    }
  }
  return undefined;
}

function keyText(b: Buffer, start: number, end: number): string {
  // Member names in Kubernetes JSON are ASCII without escapes; anything else takes the full rules.
  for (let j = start + 1; j < end - 1; j++) if (b[j] === BACKSLASH || b[j] > 0x7e) return JSON.parse(b.toString('utf8', start, end)) as string;
  return b.toString('latin1', start + 1, end - 1);
}
