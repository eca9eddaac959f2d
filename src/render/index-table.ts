// Tables of `kwatch index`: one row per index value, totals, the live rows of --watch, and the --check report.
import type { IndexRow, IndexTotals } from '../informer/index-report.js';
import { byCountThenValue } from '../informer/index-report.js';
import { formatBytes, formatMs } from './format-units.js';

/** Keys shown per value without --show-keys. */
export const SAMPLE_KEYS = 3;

export interface IndexTable {
  headers: string[];
  cells: string[][];
}

/** An index value as a cell: the empty string is shown quoted so that it stays visible. */
export function valueCell(value: string): string {
  return value === '' ? '""' : value;
}

/** The first few keys and how many more, or all of them. */
export function keysCell(keys: readonly string[], all: boolean): string {
  if (all || keys.length <= SAMPLE_KEYS) return keys.join(',');
  return `${keys.slice(0, SAMPLE_KEYS).join(',')} +${keys.length - SAMPLE_KEYS} more`;
}

/** VALUE COUNT KEYS, with an INDEX column first when several indices are shown. */
export function indexTable(rows: readonly IndexRow[], opts: { showKeys: boolean; several: boolean }): IndexTable {
  const headers = [...(opts.several ? ['INDEX'] : []), 'VALUE', 'COUNT', 'KEYS'];
  const cells = rows.map((r) => [...(opts.several ? [r.index] : []), valueCell(r.value), String(r.count), keysCell(r.keys, opts.showKeys)]);
  return { headers, cells };
}

/** `nodeName: 30 objects under 4 values (1 under <none>); index built in 0.2ms, ~1.6kB`. */
export function totalsLine(t: IndexTotals, buildMs?: number): string {
  const keys = t.keys !== t.objects ? `, ${t.keys} keys` : '';
  const none = t.none > 0 ? ` (${t.none} under <none>)` : '';
  const built = buildMs === undefined ? '' : ` built in ${formatMs(buildMs)},`;
  return `${t.index}: ${t.objects} objects${keys} under ${t.values} ${t.values === 1 ? 'value' : 'values'}${none}; index${built} ~${formatBytes(t.approxBytes)}`;
}

/**
 * The rows of `--watch`: VALUE COUNT CHANGE, where CHANGE is the count's difference since the cache
 * synced. Values that emptied stay listed with count 0, so the live view can show them going away.
 */
export class IndexWatchRows {
  private readonly baseline = new Map<string, number>();
  private readonly seen = new Set<string>();

  constructor(
    private readonly counts: (index: string) => Map<string, number>,
    private readonly indices: readonly string[],
  ) {
    for (const index of indices) {
      for (const [value, n] of counts(index)) {
        this.baseline.set(rowId(index, value), n);
        this.seen.add(rowId(index, value));
      }
    }
  }

  get headers(): string[] {
    return [...(this.indices.length > 1 ? ['INDEX'] : []), 'VALUE', 'COUNT', 'CHANGE'];
  }

  /** Row identity for the live view's change highlighting (the cells before COUNT). */
  rowKey = (row: string[]): string => row.slice(0, this.indices.length > 1 ? 2 : 1).join(' ');

  rows(): string[][] {
    const out: string[][] = [];
    for (const index of this.indices) {
      const now = this.counts(index);
      for (const value of now.keys()) this.seen.add(rowId(index, value));
      const rows: { value: string; count: number }[] = [];
      for (const id of this.seen) {
        const [i, value] = splitRowId(id);
        if (i === index) rows.push({ value, count: now.get(value) ?? 0 });
      }
      rows.sort(byCountThenValue);
      for (const r of rows) {
        const delta = r.count - (this.baseline.get(rowId(index, r.value)) ?? 0);
        out.push([...(this.indices.length > 1 ? [index] : []), valueCell(r.value), String(r.count), delta === 0 ? '' : delta > 0 ? `+${delta}` : String(delta)]);
      }
    }
    return out;
  }
}

function rowId(index: string, value: string): string {
  return `${index}\u0000${value}`;
}

function splitRowId(id: string): [string, string] {
  const i = id.indexOf('\u0000');
  return [id.slice(0, i), id.slice(i + 1)];
}

/** What the --check report holds (kube/cache-check's CacheCheckReport, as this renderer reads it). */
export interface CheckReportView {
  consistency: 'exact' | 'latest';
  cacheResourceVersion: string;
  listResourceVersion: string;
  cached: number;
  listed: number;
  inSync: boolean;
  note?: string;
  missing: { key: string; rv: string }[];
  extra: { key: string; rv: string }[];
  stale: { key: string; cacheRv: string; serverRv: string }[];
  same: number;
}

/** The --check summary line, then (when they differ) one row per object: DIFF KEY CACHE-RV SERVER-RV. */
export function checkReportText(r: CheckReportView, resource: string): { summary: string; table?: IndexTable } {
  const at =
    r.consistency === 'exact'
      ? `cache at resourceVersion ${r.cacheResourceVersion}, LIST at the same resourceVersion (Exact)`
      : `cache at resourceVersion ${r.cacheResourceVersion || '<none>'}, newest LIST at ${r.listResourceVersion} (${r.note ?? 'not at the cache\'s resourceVersion'})`;
  const counts = `${r.cached} cached, ${r.listed} listed`;
  if (r.inSync) return { summary: `cache check ${resource}: in sync — ${counts}; ${at}` };
  const parts = [
    r.missing.length ? `${r.missing.length} missing` : '',
    r.extra.length ? `${r.extra.length} extra` : '',
    r.stale.length ? `${r.stale.length} stale` : '',
  ].filter(Boolean);
  const cells = [
    ...r.missing.map((e) => ['missing', e.key, '<none>', e.rv]),
    ...r.extra.map((e) => ['extra', e.key, e.rv, '<none>']),
    ...r.stale.map((e) => ['stale', e.key, e.cacheRv, e.serverRv]),
  ];
  return { summary: `cache check ${resource}: DIFFERS — ${parts.join(', ')} (${counts}); ${at}`, table: { headers: ['DIFF', 'KEY', 'CACHE RV', 'SERVER RV'], cells } };
}
