// Leaving metadata.managedFields out while decoding, for caches that strip them anyway (the default
// transform). managedFields are often half of an object's bytes; cutting them from the JSON text before
// JSON.parse saves parsing them, allocating thousands of small objects per event, and collecting them again.
// The result is exactly what parsing everything and then stripping gives.

const KEY = Buffer.from('"managedFields":[');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** JSON text with every `"managedFields":[…]` array replaced by `null`, and how many were replaced. */
export interface CutText {
  text: string;
  cuts: number;
}

/**
 * Decodes UTF-8 JSON bytes to text with the value of every `managedFields` key whose value is an array
 * replaced by `null` (the cut bytes are never decoded).
 *
 * Sound on valid JSON: inside a JSON string every `"` is escaped, and the second quote of the pattern is
 * preceded by `s`, so a match is always a key named managedFields followed by an array. The caller still has
 * to check that each cut was a `metadata.managedFields` (see parseOmittingManagedFields). The cut points are
 * ASCII bytes, so no UTF-8 sequence is split. Returns undefined when there is nothing to cut or the text is
 * malformed (then JSON.parse of the whole reports it).
 */
export function cutManagedFields(json: Buffer): CutText | undefined {
  let at = json.indexOf(KEY);
  if (at < 0) return undefined;
  let text = '';
  let from = 0;
  let cuts = 0;
  while (at >= 0) {
    const open = at + KEY.length - 1;
    const end = endOfArray(json, open);
    if (end < 0) return undefined;
    text += json.toString('utf8', from, open) + 'null';
    from = end;
    cuts++;
    at = json.indexOf(KEY, end);
  }
  return { text: text + json.toString('utf8', from), cuts };
}

/** The index just past the `]` that closes the array opening at `open`; -1 when the bytes end first. */
function endOfArray(json: Buffer, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      if (c === BACKSLASH) i++; // skip the escaped character (multi-byte UTF-8 never contains `"` or `\`)
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

interface WithMetadata {
  metadata?: { managedFields?: unknown } | null;
}

/**
 * JSON.parse of UTF-8 `json` with metadata.managedFields left out of the objects `objectsOf` returns. When a
 * cut was not one of those objects' metadata.managedFields (a custom resource with its own managedFields
 * field), the whole text is parsed as it is, so nothing but metadata.managedFields is ever lost.
 */
export function parseOmittingManagedFields<T>(json: Buffer, objectsOf: (parsed: T) => Iterable<WithMetadata | undefined>): T {
  return parseIfCutExact(json, objectsOf) ?? (JSON.parse(json.toString('utf8')) as T);
}

/**
 * JSON.parse with metadata.managedFields cut as parseOmittingManagedFields does; undefined (nothing parsed
 * whole) when some cut was not one of those objects' metadata.managedFields, so that the caller can decide.
 */
export function parseIfCutExact<T>(json: Buffer, objectsOf: (parsed: T) => Iterable<WithMetadata | undefined>): T | undefined {
  const cut = cutManagedFields(json);
  if (cut === undefined) return JSON.parse(json.toString('utf8')) as T;
  const parsed = JSON.parse(cut.text) as T;
  let placeholders = 0;
  for (const obj of objectsOf(parsed)) {
    const meta = obj?.metadata;
    if (meta?.managedFields !== null) continue;
    placeholders++;
    // A copy without the key, not `delete` (which would push the object into V8's slow dictionary mode).
    const { managedFields: _placeholder, ...rest } = meta;
    obj!.metadata = rest;
  }
  return placeholders === cut.cuts ? parsed : undefined;
}
