// `cause` ids as a filtered view prints them: a record's cause that --stages (or a command's default stages) leaves
// out of the output is replaced by the nearest causes the output does show, so that every id a printed `cause` names
// is a printed record (or one the run never traced), and `kwatch trace why` can walk the chain of the file.
// Say `--stages watch,handler`: the handler call's cause is the fifo pop, caused by the fifo delta, caused by the
// watch event; printed, the handler call names the watch event.
import type { TraceRecord } from '../informer/trace.js';

/** Hidden records remembered (oldest forgotten first): a cause is a record a few stages back, never far. */
const MAX_HIDDEN = 100_000;

export class ShownCauses {
  /** id of a record the view hides → the shown ids it stands for (its own causes, resolved the same way). */
  private readonly hidden = new Map<number, number[]>();

  /** A record the view does not print: remembered, so that a later record naming it names its causes instead. */
  hide(r: TraceRecord): void {
    if (typeof r.id !== 'number') return;
    this.hidden.set(r.id, Array.isArray(r.cause) ? this.resolve(r.cause as unknown[]) : []);
    if (this.hidden.size > MAX_HIDDEN) this.hidden.delete(this.hidden.keys().next().value!);
  }

  /** The record as printed: itself, or (only when a cause is hidden) a copy whose `cause` names shown records. */
  shown(r: TraceRecord): TraceRecord {
    if (this.hidden.size === 0 || !Array.isArray(r.cause)) return r;
    const cause = r.cause as unknown[];
    if (!cause.some((c) => typeof c === 'number' && this.hidden.has(c))) return r;
    const resolved = this.resolve(cause);
    // Caused only by hidden records that had no cause themselves: nothing shown caused it.
    return { ...r, cause: resolved.length ? resolved : undefined };
  }

  private resolve(cause: unknown[]): number[] {
    const out: number[] = [];
    for (const c of cause) {
      if (typeof c !== 'number') continue;
      const via = this.hidden.get(c);
      if (via === undefined) {
        if (!out.includes(c)) out.push(c);
      } else for (const v of via) if (!out.includes(v)) out.push(v);
    }
    return out;
  }
}
