// The report of a controller run behind kwatch (`reconcile --exec`, `proxy`): one row per key it wrote (client, writes,
// fields written, result), the verdict line, and the per-client summary — as text and as records for machine outputs.
import type { WrittenKey } from '../endpoint/wire-trace.js';
import { reportTable } from './report-table.js';

export type KeyResult = 'converged' | 'pending' | 'loop' | 'failed' | 'stopped-while-writing' | 'fight' | 'periodic';

export interface ExecReportRow extends WrittenKey {
  result: KeyResult;
}

export function execReportTable(rows: readonly ExecReportRow[], opts: { color?: boolean } = {}): string {
  const several = new Set(rows.map((r) => r.client)).size > 1;
  const headers = [...(several ? ['CLIENT'] : []), 'RESOURCE', 'KEY', 'WRITES', 'FIELDS WRITTEN', 'RESULT'];
  const cells = rows.map((r) => [
    ...(several ? [r.client] : []),
    r.resource,
    r.key,
    writeCount(r),
    fieldList([...r.fields]),
    resultText(r),
  ]);
  return reportTable(headers, cells, { color: opts.color, alignRight: [several ? 3 : 2] });
}

/** One JSON record per key (stage endpoint, op converged | pending | loop | failed | stopped-while-writing | fight | periodic). */
export function execReportRecord(r: ExecReportRow, time: number): Record<string, unknown> {
  return {
    time, stage: 'endpoint', op: r.result, key: r.key, client: r.client, resource: r.resource, writes: r.writes, changingWrites: r.changing, fields: [...r.fields], lastCode: r.lastCode,
    ...(r.lastReason ? { lastReason: r.lastReason } : {}),
    ...(r.failedWrites ? { failedWrites: r.failedWrites } : {}), ...(r.loop ? { loop: r.loop } : {}), ...(r.periodic ? { everyMs: r.periodic.everyMs } : {}),
  };
}

/**
 * The last record of a --once run in a machine output: the verdict a CI step acts on, as the exit code and the last
 * stderr line give it (stage endpoint, op verdict). `settled` is what ended the run (quiet, max-wait, loop, exited,
 * stopped); absent when the run failed before it was judged.
 */
export function execVerdictRecord(v: { code: number; line: string; settled?: string; mode: string }, names: Readonly<Record<number, string>>, time: number): Record<string, unknown> {
  return { time, stage: 'endpoint', op: 'verdict', key: null, verdict: names[v.code] ?? 'not-started', exit: v.code, ...(v.settled ? { settled: v.settled } : {}), mode: v.mode, message: v.line };
}

/** "3", "3 (1 no-op)", "3 (1 failed)": a refused write changed nothing, but it is no no-op. */
function writeCount(r: ExecReportRow): string {
  const noop = r.writes - r.changing - r.failedWrites;
  const parts = [...(r.failedWrites ? [`${r.failedWrites} failed`] : []), ...(noop > 0 ? [`${noop} no-op`] : [])];
  return parts.length ? `${r.writes} (${parts.join(', ')})` : String(r.writes);
}

function resultText(r: ExecReportRow): string {
  if (r.result === 'failed') return `failed: ${r.lastCode}${r.lastInjected ? ' (injected)' : r.lastReason ? ` ${r.lastReason}` : ''}`;
  if (r.result === 'loop' && r.loop) return `loop (${r.loop.rounds} rounds)`;
  if (r.result === 'periodic' && r.periodic) return `periodic (every ~${Math.round(r.periodic.everyMs / 100) / 10} s)`;
  if (r.result === 'stopped-while-writing') return 'stopped while writing';
  return r.result;
}

function fieldList(fields: string[]): string {
  if (fields.length === 0) return '-';
  const shown = fields.slice(0, 4).join(', ');
  return fields.length > 4 ? `${shown} (+${fields.length - 4})` : shown;
}
