// The dashboard's "recent activity" pane: the last trace records of every stage, kept unformatted, and
// printed on demand with the trace table's own columns: those --stages selects (keys 1–8 hide or show a
// stage), filtered by `/` text.
import { STAGES, type Stage, type TraceRecord } from '../../informer/trace.js';
import { DEFAULT_STAGES, stageFilter, type StageSelection } from '../stage-filter.js';
import { createTracePrinter } from '../trace-printer.js';

export interface ActivityLogOptions {
  /** Records kept per stage; default 2000. */
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

/** The last `capacity` records of one stage, each with its arrival number (to merge the stages back in order). */
class StageRing {
  readonly records: TraceRecord[] = [];
  readonly seqs: number[] = [];
  /** Where the next record goes once full (then also the oldest). */
  next = 0;

  constructor(private readonly capacity: number) {}

  add(r: TraceRecord, seq: number): void {
    if (this.records.length < this.capacity) {
      this.records.push(r);
      this.seqs.push(seq);
      return;
    }
    this.records[this.next] = r;
    this.seqs[this.next] = seq;
    this.next = (this.next + 1) % this.capacity;
  }

  get size(): number {
    return this.records.length;
  }

  /** Index of the i-th newest record (0 = newest). */
  newest(i: number): number {
    return (this.next - 1 - i + 2 * this.records.length) % this.records.length;
  }
}

/**
 * A memory per stage, as the README says: a relist of 3,000 pods makes thousands of fifo, indexer and handler
 * records, which one shared ring of 2,000 would let push out every reflector record (`/stage=reflector`, `/op=relist`
 * then found nothing). Each stage keeps its own last `capacity` records; the pane merges them back in arrival order.
 */
export class ActivityLog {
  private readonly rings = new Map<Stage, StageRing>();
  private seq = 0;
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

  /** A TraceListener: stores the record in its stage's memory, formats nothing. */
  readonly add = (r: TraceRecord): void => {
    let ring = this.rings.get(r.stage);
    if (!ring) this.rings.set(r.stage, (ring = new StageRing(this.capacity)));
    ring.add(r, this.seq++);
  };

  /** Every record remembered, oldest first (each stage's newest `capacity`). */
  records(): TraceRecord[] {
    const all: { r: TraceRecord; seq: number }[] = [];
    for (const ring of this.rings.values()) for (let i = 0; i < ring.size; i++) all.push({ r: ring.records[i], seq: ring.seqs[i] });
    return all.sort((a, b) => a.seq - b.seq).map((x) => x.r);
  }

  /** Newest first across the stages, merged lazily: a frame reads only as far as it shows. */
  private *newestFirst(): Generator<TraceRecord> {
    const rings = [...this.rings.values()].filter((ring) => ring.size > 0);
    const taken = rings.map(() => 0);
    for (;;) {
      let best = -1;
      let bestSeq = -1;
      for (let k = 0; k < rings.length; k++) {
        if (taken[k] >= rings[k].size) continue;
        const seq = rings[k].seqs[rings[k].newest(taken[k])];
        if (seq > bestSeq) {
          bestSeq = seq;
          best = k;
        }
      }
      if (best < 0) return;
      yield rings[best].records[rings[best].newest(taken[best]++)];
    }
  }

  /** The table header and the last `count` lines matching `filter`, formatted as the trace table prints them. */
  lines(count: number, filter = ''): ActivityView {
    const match = parseActivityFilter(filter);
    const picked: TraceRecord[] = [];
    if (count > 0) {
      for (const r of this.newestFirst()) {
        if (this.visible(r) && match(r)) picked.push(r);
        if (picked.length >= count) break;
      }
    }
    picked.reverse();
    // The lines on screen share their KEY and RV widths: a long key widens the column for all of them.
    const widths = { key: Math.max(0, ...picked.map((r) => (r.key ?? '').length)), rv: Math.max(0, ...picked.map((r) => (r.rv ?? '').length)) };
    return { header: formatTableHeader(widths), lines: picked.map((r) => this.formatted(r, widths)), records: picked };
  }

  /** Lines stay on screen for many frames: each record is formatted once per column widths. */
  private readonly cache = new WeakMap<TraceRecord, { widths: string; line: string }>();
  private formatted(r: TraceRecord, widths: { key: number; rv: number }): string {
    const w = `${widths.key}/${widths.rv}`;
    let kept = this.cache.get(r);
    if (kept === undefined || kept.widths !== w) {
      kept = { widths: w, line: formatTableLine(r, widths) };
      this.cache.set(r, kept);
    }
    return kept.line;
  }
}

/**
 * Detail fields that say why something failed or happened, in the order the pane shows them first: the pane cuts
 * its lines at the terminal's width, and a long url or name before them would push them off the screen.
 */
const EXPLAINING_FIELDS = ['error', 'status', 'tombstone', 'tombstoneType', 'tombstoneExplanation', 'reason', 'explanation', 'fault'];

/** The record with its explaining fields first among the details (the core fields keep their own columns). */
function explainingFirst(r: TraceRecord): TraceRecord {
  if (!EXPLAINING_FIELDS.some((k) => r[k] !== undefined)) return r;
  const out: Record<string, unknown> = { time: r.time, stage: r.stage, op: r.op };
  for (const k of ['key', 'rv', 'type']) if (r[k] !== undefined) out[k] = r[k];
  for (const k of EXPLAINING_FIELDS) if (r[k] !== undefined) out[k] = r[k];
  for (const k in r) if (!(k in out)) out[k] = r[k];
  return out as TraceRecord;
}

/** One record as one line of the trace table (control characters escaped by the printer; diffs left out), what explains it first. */
export function formatTableLine(r: TraceRecord, columnWidths?: { key?: number; rv?: number }): string {
  let text = '';
  const printer = createTracePrinter({ output: 'table', stages: 'all', columnWidths, stream: { write: (s: string) => (text += s) } });
  printer.write(explainingFirst(r));
  return text.split('\n')[1] ?? '';
}

const headers = new Map<string, string>();
/** The trace table's header line (TIME STAGE OP KEY RV DETAIL), for the given KEY and RV widths. */
export function formatTableHeader(columnWidths?: { key?: number; rv?: number }): string {
  const w = `${columnWidths?.key ?? 0}/${columnWidths?.rv ?? 0}`;
  let header = headers.get(w);
  if (header === undefined) {
    let text = '';
    createTracePrinter({ output: 'table', stages: 'all', columnWidths, stream: { write: (s: string) => (text += s) } }).write({ time: 0, stage: 'watch', op: 'x' });
    header = text.split('\n')[0];
    if (headers.size > 64) headers.clear();
    headers.set(w, header);
  }
  return header;
}
