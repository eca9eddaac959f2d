// The report of a controller run behind kwatch (`reconcile --exec`, `proxy`): one row per key it wrote (client, writes,
// fields written, result), the verdict line, and the per-client summary — as text and as records for machine outputs.
import type { WrittenKey } from '../endpoint/wire-trace.js';
import { reportTable } from './report-table.js';

export type KeyResult = 'converged' | 'pending' | 'loop' | 'failed';

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
    r.changing < r.writes ? `${r.writes} (${r.writes - r.changing} no-op)` : String(r.writes),
    fieldList([...r.fields]),
    r.result === 'failed' ? `failed: ${r.lastCode}${r.lastInjected ? ' (injected)' : ''}` : r.result === 'loop' && r.loop ? `loop (${r.loop.rounds} rounds)` : r.result,
  ]);
  return reportTable(headers, cells, { color: opts.color, alignRight: [several ? 3 : 2] });
}

/** One JSON record per key (stage endpoint, op converged | pending | loop | failed). */
export function execReportRecord(r: ExecReportRow, time: number): Record<string, unknown> {
  return { time, stage: 'endpoint', op: r.result, key: r.key, client: r.client, resource: r.resource, writes: r.writes, changingWrites: r.changing, fields: [...r.fields], lastCode: r.lastCode, ...(r.loop ? { loop: r.loop } : {}) };
}

function fieldList(fields: string[]): string {
  if (fields.length === 0) return '-';
  const shown = fields.slice(0, 4).join(', ');
  return fields.length > 4 ? `${shown} (+${fields.length - 4})` : shown;
}
