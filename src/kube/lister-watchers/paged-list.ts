// A paged LIST as a debugging view: every page with its size, bytes, latency and continue token,
// and an explicit choice of what to do when a continue token expires mid-list.
import { performance } from 'node:perf_hooks';
import { isExpired, StatusError } from '../../informer/errors.js';
import type { KubeObject, ListerWatcher, ListOptions, Status } from '../../informer/types.js';
import { decodeContinueToken } from './continue-token.js';

/** What to do when the server answers a continue page with 410 Expired. */
export const ON_EXPIRED = ['restart', 'inconsistent', 'fail'] as const;
export type OnExpired = (typeof ON_EXPIRED)[number];

/** Restarts allowed before giving up (a cluster compacting faster than we can page would loop forever). */
export const MAX_RESTARTS = 3;

export interface PagedListOptions {
  /** `limit` of every request; 0 = one unpaged request. */
  pageSize: number;
  /** `resourceVersion` of the first request (continue pages never send one). */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Default 'fail'. */
  onExpired?: OnExpired;
  signal?: AbortSignal;
  /** Told about each page as it arrives (spinner progress). */
  onPage?(row: PageRow): void;
  /** Told when a continue token expired, before the decision is carried out. */
  onTokenExpired?(e: ExpiredContinue): void;
}

/** One row of the view: one request answered with a page. */
export interface PageRow {
  /** The request's number, 1-based over the whole run (failed requests and restarts keep counting). */
  page: number;
  items: number;
  bytes: number;
  ms: number;
  /** The continue token the page carried (raw); undefined on the last page. */
  continue?: string;
  remainingItemCount?: number;
  resourceVersion?: string;
  /** Set on the first page fetched after an expired token: how the list went on. */
  after?: 'restart' | 'inconsistent';
}

/** A continue token the server no longer honours (HTTP 410 Expired, API-SEMANTICS §1.7). */
export interface ExpiredContinue {
  /** The number of the request that failed (PageRow numbering). */
  page: number;
  /** The revision the list was pinned to (the first page's resourceVersion). */
  resourceVersion: string;
  /** The expired token, and the fresh one the server offered in the 410 Status (metadata.continue), if any. */
  token: string;
  freshToken?: string;
  status: Status;
  /** Items already received before the failure (dropped on restart). */
  itemsSoFar: number;
  decision: OnExpired;
}

export interface PagedListResult {
  pages: PageRow[];
  items: KubeObject[];
  kind?: string;
  apiVersion?: string;
  /** The list's resourceVersion: the first page's (the snapshot every page was read at). */
  resourceVersion: string;
  bytes: number;
  /** Wall time of the whole list, restarts included. */
  ms: number;
  expired: ExpiredContinue[];
  /** False when the rest of the list was read with a fresh token after an expiry (--on-expired inconsistent). */
  consistent: boolean;
}

/** Thrown for --on-expired fail (and when no other choice is possible); carries what happened. */
export class ContinueExpiredError extends Error {
  constructor(
    readonly expired: ExpiredContinue,
    readonly partial: PagedListResult,
  ) {
    super(`the continue token of request ${expired.page} expired (410 Expired): rerun with --on-expired restart or --on-expired inconsistent`);
    this.name = 'ContinueExpiredError';
  }
}

/**
 * Lists page by page until the server sends no continue token. Unlike client-go's pager (which
 * silently falls back to one unpaged list) an expired continue token is reported and handled as
 * `onExpired` says: start over, continue with the server's fresh token, or throw ContinueExpiredError.
 */
export async function pagedList(lw: ListerWatcher, opts: PagedListOptions): Promise<PagedListResult> {
  const onExpired = opts.onExpired ?? 'fail';
  const started = performance.now();
  const result: PagedListResult = { pages: [], items: [], resourceVersion: '', bytes: 0, ms: 0, expired: [], consistent: true };
  const first: ListOptions = {
    ...(opts.pageSize > 0 ? { limit: opts.pageSize } : {}),
    ...(opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {}),
    ...(opts.resourceVersionMatch ? { resourceVersionMatch: opts.resourceVersionMatch } : {}),
  };
  let request: ListOptions = first;
  let after: PageRow['after'];
  let restarts = 0;
  let requests = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    requests++;
    const t0 = performance.now();
    let page;
    try {
      page = await lw.list(request, opts.signal);
    } catch (err) {
      if (!request.continue || !isExpired(err)) throw err;
      const status = (err as StatusError).status;
      const freshToken = status.metadata?.continue || undefined;
      let decision = onExpired;
      if (decision === 'inconsistent' && !freshToken) decision = 'fail';
      if (decision === 'restart' && restarts >= MAX_RESTARTS) decision = 'fail';
      const e: ExpiredContinue = { page: requests, resourceVersion: result.resourceVersion, token: request.continue, freshToken, status, itemsSoFar: result.items.length, decision };
      result.expired.push(e);
      opts.onTokenExpired?.(e);
      if (decision === 'fail') {
        result.ms = performance.now() - started;
        throw new ContinueExpiredError(e, result);
      }
      if (decision === 'restart') {
        restarts++;
        result.items = [];
        result.resourceVersion = '';
        request = first;
      } else {
        result.consistent = false;
        request = { ...request, continue: freshToken };
      }
      after = decision;
      continue;
    }
    const row: PageRow = {
      page: requests,
      items: page.items.length,
      bytes: page.bytes ?? 0,
      ms: performance.now() - t0,
      continue: page.metadata.continue || undefined,
      remainingItemCount: page.metadata.remainingItemCount,
      resourceVersion: page.metadata.resourceVersion,
      ...(after ? { after } : {}),
    };
    after = undefined;
    result.pages.push(row);
    result.bytes += row.bytes;
    for (const item of page.items) result.items.push(item);
    if (!result.resourceVersion) result.resourceVersion = page.metadata.resourceVersion ?? '';
    result.kind = page.kind;
    result.apiVersion = page.apiVersion;
    opts.onPage?.(row);
    if (!row.continue) break;
    request = { ...(request.limit ? { limit: request.limit } : {}), continue: row.continue };
  }
  result.ms = performance.now() - started;
  return result;
}

/** What happened and what the choices are, in words (several lines, no trailing newline). */
export function explainExpiredContinue(e: ExpiredContinue): string {
  const decoded = decodeContinueToken(e.token);
  const pinned = decoded ? `resourceVersion ${decoded.rv}` : e.resourceVersion ? `resourceVersion ${e.resourceVersion}` : 'the first page\'s resourceVersion';
  const lines = [
    `The continue token sent with request ${e.page} has expired (HTTP ${e.status.code} ${e.status.reason ?? 'Expired'}).`,
    `Every page of a paged list is read from the same snapshot, ${pinned}; the server has since compacted its`,
    `history past that revision, so it can no longer serve the rest of that consistent list (${e.itemsSoFar} items were read).`,
    'The choices:',
    '  --on-expired restart       start a new list from page 1 (consistent, but everything is fetched again)',
    e.freshToken
      ? '  --on-expired inconsistent  go on with the fresh token the server sent in the 410; objects created, changed or\n' +
        '                             deleted since the first page may be missing or appear twice'
      : '  --on-expired inconsistent  not possible here: the server sent no fresh token with the 410',
    '  --on-expired fail          stop with an error (the default)',
    'client-go\'s pager, for comparison, silently falls back to one unpaged list.',
  ];
  return lines.join('\n');
}
