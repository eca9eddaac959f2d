// Pager: a paged LIST that follows `continue` tokens and falls back to one full list when a token expires (client-go tools/pager).
import { realClock, type Clock } from './clock.js';
import { StatusError } from './errors.js';
import { clampedRetryAfterMs, MAX_RETRY_AFTER_RETRIES, retryAfterMs } from './retry-after.js';
import { noTracer, type Tracer } from './trace.js';
import type { KubeObject, ListOptions, ListPage, ListerWatcher } from './types.js';

/** client-go's pager `defaultPageSize`. */
export const DEFAULT_PAGE_SIZE = 500;

export interface ListPagesOptions {
  /** `limit` of every request when `options.limit` is not set; 0 sends unpaged requests. Default 500. */
  pageSize?: number;
  signal?: AbortSignal;
  /** Told about every page as it arrives (the `kwatch list` view). */
  onPage?(page: ListPageInfo): void;
  tracer?: Tracer;
  clock?: Clock;
  /** Reflector name put on trace records. */
  name?: string;
  /** client-go's FullListIfExpired (default true): an Expired continue page triggers one unpaged list. */
  fullListIfExpired?: boolean;
  /**
   * Applied to every item as its page arrives (the informer's transform), so a long paged list never
   * holds what the cache will drop (managedFields) for more than one page.
   */
  transformItem?: (obj: KubeObject) => KubeObject;
}

/** What one page looked like; also the detail of the `list-page` trace record. */
export interface ListPageInfo {
  /** 1-based; the full-list fallback counts as a page too. */
  page: number;
  items: number;
  bytes?: number;
  /** True when the page carried a continue token. */
  continue: boolean;
  remainingItemCount?: number;
  resourceVersion?: string;
  ms: number;
}

export interface ListPagesResult {
  /** Every item of every page, in order. */
  items: KubeObject[];
  /** The first page's resourceVersion (all pages of one list share it), or the full-list fallback's. */
  resourceVersion: string;
  kind?: string;
  apiVersion?: string;
  /** Requests answered with a list (including the full-list fallback). */
  pages: number;
  /** client-go's paginatedResult: a continue token was followed at least once. */
  paginatedResult: boolean;
  /** True when an expired continue token made the pager fetch everything in one unpaged request. */
  fullListFallback: boolean;
  /** Sum of the pages' `bytes` where the ListerWatcher reported them. */
  bytes: number;
  /** Requests repeated after a Retry-After answer. */
  retries: number;
}

/**
 * Lists everything matching `options`, page by page. Continue pages send only `continue` and `limit`
 * (resourceVersion and resourceVersionMatch cleared, as the server rejects them with a token). On an
 * `Expired` answer to a continue page it issues one full list with limit and continue cleared and the
 * original resourceVersion/resourceVersionMatch restored, and returns that. Any other error propagates,
 * after client-go's Retry-After retries (429/5xx with a Retry-After header, at most 10 per request).
 */
export async function listPages(lw: ListerWatcher, options: ListOptions, opts: ListPagesOptions = {}): Promise<ListPagesResult> {
  const clock = opts.clock ?? realClock;
  const tracer = opts.tracer ?? noTracer;
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  const fullListIfExpired = opts.fullListIfExpired ?? true;
  const signal = opts.signal;

  const request: ListOptions = { ...options };
  if (!request.limit && pageSize > 0) request.limit = pageSize;
  const requestedResourceVersion = options.resourceVersion;
  const requestedResourceVersionMatch = options.resourceVersionMatch;

  const result: ListPagesResult = { items: [], resourceVersion: '', pages: 0, paginatedResult: false, fullListFallback: false, bytes: 0, retries: 0 };
  let assembled: KubeObject[] | undefined;

  const fetch = async (o: ListOptions): Promise<ListPage> => {
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const started = clock.now();
      try {
        const page = await lw.list(o, signal);
        observe(page, clock.now() - started);
        return page;
      } catch (err) {
        const wait = retryAfterMs(err);
        if (wait === undefined || attempt > MAX_RETRY_AFTER_RETRIES || signal?.aborted) throw err;
        result.retries++;
        if (tracer.enabled) {
          const asked = clampedRetryAfterMs(err);
          tracer.emit({ time: clock.now(), stage: 'reflector', op: 'retry-after', name: opts.name, during: 'list', seconds: wait / 1000, attempt, code: (err as StatusError).httpCode, ...(asked !== undefined ? { requestedSeconds: asked / 1000, capped: true } : {}) });
        }
        await clock.sleep(wait, signal);
      }
    }
  };

  const observe = (page: ListPage, ms: number): void => {
    result.pages++;
    if (page.bytes !== undefined) result.bytes += page.bytes;
    if (!opts.onPage && !tracer.enabled) return;
    const info: ListPageInfo = {
      page: result.pages,
      items: page.items?.length ?? 0,
      bytes: page.bytes,
      continue: !!page.metadata?.continue,
      remainingItemCount: page.metadata?.remainingItemCount,
      resourceVersion: page.metadata?.resourceVersion,
      ms,
    };
    opts.onPage?.(info);
    if (tracer.enabled) tracer.emit({ time: clock.now(), stage: 'reflector', op: 'list-page', name: opts.name, rv: info.resourceVersion, ...info });
  };

  const transformItem = opts.transformItem;
  const transformAll = (items: KubeObject[]): KubeObject[] => (transformItem ? items.map((o) => transformItem(o)) : items);
  const finish = (page: ListPage, items: KubeObject[], rv: string | undefined): ListPagesResult => {
    result.items = items;
    result.resourceVersion = rv ?? '';
    result.kind = page.kind;
    result.apiVersion = page.apiVersion;
    return result;
  };

  for (;;) {
    let page: ListPage;
    try {
      page = await fetch(request);
    } catch (err) {
      if (!isResourceExpired(err) || !fullListIfExpired || !request.continue) throw err;
      // The snapshot the first page pinned was compacted away: fetch everything at once instead.
      result.fullListFallback = true;
      if (tracer.enabled) {
        tracer.emit({ time: clock.now(), stage: 'reflector', op: 'fallback', name: opts.name, to: 'full-list', reason: 'continue token expired', error: (err as Error).message });
      }
      const full: ListOptions = { ...request, resourceVersion: requestedResourceVersion, resourceVersionMatch: requestedResourceVersionMatch };
      delete full.limit;
      delete full.continue;
      if (full.resourceVersion === undefined) delete full.resourceVersion;
      if (full.resourceVersionMatch === undefined) delete full.resourceVersionMatch;
      const fullPage = await fetch(full);
      return finish(fullPage, transformAll(fullPage.items ?? []), fullPage.metadata?.resourceVersion);
    }
    const items = transformAll(page.items ?? []);
    const token = page.metadata?.continue;
    if (!token && assembled === undefined) return finish(page, items, page.metadata?.resourceVersion);
    if (assembled === undefined) {
      assembled = [];
      result.resourceVersion = page.metadata?.resourceVersion ?? '';
    }
    for (let i = 0; i < items.length; i++) assembled.push(items[i]);
    if (!token) return finish(page, assembled, result.resourceVersion);
    request.continue = token;
    delete request.resourceVersion;
    delete request.resourceVersionMatch;
    result.paginatedResult = true;
  }
}

/** client-go's errors.IsResourceExpired: reason Expired only (the pager does not check Gone). */
function isResourceExpired(err: unknown): boolean {
  return err instanceof StatusError && err.reason === 'Expired';
}
