// Convergence: a key that keeps writing the same field, run after run, is looping. The detector follows
// each field a key's runs write: a field changed by N consecutive runs — whatever else was merged into
// those runs (another controller's status update, an outside edit) — is a loop, provided the key's own
// writes re-triggered it at least once in the streak (otherwise outside changes drive it, not the key).
import type { TriggerReason } from './trigger.js';
import type { WriteOutcome } from './writes.js';

export interface LoopFinding {
  controller: string;
  key: string;
  /** Runs in a row, after the first, that wrote the same fields again. */
  rounds: number;
  /** Field paths written on every round of the streak. */
  fields: string[];
  /**
   * Every looping field is one that leaves metadata.generation alone (status, labels, annotations), and the key's
   * object has a generation: GenerationChangedPredicate on the primary would have dropped the events that re-triggered
   * the key. Never said of a kind without one (a ConfigMap): the predicate would drop all of its updates.
   */
  generationChangedWouldBreak?: boolean;
}

interface FieldStreak {
  /** Consecutive runs of the key that changed this field. */
  runs: number;
  /** Of those, runs triggered (at least partly) by the key's own writes. */
  ownRuns: number;
}

interface KeyState {
  fields: Map<string, FieldStreak>;
  reported: boolean;
  /** A write of the key's own object showed it keeps metadata.generation. */
  generation: boolean;
}

export class LoopDetector {
  private readonly keys = new Map<string, KeyState>();
  readonly findings: LoopFinding[] = [];

  constructor(private readonly threshold: number) {}

  /** Records one finished run; returns a finding the first time one of its fields passes the threshold. */
  observe(controller: string, key: string, reasons: readonly TriggerReason[], writes: readonly WriteOutcome[]): LoopFinding | undefined {
    const id = `${controller}\u0000${key}`;
    const changed = new Set(writes.filter((w) => !w.failed).flatMap((w) => w.changed.map((p) => `${w.resource} ${w.target} ${p}`)));
    if (changed.size === 0) {
      this.keys.delete(id);
      return undefined;
    }
    const own = reasons.some((r) => r.own === true);
    let state = this.keys.get(id);
    if (!state) this.keys.set(id, (state = { fields: new Map(), reported: false, generation: false }));
    if (writes.some((w) => w.target === key && w.generation)) state.generation = true;
    for (const f of state.fields.keys()) if (!changed.has(f)) state.fields.delete(f);
    for (const f of changed) {
      const s = state.fields.get(f);
      // The run that starts a streak is not counted as re-triggered: it is the write the loop repeats.
      if (s) {
        s.runs++;
        if (own) s.ownRuns++;
      } else state.fields.set(f, { runs: 1, ownRuns: 0 });
    }
    if (state.reported) return undefined;
    const looping = [...state.fields].filter(([, s]) => s.runs - 1 > this.threshold && s.ownRuns > 0);
    if (looping.length === 0) return undefined;
    state.reported = true;
    const rounds = Math.min(...looping.map(([, s]) => s.runs - 1));
    const fields = looping.map(([f]) => f);
    const finding: LoopFinding = { controller, key, rounds, fields: fields.map((f) => shortField(f, key)) };
    if (state.generation && fields.every((f) => leavesGeneration(f, key))) finding.generationChangedWouldBreak = true;
    this.findings.push(finding);
    return finding;
  }
}

/** "deployments.apps default/web status.lastSeen" → "status.lastSeen" when the write targets the key itself. */
function shortField(f: string, key: string): string {
  const [resource, target, ...path] = f.split(' ');
  return target === key ? path.join(' ') : `${resource} ${target}: ${path.join(' ')}`;
}

/** A change of the key's own object the API server does not count as a new generation. */
function leavesGeneration(f: string, key: string): boolean {
  const [, target, ...rest] = f.split(' ');
  const path = rest.join(' ');
  return target === key && (path.startsWith('status.') || path === 'status' || path.startsWith('metadata.labels') || path.startsWith('metadata.annotations'));
}
