// The reconcile panel of `kwatch reconcile --live`, from the trace alone (the reconcile pipeline does not
// know it is watched): keys running, held (triggered while running: they run once more after) and
// queued; runs, errors, requeues, run durations (p50/p99 of the last runs) and the loop detector's warnings.
import type { TraceRecord } from '../../informer/trace.js';
import { formatMs } from '../format-units.js';
import { loopLine } from '../reconcile-report.js';
import { escapeForTerminal } from '../terminal-escape.js';

/** Durations kept for the percentiles: the most recent runs. */
const DURATIONS = 1000;
/** Loop warnings shown: the newest. */
const LOOPS = 5;

export class ReconcileStats {
  private readonly running = new Set<string>();
  private readonly held = new Set<string>();
  private readonly depths = new Map<string, number>();
  private runs = 0;
  private errors = 0;
  private requeues = 0;
  private readonly durations: number[] = [];
  private nextDuration = 0;
  private readonly loops: string[] = [];

  /** A TraceListener. */
  readonly add = (r: TraceRecord): void => {
    if (r.stage === 'workqueue') {
      if (typeof r.controller === 'string' && typeof r.depth === 'number') this.depths.set(typeof r.queue === 'string' ? r.queue : r.controller, r.depth);
      return;
    }
    if (r.stage !== 'reconcile' || r.key === undefined) return;
    const id = `${String(r.controller ?? '')}\u0000${r.key}`;
    switch (r.op) {
      case 'start':
        this.runs++;
        this.running.add(id);
        this.held.delete(id);
        break;
      case 'held':
        this.held.add(id);
        break;
      case 'success':
      case 'error':
      case 'requeue-after':
        this.running.delete(id);
        if (r.op === 'error') this.errors++;
        if (r.op === 'requeue-after' || r.requeue === true || (r.op === 'error' && (r.policy === 'requeue-after' || typeof r.backoffMs === 'number'))) this.requeues++;
        if (typeof r.durationMs === 'number') this.duration(r.durationMs);
        break;
      case 'loop':
        this.loops.push(loopLine({ controller: String(r.controller ?? ''), key: r.key, rounds: typeof r.rounds === 'number' ? r.rounds : 0, fields: Array.isArray(r.fields) ? r.fields.map(String) : [] }));
        if (this.loops.length > LOOPS) this.loops.shift();
        break;
    }
  };

  private duration(ms: number): void {
    if (this.durations.length < DURATIONS) this.durations.push(ms);
    else this.durations[this.nextDuration] = ms;
    this.nextDuration = (this.nextDuration + 1) % DURATIONS;
  }

  /** The panel's lines: counts, then one line per loop warning. */
  lines(): string[] {
    let queued = 0;
    for (const d of this.depths.values()) queued += d;
    const sorted = [...this.durations].sort((a, b) => a - b);
    const pct = (p: number) => (sorted.length === 0 ? '-' : formatMs(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]));
    return [
      `running ${this.running.size}  held ${this.held.size}  queued ${queued}   runs ${this.runs}  errors ${this.errors}  requeues ${this.requeues}   p50 ${pct(50)}  p99 ${pct(99)}`,
      ...this.loops.map((l) => escapeForTerminal(l)),
    ];
  }
}
