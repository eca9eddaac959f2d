// The dashboard's "recent activity" pane: the last trace records of every stage, kept unformatted, and
// printed on demand with the trace table's own columns: those --stages selects (keys 1–8 hide or show a
// stage), filtered by `/` text.
import { STAGES, type Stage, type TraceRecord } from '../../informer/trace.js';
import { DEFAULT_STAGES, stageFilter, type StageSelection } from '../stage-filter.js';
import { createTracePrinter } from '../trace-printer.js';

export interface ActivityLogOptions {
  /** Records kept; default 2000. */
  capacity?: number;
  stages?: StageSelection;
  /** The stages shown when `stages` is not given (kwatch reconcile's differ). */
  defaultStages?: ReadonlySet<Stage>;
}

export interface ActivityView {
  header: string;
  lines: string[];
  /** The records of `lines`, same order. */
  records: TraceRecord[];
}

/**
 * A filter as typed after `/`: space-separated terms that must all match. `stage=watch` and
 * `op=MODIFIED` match those fields exactly; any other term is a substring of the key.
 */
export function parseActivityFilter(text: string): (r: TraceRecord) => boolean {
  const tests = text
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((term): ((r: TraceRecord) => boolean) => {
      if (term.startsWith('stage=')) return (r) => r.stage === term.slice(6);
      if (term.startsWith('op=')) return (r) => r.op === term.slice(3);
      return (r) => (r.key ?? '').includes(term);
    });
  return (r) => tests.every((t) => t(r));
}

export class ActivityLog {
  private readonly ring: TraceRecord[] = [];
  private next = 0;
  private readonly capacity: number;
  private readonly select: (r: TraceRecord) => boolean;
  private readonly initial: ReadonlySet<Stage>;
  private readonly shown: Set<Stage>;
  /** Stages the user turned on that --stages left out: all their ops show. */
  private readonly forced = new Set<Stage>();

  constructor(opts: ActivityLogOptions = {}) {
    this.capacity = opts.capacity ?? 2000;
    this.select = stageFilter(opts.stages, opts.defaultStages);
    const s = opts.stages;
    this.initial = new Set<Stage>(s === 'all' ? STAGES : s ? s : [...(opts.defaultStages ?? DEFAULT_STAGES), 'reflector']);
    this.shown = new Set(this.initial);
  }

  /** Keys 1–8: hides a shown stage, or shows a hidden one (every op of a stage --stages left out). */
  toggleStage(stage: Stage): void {
    if (this.shown.delete(stage)) this.forced.delete(stage);
    else {
      this.shown.add(stage);
      if (!this.initial.has(stage)) this.forced.add(stage);
    }
  }

  get stagesShown(): ReadonlySet<Stage> {
    return this.shown;
  }

  private visible(r: TraceRecord): boolean {
    return this.shown.has(r.stage) && (this.forced.has(r.stage) || this.select(r));
  }

  /** A TraceListener: stores the record, formats nothing. */
  readonly add = (r: TraceRecord): void => {
    if (this.ring.length < this.capacity) this.ring.push(r);
    else this.ring[this.next] = r;
    this.next = (this.next + 1) % this.capacity;
  };

  /** The newest records, oldest first. */
  records(): TraceRecord[] {
    return this.ring.length < this.capacity ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  /** The table header and the last `count` lines matching `filter`, formatted as the trace table prints them. */
  lines(count: number, filter = ''): ActivityView {
    const match = parseActivityFilter(filter);
    const picked: TraceRecord[] = [];
    const all = this.records();
    for (let i = all.length - 1; i >= 0 && picked.length < count; i--) if (this.visible(all[i]) && match(all[i])) picked.push(all[i]);
    picked.reverse();
    return { header: formatTableHeader(), lines: picked.map((r) => this.formatted(r)), records: picked };
  }

  /** Lines stay on screen for many frames: each record is formatted once. */
  private readonly cache = new WeakMap<TraceRecord, string>();
  private formatted(r: TraceRecord): string {
    let line = this.cache.get(r);
    if (line === undefined) {
      line = formatTableLine(r);
      this.cache.set(r, line);
    }
    return line;
  }
}

/** One record as one line of the trace table (control characters escaped by the printer; diffs left out). */
export function formatTableLine(r: TraceRecord): string {
  let text = '';
  const printer = createTracePrinter({ output: 'table', stages: 'all', stream: { write: (s: string) => (text += s) } });
  printer.write(r);
  return text.split('\n')[1] ?? '';
}

let header: string | undefined;
/** The trace table's header line (TIME STAGE OP KEY RV DETAIL). */
export function formatTableHeader(): string {
  if (header === undefined) {
    let text = '';
    createTracePrinter({ output: 'table', stages: 'all', stream: { write: (s: string) => (text += s) } }).write({ time: 0, stage: 'watch', op: 'x' });
    header = text.split('\n')[0];
  }
  return header;
}
