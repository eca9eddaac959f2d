// Decoding a LIST body that may be larger than the longest string V8 can make (0x1fffffe8 characters, about
// 512 MiB). kube-apiserver's watch cache answers `resourceVersion=0` lists — the reflector's first list, as in
// client-go — in full, ignoring `limit`, so 100k realistic pods arrive as one ~650 MB body; JSON.parse of it as
// one string is impossible. Such bodies are cut into runs of whole items, each parsed as one array; when the cut
// points cannot be trusted, a byte scanner splits the body into its items and each item is parsed alone.
import { parseOmittingManagedFields } from '../../informer/omit-managed-fields.js';
import type { KubeObject, ListPage } from '../../informer/types.js';

export interface ParseListOptions {
  /** Leave metadata.managedFields out of the items (for caches that strip them anyway). */
  omitManagedFields?: boolean;
}

/** Bodies up to this size are parsed in one piece (fastest); larger ones item by item. */
export const WHOLE_PARSE_MAX_BYTES = 256 * 1024 * 1024;

const pageItems = (page: ListPage) => (Array.isArray(page?.items) ? page.items : []);

export function parseListBody(buf: Buffer, opts: ParseListOptions = {}): ListPage {
  if (buf.length <= WHOLE_PARSE_MAX_BYTES) {
    return opts.omitManagedFields ? parseOmittingManagedFields(buf, pageItems) : (JSON.parse(buf.toString('utf8')) as ListPage);
  }
  return parseListBodyInChunks(buf, opts);
}

/** A run of items parsed in one JSON.parse when the body is cut into chunks (see parseListBodyInChunks). */
const CHUNK_BYTES = 32 * 1024 * 1024;
const WHITESPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);

/**
 * Parses a large `{…, "items": [ {…}, … ]}` body by cutting its items array into runs of about `chunkBytes`
 * and parsing each run as one array — nearly as fast as one JSON.parse. A cut is made just before a `,{"k":`
 * where `"k":` is the first key of the first item (items of one list share their key order); such a byte
 * sequence can never lie inside a string, but it can lie inside an item (a nested array of objects). Then both
 * runs around the cut are unbalanced and JSON.parse fails — and the whole body is parsed by the byte scanner of
 * parseListBodyByItems instead, which is exact. Bodies whose items array is not last also go to the scanner.
 */
export function parseListBodyInChunks(buf: Buffer, opts: ParseListOptions & { chunkBytes?: number } = {}): ListPage {
  const open = itemsArrayStart(buf);
  const close = open < 0 ? -1 : itemsArrayEndIfLast(buf);
  if (open < 0 || close <= open) return parseListBodyByItems(buf, opts);
  const chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
  const items: KubeObject[] = [];
  let from = skipWhitespace(buf, open + 1);
  if (from < close) {
    const keyEnd = buf.indexOf(0x3a, from); // the ':' after the first item's first key
    if (buf[from] !== 0x7b || keyEnd < 0 || keyEnd >= close) return parseListBodyByItems(buf, opts);
    const boundary = Buffer.concat([Buffer.from(','), buf.subarray(from, keyEnd + 1)]);
    while (from < close) {
      let to = close; // exclusive: the run is buf[from, to)
      if (close - from > chunkBytes) {
        const at = buf.indexOf(boundary, from + chunkBytes);
        if (at >= 0 && at < close) to = at;
      }
      const run = parseRun(buf.subarray(from, to), opts);
      if (run === undefined) return parseListBodyByItems(buf, opts);
      for (const item of run) items.push(item);
      from = to + 1; // past the ','
    }
  }
  const page = JSON.parse(buf.toString('utf8', 0, open + 1) + buf.toString('utf8', close)) as ListPage;
  page.items = items;
  return page;
}

/** `[` + run + `]` parsed; undefined when the run is not a sequence of whole items. */
function parseRun(run: Buffer, opts: ParseListOptions): KubeObject[] | undefined {
  try {
    const bytes = Buffer.concat([Buffer.from('['), run, Buffer.from(']')]);
    const parsed = opts.omitManagedFields ? parseOmittingManagedFields<unknown>(bytes, (a) => (Array.isArray(a) ? (a as KubeObject[]) : [])) : (JSON.parse(bytes.toString('utf8')) as unknown);
    return Array.isArray(parsed) ? (parsed as KubeObject[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The index of the `[` opening the top-level `items` array, scanning only what comes before it; -1 if none. */
function itemsArrayStart(buf: Buffer): number {
  let itemsKey = false;
  let found = -1;
  scanJson(buf, 0, 0, (c, i, depth) => {
    if (c === QUOTE) {
      if (depth === 1) itemsKey = buf.compare(ITEMS_KEY, 0, ITEMS_KEY.length, i, Math.min(i + ITEMS_KEY.length, buf.length)) === 0;
    } else if (c === 0x5b && depth === 1 && itemsKey) {
      found = i;
      return true;
    }
    return false;
  });
  return found;
}

/**
 * Walks JSON bytes from `from` (at nesting `depth`), skipping string contents (UTF-8 continuation bytes are
 * never `"` or `\`), and calls `visit` for each byte outside strings — an opening quote included — with the
 * depth before it; `{`/`[` deepen after the call, `}`/`]` shallow before it. Stops when `visit` returns true
 * (returning that index); returns -1 at the end of the bytes, or -2 if they end inside a string.
 */
function scanJson(buf: Buffer, from: number, depth: number, visit: (c: number, i: number, depth: number) => boolean): number {
  let inString = false;
  let escaped = false;
  for (let i = from; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === 0x7d || c === 0x5d) depth--;
    if (visit(c, i, depth)) return i;
    if (c === QUOTE) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
  }
  return inString ? -2 : -1;
}

/** The index of the `]` closing the items array when the body ends with `]}` (items last, as the API server writes it); else -1. */
function itemsArrayEndIfLast(buf: Buffer): number {
  let i = buf.length - 1;
  while (i >= 0 && WHITESPACE.has(buf[i])) i--;
  if (buf[i] !== 0x7d) return -1;
  i--;
  while (i >= 0 && WHITESPACE.has(buf[i])) i--;
  return buf[i] === 0x5d ? i : -1;
}

function skipWhitespace(buf: Buffer, i: number): number {
  while (i < buf.length && WHITESPACE.has(buf[i])) i++;
  return i;
}

const itself = (obj: KubeObject) => [obj];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ITEMS_KEY = Buffer.from('"items"');

/**
 * Parses a `{…, "items": [ {…}, … ], …}` body without ever making one string of it: a byte scanner (tracking
 * strings and escapes; UTF-8 continuation bytes are never `"` or `\`) finds the top-level `items` array, each
 * element is parsed from its own slice, and the envelope is parsed with an empty items array.
 */
export function parseListBodyByItems(buf: Buffer, opts: ParseListOptions = {}): ListPage {
  const parseItem = opts.omitManagedFields
    ? (start: number, end: number) => parseOmittingManagedFields<KubeObject>(buf.subarray(start, end), itself)
    : (start: number, end: number) => JSON.parse(buf.toString('utf8', start, end)) as KubeObject;
  const arrayStart = itemsArrayStart(buf);
  if (arrayStart < 0) return JSON.parse(buf.toString('utf8')) as ListPage; // no items array: small anyway, or a real error
  const items: KubeObject[] = [];
  let itemStart = -1;
  // Inside the array: items open and close at depth 2; the array closes back to depth 1.
  const arrayEnd = scanJson(buf, arrayStart + 1, 2, (c, i, depth) => {
    if (depth === 1) return true;
    if (depth !== 2) return false;
    if (c === 0x7b || c === 0x5b) itemStart = i;
    else if ((c === 0x7d || c === 0x5d) && itemStart >= 0) {
      items.push(parseItem(itemStart, i + 1));
      itemStart = -1;
    } else if (c > 0x20 && c !== 0x2c) {
      // A scalar or string item (never sent for objects) would be lost: refuse rather than drop it.
      throw new SyntaxError(`unexpected scalar in the items array at byte ${i}`);
    }
    return false;
  });
  if (arrayEnd < 0) throw new SyntaxError('Unexpected end of JSON input');
  // The envelope around the array (validated by this parse, the items by theirs).
  const page = JSON.parse(buf.toString('utf8', 0, arrayStart + 1) + buf.toString('utf8', arrayEnd)) as ListPage;
  page.items = items;
  return page;
}
