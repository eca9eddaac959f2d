// Convergence: a key whose own writes keep triggering it, run after run, is looping. The detector names
// the fields that changed on every round of the streak (a timestamp in status, a counter, a hash).
import type { TriggerReason } from './trigger.js';
import type { WriteOutcome } from './writes.js';

export interface LoopFinding {
  controller: string;
  key: string;
  /** Runs in a row that were triggered by the key's own writes and wrote again. */
  rounds: number;
  /** Field paths written on every round of the streak. */
  fields: string[];
}

interface Streak {
  rounds: number;
  fields: Set<string>;
  reported: boolean;
}

export class LoopDetector {
  private readonly streaks = new Map<string, Streak>();
  readonly findings: LoopFinding[] = [];

  constructor(private readonly threshold: number) {}

  /** Records one finished run; returns a finding the first time its streak passes the threshold. */
  observe(controller: string, key: string, reasons: readonly TriggerReason[], writes: readonly WriteOutcome[]): LoopFinding | undefined {
    const id = `${controller}\u0000${key}`;
    const changed = writes.filter((w) => !w.failed).flatMap((w) => w.changed.map((p) => `${w.resource} ${w.target} ${p}`));
    if (changed.length === 0) {
      this.streaks.delete(id);
      return undefined;
    }
    const selfTriggered = reasons.length > 0 && reasons.every((r) => r.own === true);
    const streak = this.streaks.get(id);
    if (!selfTriggered || !streak) {
      this.streaks.set(id, { rounds: 0, fields: new Set(changed), reported: false });
      return undefined;
    }
    streak.rounds++;
    // The write that started the streak may differ (it created the field); the loop is what repeats after it.
    if (streak.rounds === 1) streak.fields = new Set(changed);
    else for (const f of streak.fields) if (!changed.includes(f)) streak.fields.delete(f);
    if (streak.rounds > this.threshold && !streak.reported) {
      streak.reported = true;
      const finding = { controller, key, rounds: streak.rounds, fields: [...streak.fields].map((f) => shortField(f, key)) };
      this.findings.push(finding);
      return finding;
    }
    return undefined;
  }
}

/** "deployments.apps default/web status.lastSeen" → "status.lastSeen" when the write targets the key itself. */
function shortField(f: string, key: string): string {
  const [resource, target, ...path] = f.split(' ');
  return target === key ? path.join(' ') : `${resource} ${target}: ${path.join(' ')}`;
}
