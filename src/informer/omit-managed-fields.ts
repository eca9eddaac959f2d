// Leaving metadata.managedFields out while decoding, for caches that strip them anyway (the default
// transform). managedFields are often half of an object's bytes; cutting them from the JSON text before
// JSON.parse saves parsing them, allocating thousands of small objects per event, and collecting them again.
// The result is exactly what parsing everything and then stripping gives.

import { endOfArray } from './json-scan/end-of-array.js';
import { wasmScanner } from './json-scan/wasm-scanner.js';

const KEY = Buffer.from('"managedFields":[');

/** JSON text with every `"managedFields":[…]` array replaced by `null`, and how many were replaced. */
export interface CutText {
  text: string;
  cuts: number;
  /** Every cut array was the last member of its object (`]` then `}`), as the apiserver writes ObjectMeta. */
  allLast: boolean;
}

/**
 * The text is assembled in a scratch buffer before its one decode: the WebAssembly scanner's memory, which it
 * scans in place. A larger text gets a buffer of its own (never kept) and the JavaScript scanner.
 */
const SCRATCH_MAX_BYTES = 1 << 20;
const NULL = Buffer.from('null');
const CLOSE_BRACE = 0x7d;

/**
 * Decodes UTF-8 JSON bytes to text with the value of every `managedFields` key whose value is an array of
 * 4 bytes or more replaced by `null` (the cut bytes are never decoded), up to `maxCuts` of them (the rest,
 * and arrays like `[]`, stay as they are: parsing them costs nothing and the cache's transform drops them).
 *
 * Sound on valid JSON: inside a JSON string every `"` is escaped, and the second quote of the pattern is
 * preceded by `s`, so a match is always a key named managedFields followed by an array. The caller still has
 * to check that each cut was a `metadata.managedFields` (see parseOmittingManagedFields). The cut points are
 * ASCII bytes, so no UTF-8 sequence is split. Returns undefined when there is nothing to cut or the text is
 * malformed (then JSON.parse of the whole reports it). `json` itself is never changed.
 *
 * The bytes are copied once and the kept ones moved together in place, then decoded in one go: JSON.parse
 * reads one flat string (not a rope of pieces it must first flatten), and no per-piece views are allocated.
 */
export function cutManagedFields(json: Buffer, maxCuts = Infinity): CutText | undefined {
  const n = json.length;
  const scanner = n <= SCRATCH_MAX_BYTES ? wasmScanner() : undefined;
  let out: Buffer;
  let at: number;
  if (scanner !== undefined) {
    // The WebAssembly search is about 3x Buffer.indexOf's speed here; it searches the copy, so the copy comes first.
    out = scanner.scratch(n);
    json.copy(out, 0);
    at = scanner.findManagedFields(0, n);
    if (at < 0) return undefined;
  } else {
    at = json.indexOf(KEY);
    if (at < 0) return undefined;
    out = Buffer.allocUnsafe(n);
    json.copy(out, 0);
  }
  // out[0, written) is the text so far; out[from, n) still holds json[from, n). A cut shrinks, so written <= from.
  let written = 0;
  let from = 0;
  let cuts = 0;
  let allLast = true;
  while (at >= 0) {
    const open = at + KEY.length - 1;
    // Scanning the copy: out[open, n) is still json[open, n), as every earlier write landed before `open`.
    const end = scanner !== undefined ? scanner.endOfArray(open, n) : endOfArray(json, open);
    if (end < 0) return undefined;
    if (end - open >= NULL.length) {
      if (written !== from) out.copyWithin(written, from, open);
      written += open - from;
      written += NULL.copy(out, written);
      from = end;
      // out[end] is still json[end], the byte after the array.
      if (end >= n || out[end] !== CLOSE_BRACE) allLast = false;
      if (++cuts >= maxCuts) break;
    }
    // out[end, n) is still json[end, n): search either.
    at = scanner !== undefined ? scanner.findManagedFields(end, n) : json.indexOf(KEY, end);
  }
  if (cuts === 0) return undefined;
  if (written !== from) out.copyWithin(written, from, n);
  written += n - from;
  return { text: out.toString('utf8', 0, written), cuts, allLast };
}

interface WithMetadata {
  metadata?: { managedFields?: unknown } | null;
}

/**
 * JSON.parse of UTF-8 `json` with metadata.managedFields left out of the objects `objectsOf` returns. When a
 * cut was not one of those objects' metadata.managedFields (a custom resource with its own managedFields
 * field), the whole text is parsed as it is, so nothing but metadata.managedFields is ever lost.
 */
export function parseOmittingManagedFields<T>(json: Buffer, objectsOf: (parsed: T) => Iterable<WithMetadata | undefined>, maxCuts = Infinity): T {
  return parseIfCutExact(json, objectsOf, maxCuts) ?? (JSON.parse(json.toString('utf8')) as T);
}

/**
 * JSON.parse with metadata.managedFields cut as parseOmittingManagedFields does; undefined (nothing parsed
 * whole) when some cut was not one of those objects' metadata.managedFields, so that the caller can decide.
 */
export function parseIfCutExact<T>(json: Buffer, objectsOf: (parsed: T) => Iterable<WithMetadata | undefined>, maxCuts = Infinity): T | undefined {
  const cut = cutManagedFields(json, maxCuts);
  if (cut === undefined) return JSON.parse(json.toString('utf8')) as T;
  const parsed = JSON.parse(cut.text) as T;
  let placeholders = 0;
  for (const obj of objectsOf(parsed)) {
    const meta = obj?.metadata;
    if (meta?.managedFields !== null) continue;
    placeholders++;
    // When every cut was its object's last member, so is each placeholder the count below matches to one.
    if (cut.allLast) delete meta.managedFields;
    else dropPlaceholder(obj!, meta);
  }
  return placeholders === cut.cuts ? parsed : undefined;
}

/**
 * Removes metadata's managedFields placeholder. The apiserver writes managedFields as ObjectMeta's last field,
 * and deleting an object's last-added property is V8's fast case (it steps back to the previous hidden class):
 * the object stays in fast mode, at a fraction of a copy's cost. Anywhere else, `delete` would push metadata into
 * slow dictionary mode, so it is copied without the key instead.
 */
function dropPlaceholder(obj: WithMetadata, meta: { managedFields?: unknown }): void {
  let last: string | undefined;
  for (const k in meta) last = k;
  if (last === 'managedFields') {
    delete meta.managedFields;
    return;
  }
  const { managedFields: _placeholder, ...rest } = meta;
  obj.metadata = rest;
}
