// Serves LIST: resourceVersion/resourceVersionMatch semantics, consistent paging over snapshots, continue tokens, 410/504 answers,
// as a <Kind>List or — when the Accept asks for one (kubectl's human-readable output) — as a Table.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { groupVersion, type ResourceType } from './registry.js';
import type { ListOptions, ObjectFilter } from './list-options.js';
import { parseResourceVersion } from './list-options.js';
import type { ServerContext } from './server-context.js';
import { lowerBound, type Snapshot } from './store.js';
import { badRequest, expired, tooLargeResourceVersion } from './status.js';
import { sendJoined } from './respond.js';
import type { StoredObject } from './history.js';
import { tableRequest } from './table/negotiate.js';
import { printerFor } from './table/printers/index.js';
import { sendTableList } from './table/table.js';
import { listItemParts } from './typed-list-items.js';
import { servedView } from './events/served-view.js';

const CONTINUE_EXPIRED = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** One page of a list: the items plus the ListMeta fields. */
export interface ListPage {
  rv: number;
  items: StoredObject[];
  continue?: string;
  remainingItemCount?: number;
}

/** Answers a LIST: negotiates the output first (406 before any work, as kube), then reads the page and writes it. */
export async function handleList(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, type: ResourceType, namespace: string | undefined, opts: ListOptions, filter: ObjectFilter): Promise<void> {
  const table = tableRequest(req);
  // A type served from another's storage (events.k8s.io events) lists that storage, converting each item.
  const view = servedView(ctx.store.registry, type);
  const stored = view?.storage ?? type;
  const page = await readList(ctx, stored, namespace, opts, filter);
  if (!table) return sendListPage(res, type, view ? { ...page, items: page.items.map((o) => ({ ...o, json: view.json(o.json) }) as StoredObject) } : page);
  return sendTableList(res, printerFor(ctx.store, stored), table, page.items, { resourceVersion: String(page.rv), continue: page.continue, remainingItemCount: page.remainingItemCount });
}

/** Computes the page a LIST request gets (no I/O besides waiting for a future revision). Throws Status errors. */
export async function readList(ctx: ServerContext, type: ResourceType, namespace: string | undefined, opts: ListOptions, filter: ObjectFilter): Promise<ListPage> {
  const store = ctx.store;
  let rv: number;
  let start: string | undefined;
  let limit = opts.limit;
  if (opts.continue) {
    if (opts.resourceVersion !== '' && opts.resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    const point = decodeContinue(opts.continue);
    rv = point.rv === -1 ? store.currentRevision() : point.rv;
    if (rv < store.history.compactedRevision) throw expired(CONTINUE_EXPIRED, encodeContinue(-1, point.start));
    if (rv > store.currentRevision()) rv = store.currentRevision();
    start = point.start;
  } else {
    const requested = parseResourceVersion(opts.resourceVersion, false);
    const exact = opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === '' && limit > 0 && requested !== 0);
    if (opts.resourceVersion === '0') {
      // The watch cache serves RV=0 ("any") in full, ignoring limit.
      rv = store.currentRevision();
      limit = 0;
    } else if (requested === 0) {
      rv = store.currentRevision();
    } else {
      if (requested > store.currentRevision() && !(await store.waitForRevision(requested, ctx.tooLargeWaitMs))) {
        throw tooLargeResourceVersion(requested, store.currentRevision());
      }
      if (exact) {
        if (requested < store.history.compactedRevision) throw expired('The resourceVersion for the provided list is too old.');
        rv = requested;
      } else {
        rv = store.currentRevision();
      }
    }
  }
  return page(store.snapshot(type, rv), store.range.bind(store), namespace && type.namespaced ? namespace : undefined, start, limit, filter);
}

function page(snap: Snapshot, range: (keys: readonly string[], ns: string | undefined) => [number, number], namespace: string | undefined, start: string | undefined, limit: number, filter: ObjectFilter): ListPage {
  const prefix = namespace ? `${namespace}/` : '';
  let [from, to] = range(snap.keys, namespace);
  if (filter.name !== undefined) {
    // metadata.name narrows the range to one key (the registry does the same).
    const i = lowerBound(snap.keys, prefix + filter.name);
    if (snap.keys[i] !== prefix + filter.name || i < from || i >= to) return { rv: snap.rv, items: [] };
    from = i;
    to = i + 1;
  }
  if (start !== undefined) from = Math.max(from, lowerBound(snap.keys, `${prefix}${start}\u0000`));
  const items: StoredObject[] = [];
  let i = from;
  for (; i < to; i++) {
    if (limit > 0 && items.length >= limit) break;
    const o = snap.objects[i];
    if (filter.empty || filter.matches(o.meta)) items.push(o);
  }
  if (i >= to || items.length === 0) return { rv: snap.rv, items };
  // More keys remain; with selectors, look ahead so the last page isn't an empty one.
  if (!filter.empty) {
    let j = i;
    while (j < to && !filter.matches(snap.objects[j].meta)) j++;
    if (j >= to) return { rv: snap.rv, items };
  }
  const last = items[items.length - 1].key;
  return {
    rv: snap.rv, items,
    continue: encodeContinue(snap.rv, last.slice(prefix.length)),
    ...(filter.empty ? { remainingItemCount: to - i } : {}),
  };
}

/** Writes a list page as `<Kind>List` JSON, joining each object's pre-serialised JSON. */
export async function sendListPage(res: ServerResponse, type: ResourceType, p: ListPage): Promise<void> {
  let meta = `"resourceVersion":"${p.rv}"`;
  if (p.continue) meta += `,"continue":"${p.continue}"`;
  if (p.remainingItemCount !== undefined) meta += `,"remainingItemCount":${p.remainingItemCount}`;
  const head = `{"kind":"${type.listKind}","apiVersion":"${groupVersion(type)}","metadata":{${meta}},"items":[`;
  const item = listItemParts(type);
  await sendJoined(res, 200, head, p.items.map((o) => item.rest(o.json)), ']}', {}, item.open);
}
