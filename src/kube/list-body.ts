// Decoding a LIST body that may be larger than the longest string V8 can make (0x1fffffe8 characters, about
// 512 MiB). kube-apiserver's watch cache answers `resourceVersion=0` lists — the reflector's first list, as in
// client-go — in full, ignoring `limit`, so 100k realistic pods arrive as one ~650 MB body; JSON.parse of it as
// one string is impossible. Such bodies are split into their items at the byte level and each item parsed alone.
import { parseOmittingManagedFields } from '../informer/omit-managed-fields.js';
import type { KubeObject, ListPage } from '../informer/types.js';

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
  return parseListBodyByItems(buf, opts);
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
    : (start: number, end: number) => JSON.parse(buf.toString('utf8', start, end)) as unknown;
  const items: unknown[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let itemsKeyAt = -1; // the `"items"` key at depth 1 was just seen: the next `[` at depth 1 opens the array
  let arrayStart = -1;
  let arrayEnd = -1;
  let itemStart = -1;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
      continue;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        if (depth === 1 && arrayStart < 0) itemsKeyAt = i + ITEMS_KEY.length <= buf.length && buf.compare(ITEMS_KEY, 0, ITEMS_KEY.length, i, i + ITEMS_KEY.length) === 0 ? i : -1;
        break;
      case 0x5b: // [
        if (depth === 1 && itemsKeyAt >= 0 && arrayStart < 0) arrayStart = i;
        else if (depth === 2 && arrayStart >= 0 && arrayEnd < 0) itemStart = i;
        depth++;
        break;
      case 0x7b: // {
        if (depth === 2 && arrayStart >= 0 && arrayEnd < 0) itemStart = i;
        depth++;
        break;
      case 0x5d: // ]
      case 0x7d: // }
        depth--;
        if (arrayStart >= 0 && arrayEnd < 0) {
          if (depth === 2 && itemStart >= 0) {
            items.push(parseItem(itemStart, i + 1));
            itemStart = -1;
          } else if (depth === 1) arrayEnd = i;
        }
        break;
      case 0x2c: // ,
      case 0x3a: // :
        break;
      default:
        // A scalar item (never sent for objects) would be lost: refuse rather than drop it.
        if (depth === 2 && arrayStart >= 0 && arrayEnd < 0 && itemStart < 0 && c > 0x20) throw new SyntaxError(`unexpected scalar in the items array at byte ${i}`);
    }
  }
  if (inString || depth !== 0) throw new SyntaxError('Unexpected end of JSON input');
  if (arrayStart < 0 || arrayEnd < 0) return JSON.parse(buf.toString('utf8')) as ListPage; // no items array: small anyway, or a real error
  const page = JSON.parse(buf.toString('utf8', 0, arrayStart + 1) + buf.toString('utf8', arrayEnd)) as ListPage;
  page.items = items as ListPage['items'];
  return page;
}
