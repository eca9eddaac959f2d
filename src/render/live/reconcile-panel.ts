// The reconcile panel of `kwatch reconcile --live`, from the trace alone (the reconcile pipeline does not
// know it is watched): keys running, held (triggered while running: they run once more after) and
// queued; runs, errors, requeues, run durations (p50/p99 of the last runs) and the loop detector's warnings; with
// the priority queue (--queue priority), the ready keys per priority, as controller-runtime's depth metric labels them.
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
  /** Priority queue only (its records carry `priority`): queue → key → priority, for keys ready to be handed out… */
  private readonly readyPriority = new Map<string, Map<string, number>>();
  /** …and for keys added again while running, ready once done (a `requeue` record). */
  private readonly pendingPriority = new Map<string, Map<string, number>>();

  /** A TraceListener. */
  readonly add = (r: TraceRecord): void => {
    if (r.stage === 'workqueue') {
      if (typeof r.controller === 'string' && typeof r.depth === 'number') this.depths.set(typeof r.queue === 'string' ? r.queue : r.controller, r.depth);
      if (typeof r.priority === 'number' || r.op === 'shutdown') this.trackPriority(r);
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

  /** Follows which keys wait ready at which priority, from the priority queue's add/dedup/get/requeue records. */
  private trackPriority(r: TraceRecord): void {
    const queue = String(r.queue ?? r.controller ?? '');
    const map = (m: Map<string, Map<string, number>>) => {
      let q = m.get(queue);
      if (!q) m.set(queue, (q = new Map()));
      return q;
    };
    const ready = map(this.readyPriority);
    const pending = map(this.pendingPriority);
    const key = String(r.key ?? '');
    const priority = r.priority as number;
    switch (r.op) {
      case 'add':
        if (r.processing === true) pending.set(key, priority);
        else ready.set(key, priority);
        break;
      case 'dedup':
        if (ready.has(key)) ready.set(key, priority);
        else if (pending.has(key)) pending.set(key, priority);
        break;
      case 'requeue':
        ready.set(key, pending.get(key) ?? priority);
        pending.delete(key);
        break;
      case 'get':
        ready.delete(key);
        break;
      case 'shutdown':
        ready.clear();
        pending.clear();
        break;
    }
  }

  /** Ready keys per priority over every priority queue, highest priority first; empty without one. */
  readyByPriority(): [priority: number, depth: number][] {
    const counts = new Map<number, number>();
    for (const q of this.readyPriority.values()) for (const p of q.values()) counts.set(p, (counts.get(p) ?? 0) + 1);
    return [...counts].filter(([, n]) => n > 0).sort((a, b) => b[0] - a[0]);
  }

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
    const byPriority = this.readyPriority.size > 0 ? this.readyByPriority() : undefined;
    return [
      `running ${this.running.size}  held ${this.held.size}  queued ${queued}   runs ${this.runs}  errors ${this.errors}  requeues ${this.requeues}   p50 ${pct(50)}  p99 ${pct(99)}`,
      ...(byPriority ? [`ready by priority  ${byPriority.length === 0 ? 'none' : byPriority.map(([p, n]) => `${p}=${n}`).join('  ')}`] : []),
      ...this.loops.map((l) => escapeForTerminal(l)),
    ];
  }
}
