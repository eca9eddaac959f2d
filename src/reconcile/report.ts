// What each key went through during a run of kwatch reconcile: the data of the --once report and the
// exit summary (rendered by src/render/reconcile-report.ts).
import type { TriggerReason } from './trigger.js';
import type { WriteOutcome } from './writes.js';

export type RunResult = 'ok' | 'requeue' | 'requeue-after' | 'error';

export interface KeyReport {
  controller: string;
  key: string;
  runs: number;
  /** Triggers merged into its runs, by reason text ("object updated": 3). */
  reasons: Record<string, number>;
  /** Writes made over all runs (no-op writes excluded). */
  writes: number;
  /** Writes the last run made that change something: pending when > 0 at the end. */
  lastWrites: number;
  result: RunResult;
  error?: string;
  /** Where the last run's error was thrown in the user's code (FILE:LINE). */
  errorAt?: string;
  durationMs: number;
}

export class RunReport {
  private readonly byKey = new Map<string, KeyReport>();
  runs = 0;
  private limit?: { max: number; reached: () => void; hit: boolean };

  /** Calls `reached` once, as soon as `max` runs have been reported (--max-reconciles). */
  limitRuns(max: number, reached: () => void): void {
    this.limit = { max, reached, hit: false };
    this.checkLimit();
  }

  get limited(): boolean {
    return this.limit?.hit ?? false;
  }

  private checkLimit(): void {
    const l = this.limit;
    if (!l || l.hit || this.runs < l.max) return;
    l.hit = true;
    l.reached();
  }

  add(controller: string, key: string, reasons: readonly TriggerReason[], writes: readonly WriteOutcome[], result: RunResult, durationMs: number, error?: string, errorAt?: string): void {
    this.runs++;
    const id = `${controller}\u0000${key}`;
    let r = this.byKey.get(id);
    if (!r) this.byKey.set(id, (r = { controller, key, runs: 0, reasons: {}, writes: 0, lastWrites: 0, result, durationMs: 0 }));
    r.runs++;
    for (const x of reasons) r.reasons[x.reason ?? x.op] = (r.reasons[x.reason ?? x.op] ?? 0) + 1;
    const changing = writes.filter((w) => !w.failed && w.changed.length > 0).length;
    r.writes += changing;
    r.lastWrites = changing;
    r.result = result;
    r.error = error;
    r.errorAt = errorAt;
    r.durationMs += durationMs;
    this.checkLimit();
  }

  rows(): KeyReport[] {
    return [...this.byKey.values()].sort((a, b) => a.controller.localeCompare(b.controller) || a.key.localeCompare(b.key));
  }

  /** Keys whose last run still wanted to change something. */
  pending(): KeyReport[] {
    return this.rows().filter((r) => r.lastWrites > 0);
  }

  failed(): KeyReport[] {
    return this.rows().filter((r) => r.result === 'error');
  }
}
