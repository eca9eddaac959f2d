// The human views of `kwatch list`: one row per page (or expired token) plus totals, and the
// paged-LIST-versus-watch-list comparison.
import type { FetchMeasurement } from '../kube/pipelines/compare-watch-list.js';
import { describeContinueToken } from '../kube/lister-watchers/continue-token.js';
import type { ExpiredContinue, PageRow, PagedListResult } from '../kube/lister-watchers/paged-list.js';
import { reportTable } from '../render/report-table.js';
import { formatBytes, formatMs } from '../render/format-units.js';

const NONE = '<none>';

/** PAGE ITEMS BYTES MS CONTINUE REMAINING, in request order, then a totals line. */
export function formatPageTable(result: Pick<PagedListResult, 'pages' | 'expired' | 'bytes' | 'ms' | 'resourceVersion' | 'consistent'>, itemCount: number, opts: { color?: boolean } = {}): string {
  const rows: { page: number; cells: string[] }[] = [
    ...result.pages.map((p) => ({ page: p.page, cells: pageCells(p) })),
    ...result.expired.map((e) => ({ page: e.page, cells: expiredCells(e) })),
  ].sort((a, b) => a.page - b.page);
  const table = reportTable(['PAGE', 'ITEMS', 'BYTES', 'MS', 'CONTINUE', 'REMAINING'], rows.map((r) => r.cells), { color: opts.color, alignRight: [0, 1, 2, 3, 5] });
  return `${table}${totalsLine(result, itemCount)}\n`;
}

function pageCells(p: PageRow): string[] {
  const cont = p.continue ? describeContinueToken(p.continue) : NONE;
  const note = p.after === 'restart' ? ' (restarted)' : p.after === 'inconsistent' ? ' (fresh token, inconsistent)' : '';
  return [String(p.page), String(p.items), formatBytes(p.bytes), formatMs(p.ms), cont + note, p.remainingItemCount === undefined ? NONE : String(p.remainingItemCount)];
}

function expiredCells(e: ExpiredContinue): string[] {
  const next = e.decision === 'restart' ? 'restarting from page 1' : e.decision === 'inconsistent' ? 'continuing with the fresh token' : 'stopping';
  return [String(e.page), '-', '-', '-', `410 Expired: ${describeContinueToken(e.token)} is too old; ${next}`, '-'];
}

function totalsLine(r: Pick<PagedListResult, 'pages' | 'bytes' | 'ms' | 'resourceVersion' | 'consistent' | 'expired'>, items: number): string {
  const pages = r.pages.length;
  const parts = [`${items} item${items === 1 ? '' : 's'} in ${pages} page${pages === 1 ? '' : 's'}`, formatBytes(r.bytes), formatMs(r.ms)];
  let line = `Total: ${parts.join(', ')}; resourceVersion ${r.resourceVersion || NONE}`;
  if (!r.consistent) line += ' (inconsistent: pages after the expired token were read at a later revision)';
  return line;
}

/** METHOD REQUESTS ITEMS BYTES TIME PEAK-HEAP for each fetch, then the ratios. */
export function formatComparison(rows: FetchMeasurement[], opts: { color?: boolean } = {}): string {
  const table = reportTable(
    ['METHOD', 'REQUESTS', 'ITEMS', 'BYTES', 'TIME', 'PEAK HEAP', 'RESOURCEVERSION'],
    rows.map((m) => [m.method, String(m.requests), String(m.items), formatBytes(m.bytes), formatMs(m.ms), `+${formatBytes(m.peakHeapBytes)}`, m.resourceVersion]),
    { color: opts.color, alignRight: [1, 2, 3, 4, 5] },
  );
  const [list, watch] = rows;
  if (!list || !watch) return table;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
  return `${table}watch-list / paged-list: time ${ratio(watch.ms, list.ms)}, bytes ${ratio(watch.bytes, list.bytes)}, peak heap ${ratio(watch.peakHeapBytes, list.peakHeapBytes)} (heap sampled every 1ms after a GC)\n`;
}
