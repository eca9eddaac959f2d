// The --once report of kwatch reconcile (one row per key: runs, reasons, writes, result, duration), its
// verdict line, and the loop findings — as text for a terminal and as records for json/ndjson/yaml.
import type { LoopFinding } from '../reconcile/loop-detector.js';
import type { KeyReport } from '../reconcile/report.js';
import { reportTable } from './report-table.js';
import { formatMs } from './format-units.js';

export function reconcileReportTable(rows: readonly KeyReport[], several: boolean, opts: { color?: boolean } = {}): string {
  const headers = [...(several ? ['CONTROLLER'] : []), 'KEY', 'RUNS', 'REASONS', 'WRITES', 'RESULT', 'DURATION'];
  const cells = rows.map((r) => [
    ...(several ? [r.controller] : []),
    r.key,
    String(r.runs),
    Object.entries(r.reasons)
      .map(([reason, n]) => (n > 1 ? `${reason} ×${n}` : reason))
      .join(', '),
    r.lastWrites > 0 ? `${r.writes} (${r.lastWrites} pending)` : String(r.writes),
    r.result === 'error' && r.error ? `error${r.errorAt ? ` (${r.errorAt})` : ''}: ${oneLine(r.error)}` : r.result,
    formatMs(r.durationMs),
  ]);
  const right = several ? [2, 6] : [1, 5];
  return reportTable(headers, cells, { color: opts.color, alignRight: right });
}

/**
 * `converged: 12 keys, 14 runs, no write pending` / `not converged: 3 of 12 keys would still write …` /
 * `did not settle: stopped at --max-reconciles …`. `unsettled` says why the run was cut short.
 */
export function reconcileVerdict(rows: readonly KeyReport[], runs: number, o: { unsettled?: string; loops?: number } = {}): string {
  const pending = rows.filter((r) => r.lastWrites > 0).length;
  const failed = rows.filter((r) => r.result === 'error').length;
  const cut = o.unsettled ? ` (${o.unsettled})` : '';
  const total = `${rows.length} ${rows.length === 1 ? 'key' : 'keys'}`;
  const ran = `${runs} ${runs === 1 ? 'run' : 'runs'}`;
  const looped = o.loops ? `, ${o.loops} ${o.loops === 1 ? 'loop' : 'loops'} reported` : '';
  if (failed > 0) return `errors: ${failed} of ${total} ended in an error${pending ? `, ${pending} with writes pending` : ''} (${ran})${cut}`;
  if (o.unsettled) return `did not settle: ${o.unsettled}; ${pending} of ${total} would still write (${ran})${looped}`;
  if (pending > 0) return `not converged: ${pending} of ${total} would still write (${ran})${looped}`;
  if (o.loops) return `not converged: ${total}, ${ran}, no write pending${looped}`;
  return `converged: ${total}, ${ran}, no write pending`;
}

export function loopLine(f: LoopFinding): string {
  return `loop: ${f.controller} ${f.key} re-triggered itself with its own writes ${f.rounds} times in a row; changing every round: ${f.fields.join(', ') || '(nothing in common)'}${f.generationChangedWouldBreak ? '; GenerationChangedPredicate would have broken it (the re-triggering changes were status/metadata-only)' : ''}`;
}

/** One JSON record per key for machine outputs (stage reconcile, op converged | pending | failed). */
export function reportRecord(r: KeyReport, time: number): Record<string, unknown> {
  const op = r.result === 'error' ? 'failed' : r.lastWrites > 0 ? 'pending' : 'converged';
  return { time, stage: 'reconcile', op, key: r.key, controller: r.controller, runs: r.runs, reasons: r.reasons, writes: r.writes, pendingWrites: r.lastWrites, result: r.result, error: r.error, errorAt: r.errorAt, durationMs: r.durationMs };
}

function oneLine(s: string): string {
  const line = s.split('\n')[0];
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
