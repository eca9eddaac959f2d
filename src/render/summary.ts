// Counts a run's trace records for the exit summary on stderr: per stage and op, reconnects, relists, 410s, bytes.
import { STAGES, type Stage, type TraceInterest, type TraceRecord } from '../informer/trace.js';
import { formatBytes, formatSeconds } from './format-units.js';
import { reportTable } from './report-table.js';
import { stageTotal } from './stage-totals.js';

/** Op order per stage for the summary line (the vocabulary of trace.ts); unknown ops follow in arrival order. */
const OP_ORDER: Record<Stage, string[]> = {
  http: ['request', 'response'],
  reflector: ['list-start', 'list-page', 'listed', 'seeded', 'watch-start', 'watch-close', 'bookmark', 'relist', 'expired', 'backoff', 'fault'],
  watch: ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'],
  fifo: ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync', 'pop', 'requeue'],
  indexer: ['add', 'update', 'delete', 'replace'],
  handler: ['OnAdd', 'OnUpdate', 'OnDelete', 'overflow'],
  workqueue: ['add', 'dedup', 'get', 'done', 'requeue', 'forget'],
  reconcile: ['start', 'success', 'error', 'requeue-after'],
  endpoint: ['http', 'list', 'watch', 'write', 'question', 'relist', 'stale-write', 'stale-read', 'loop', 'stall', 'fault', 'conflict'],
};

export interface TraceSummaryJSON {
  /** Records per stage and op: {watch: {ADDED: 120, …}, …}; stages without records are absent. */
  stages: Partial<Record<Stage, Record<string, number>>>;
  /** Items that entered each stage (stageTotal: what the --live dashboard calls `total`); stages without records are absent. */
  totals: Partial<Record<Stage, number>>;
  records: number;
  /** watch-start records after the first one of each informer (named by the record's `name`). */
  reconnects: number;
  relists: number;
  /** 410 Gone / Expired answers (reflector `expired`). */
  expired: number;
  backoffs: number;
  /** HTTP response bodies plus watch event bytes (list pages and refused requests' answers when no http records were traced). */
  bytes: number;
  elapsedMs: number;
}

export interface TraceSummaryOptions {
  /** Current time (epoch ms) for elapsed; default: the time of the last record. */
  now?: () => number;
  /** Start of the run (epoch ms); default: the time of the first record. */
  startedAt?: number;
}

export class TraceSummary {
  /** Stage → op → its count, in a cell so that counting is one lookup (a record or two per stage of every event). */
  private counts = new Map<Stage, Map<string, { n: number }>>();
  private readonly totals = new Map<Stage, number>();
  private records = 0;
  private watchStarts = 0;
  /** Informers (reflector names) that opened a watch: each one's first is a start, not a reconnect. */
  private readonly watching = new Set<string>();
  private relists = 0;
  private expired = 0;
  private backoffs = 0;
  private httpBytes = 0;
  private watchBytes = 0;
  private listBytes = 0;
  private sawHttpBytes = false;
  private first?: number;
  private last?: number;

  constructor(private readonly opts: TraceSummaryOptions = {}) {}

  /** A TraceListener: pass `summary.listener` to Tracer.subscribe. */
  readonly listener = (record: TraceRecord): void => this.add(record);

  add(r: TraceRecord): void {
    this.first ??= r.time;
    this.last = r.time;
    this.count(r.stage, r.op, stageTotal(r));
    const bytes = typeof r.bytes === 'number' ? r.bytes : 0;
    switch (r.stage) {
      case 'reflector':
        if (r.op === 'watch-start') {
          const name = String(r.name ?? r.resource ?? '');
          if (this.watching.has(name)) this.watchStarts++;
          else this.watching.add(name);
        }
        else if (r.op === 'relist') this.relists++;
        else if (r.op === 'expired') {
          this.expired++;
          this.listBytes += bytes;
        }
        else if (r.op === 'backoff') this.backoffs++;
        // A refused request's answer (list-error, watch-error, expired at list time) is bytes received too.
        else if (r.op === 'list-page' || r.op === 'list-error' || r.op === 'watch-error') this.listBytes += bytes;
        break;
      case 'http':
        if (r.op === 'response' && typeof r.bytes === 'number') {
          this.sawHttpBytes = true;
          this.httpBytes += bytes;
        }
        break;
      case 'watch':
        this.watchBytes += bytes;
        break;
      default:
        break;
    }
  }

  /** Counts a record under its stage and op (add() does, and `interest` for the records producers did not build). */
  count(stage: Stage, op: string, total = stageTotal({ stage, op })): void {
    this.records++;
    if (total !== 0) this.totals.set(stage, (this.totals.get(stage) ?? 0) + total);
    let ops = this.counts.get(stage);
    if (!ops) this.counts.set(stage, (ops = new Map()));
    const cell = ops.get(op);
    if (cell) cell.n++;
    else ops.set(op, { n: 1 });
  }

  /**
   * For a listener that feeds add() and shows what `shows` selects: the records it wants whole (those, and the
   * reflector's, http's and watch's, which add() reads for reconnects, relists and bytes); the rest it counts.
   */
  interest(shows: (stage: Stage, op: string) => boolean): TraceInterest {
    return {
      wants: (stage, op) => stage === 'reflector' || stage === 'http' || stage === 'watch' || shows(stage, op),
      skipped: (stage, op) => this.count(stage, op),
    };
  }

  toJSON(): TraceSummaryJSON {
    const stages: TraceSummaryJSON['stages'] = {};
    const totals: TraceSummaryJSON['totals'] = {};
    for (const stage of STAGES) {
      const ops = this.counts.get(stage);
      if (ops) {
        stages[stage] = Object.fromEntries(sortOps(stage, ops));
        totals[stage] = this.totals.get(stage) ?? 0;
      }
    }
    const start = this.opts.startedAt ?? this.first;
    const end = this.opts.now?.() ?? this.last;
    return {
      stages,
      totals,
      records: this.records,
      reconnects: this.watchStarts,
      relists: this.relists,
      expired: this.expired,
      backoffs: this.backoffs,
      // Page and error bodies are counted once: by their http response when http was traced, else by the reflector.
      bytes: (this.sawHttpBytes ? this.httpBytes : this.listBytes) + this.watchBytes,
      elapsedMs: start === undefined || end === undefined ? 0 : Math.max(0, end - start),
    };
  }

  /** A STAGE | TOTAL | RECORDS | OPS table (`ADDED=120 MODIFIED=30`), one row per stage, then a totals line (the caller's, or the informer's). TOTAL is the dashboard's `total`. */
  format(opts: { color?: boolean; totals?: string } = {}): string {
    const j = this.toJSON();
    const rows = Object.entries(j.stages).map(([stage, ops]) => [
      stage,
      String(j.totals[stage as Stage] ?? 0),
      String(Object.values(ops).reduce((a, n) => a + n, 0)),
      Object.entries(ops)
        .map(([op, n]) => `${op}=${n}`)
        .join(' '),
    ]);
    const totals = opts.totals ?? `reconnects=${j.reconnects} relists=${j.relists} expired=${j.expired} backoffs=${j.backoffs} bytes=${formatBytes(j.bytes)} elapsed=${formatSeconds(j.elapsedMs)}`;
    return rows.length === 0 ? totals : `${reportTable(['STAGE', 'TOTAL', 'RECORDS', 'OPS'], rows, { color: opts.color, alignRight: [1, 2] })}${totals}`;
  }
}

function sortOps(stage: Stage, ops: Map<string, { n: number }>): [string, number][] {
  const order = OP_ORDER[stage];
  const rank = (op: string) => {
    const i = order.indexOf(op);
    return i < 0 ? order.length : i;
  };
  // Stable sort keeps unknown ops in arrival order.
  return [...ops].map(([op, c]): [string, number] => [op, c.n]).sort((a, b) => rank(a[0]) - rank(b[0]));
}
