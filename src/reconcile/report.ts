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

/** A key's report as it is kept: the last run's writes are counted when read (see `add`). */
interface KeyEntry extends Omit<KeyReport, 'writes' | 'lastWrites'> {
  /** Changing writes of the runs before the last. */
  earlierWrites: number;
  /** The last run's writes: the run's own list, which a write it did not await still joins after the run returned. */
  last: readonly WriteOutcome[];
}

export class RunReport {
  private readonly byKey = new Map<string, KeyEntry>();
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

  /**
   * One run of a key. `writes` is kept, not copied: a reconcile that returns before its writes finish (a write
   * it did not await) must not pass for converged, so its writes count whenever they land.
   */
  add(controller: string, key: string, reasons: readonly TriggerReason[], writes: readonly WriteOutcome[], result: RunResult, durationMs: number, error?: string, errorAt?: string): void {
    this.runs++;
    const id = `${controller}\u0000${key}`;
    let r = this.byKey.get(id);
    if (!r) this.byKey.set(id, (r = { controller, key, runs: 0, reasons: {}, earlierWrites: 0, last: [], result, durationMs: 0 }));
    r.runs++;
    for (const x of reasons) r.reasons[x.reason ?? x.op] = (r.reasons[x.reason ?? x.op] ?? 0) + 1;
    r.earlierWrites += changing(r.last);
    r.last = writes;
    r.result = result;
    r.error = error;
    r.errorAt = errorAt;
    r.durationMs += durationMs;
    this.checkLimit();
  }

  rows(): KeyReport[] {
    return [...this.byKey.values()]
      .map(({ earlierWrites, last, ...r }) => {
        const lastWrites = changing(last);
        return { ...r, reasons: { ...r.reasons }, writes: earlierWrites + lastWrites, lastWrites };
      })
      .sort((a, b) => a.controller.localeCompare(b.controller) || a.key.localeCompare(b.key));
  }

  /** Keys whose last run still wanted to change something. */
  pending(): KeyReport[] {
    return this.rows().filter((r) => r.lastWrites > 0);
  }

  failed(): KeyReport[] {
    return this.rows().filter((r) => r.result === 'error');
  }

  /**
   * The --once verdict, worst first: a key whose last run failed; an --expect not met; then converged only when no
   * write is pending, no loop was reported and the run was not cut short (--max-reconciles, --settle-timeout, a
   * forced stop) — in every write mode.
   */
  verdict(o: { loops: number; unsettled: boolean; expectationsMissed: number }): OnceVerdict {
    if (this.failed().length > 0) return 'errors';
    if (o.expectationsMissed > 0) return 'expectations';
    return this.pending().length > 0 || o.loops > 0 || o.unsettled ? 'not-converged' : 'converged';
  }
}

export type OnceVerdict = 'converged' | 'not-converged' | 'errors' | 'expectations';

/** Writes that change something (failed and no-op writes excluded). */
function changing(writes: readonly WriteOutcome[]): number {
  return writes.filter((w) => !w.failed && w.changed.length > 0).length;
}
