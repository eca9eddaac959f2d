// What the live dashboard shows about the pipeline, aggregated from trace records between frames:
// per-stage totals, rates over the last seconds and queue depths, the last resourceVersion, each
// reflector's connection state and the reconnect / relist / 410 counts. Pure: the clock is injected.
import { PIPELINE_STAGES, STAGES, type Stage, type TraceRecord } from '../../informer/trace.js';
import { formatClock } from '../format-units.js';
import { SecondSeries } from './sparkline.js';
import { stageTotal } from '../stage-totals.js';

export interface PipelineStatsOptions {
  /** Epoch ms; default Date.now. Rates and "reconnecting in" are measured on this clock. */
  now?: () => number;
  /** The rate window; default 5000 ms. */
  windowMs?: number;
}

export interface StageStats {
  stage: Stage;
  /** Items that entered the stage so far (stageTotal, as the exit summary's TOTAL). */
  total: number;
  /** Items per second over the rate window. */
  rate: number;
  /** The stage's queue depth as last reported (fifo, workqueue); undefined for stages without a queue. */
  depth?: number;
  /** Its depth is higher than two seconds ago: the stage falls behind. */
  bottleneck: boolean;
}

export interface PipelineSnapshot {
  stages: StageStats[];
  /** The newest resourceVersion the informer saw (list, watch event or bookmark). */
  lastRv?: string;
  /** One state per reflector: `listing page 2`, `watching since 10:00:01`, `reconnecting in 3.2 s`, … */
  connection: string;
  reconnects: number;
  relists: number;
  expired: number;
  records: number;
  uptimeMs: number;
  /** Per second over the last minute, oldest first: watch events, and the workqueue's depth. */
  watchPerSecond: number[];
  workqueueDepth: number[];
}

const BUCKET_MS = 1000;

/** The dashboard's per-stage total: the one definition the exit summary's TOTAL column uses too. */
export { stageTotal as countOf } from '../stage-totals.js';

type Connection =
  | { kind: 'listing'; page: number; pages?: number }
  | { kind: 'relisting'; reason: string }
  | { kind: 'listed' }
  | { kind: 'watching'; since: number }
  | { kind: 'closed'; reason: string }
  | { kind: 'waiting'; until: number }
  | { kind: 'error'; message: string }
  | { kind: 'stopped' };

interface StageCounter {
  total: number;
  /** bucket index (floor(now / 1 s)) → items in it, for the last window only. */
  buckets: Map<number, number>;
  depth?: number;
  /** bucket index → depth at the end of that bucket. */
  depthAt: Map<number, number>;
  /** The bucket being filled, kept out of the maps until the next one starts (or a snapshot). */
  curBucket: number;
  curCount: number;
  depthBucket: number;
}

export class PipelineStats {
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly startedAt: number;
  private readonly counters = new Map<Stage, StageCounter>(STAGES.map((s) => [s, { total: 0, buckets: new Map(), depthAt: new Map(), curBucket: -1, curCount: 0, depthBucket: -1 }]));
  private readonly connections = new Map<string, Connection>();
  /** Reflectors that opened a watch once: each one's next watch-start is a reconnect. */
  private readonly watched = new Set<string>();
  private lastRv?: string;
  private reconnects = 0;
  private relists = 0;
  private expired = 0;
  private records = 0;
  private readonly watchSeries = new SecondSeries('count');
  private readonly depthSeries = new SecondSeries('level');

  constructor(opts: PipelineStatsOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.windowMs = opts.windowMs ?? 5000;
    this.startedAt = this.now();
  }

  /** A TraceListener: cheap, so that the pipeline never waits on the dashboard. */
  readonly add = (r: TraceRecord): void => {
    this.records++;
    const now = this.now();
    const bucket = Math.floor(now / BUCKET_MS);
    const c = this.counters.get(r.stage);
    if (c) {
      const n = stageTotal(r);
      if (n > 0) {
        c.total += n;
        if (bucket !== c.curBucket) {
          commit(c);
          c.curBucket = bucket;
          if (c.buckets.size > 16) this.prune(c, bucket);
        }
        c.curCount += n;
        if (r.stage === 'watch') this.watchSeries.record(now, n);
      }
      const depth = typeof r.depth === 'number' ? r.depth : typeof r.queueDepth === 'number' ? r.queueDepth : undefined;
      if (depth !== undefined) {
        if (bucket !== c.depthBucket) {
          commit(c);
          c.depthBucket = bucket;
          if (c.depthAt.size > 16) this.prune(c, bucket);
        }
        c.depth = depth;
        if (r.stage === 'workqueue') this.depthSeries.record(now, depth);
      }
    }
    if (r.stage === 'watch' && r.rv) this.lastRv = r.rv;
    if (r.stage === 'reflector') this.reflector(r);
  };

  snapshot(): PipelineSnapshot {
    const now = this.now();
    const bucket = Math.floor(now / BUCKET_MS);
    const windowBuckets = Math.max(1, Math.round(this.windowMs / BUCKET_MS));
    // The full seconds of the window plus the part of the current one; early on, the time since start.
    const spanMs = Math.min(windowBuckets * BUCKET_MS + (now - bucket * BUCKET_MS), now - this.startedAt);
    const span = Math.max(spanMs, 1) / 1000;
    const stages = PIPELINE_STAGES.map((stage): StageStats => {
      const c = this.counters.get(stage)!;
      commit(c);
      this.prune(c, bucket);
      let recent = 0;
      for (const [b, n] of c.buckets) if (b >= bucket - windowBuckets) recent += n;
      return { stage, total: c.total, rate: recent / span, depth: c.depth, bottleneck: growing(c, bucket) };
    });
    return {
      stages,
      lastRv: this.lastRv,
      connection: this.connectionText(now),
      reconnects: this.reconnects,
      relists: this.relists,
      expired: this.expired,
      records: this.records,
      uptimeMs: now - this.startedAt,
      watchPerSecond: this.watchSeries.series(now),
      workqueueDepth: this.depthSeries.series(now),
    };
  }

  private prune(c: StageCounter, bucket: number): void {
    const oldest = bucket - Math.max(1, Math.round(this.windowMs / BUCKET_MS)) - 3;
    for (const b of c.buckets.keys()) if (b <= oldest) c.buckets.delete(b);
    for (const b of c.depthAt.keys()) if (b <= oldest) c.depthAt.delete(b);
  }

  private reflector(r: TraceRecord): void {
    const name = typeof r.name === 'string' ? r.name : '';
    const set = (s: Connection) => this.connections.set(name, s);
    const rv = r.rv ?? (typeof r.resourceVersion === 'string' ? r.resourceVersion : undefined);
    switch (r.op) {
      case 'list-start':
        if (this.connections.get(name)?.kind !== 'relisting') set({ kind: 'listing', page: 0 });
        break;
      case 'list-page':
        set({ kind: 'listing', page: typeof r.page === 'number' ? r.page : 1, pages: pagesOf(r) });
        if (rv) this.lastRv = rv;
        break;
      case 'listed':
      case 'synced':
        if (rv) this.lastRv = rv;
        if (this.connections.get(name)?.kind !== 'watching') set({ kind: 'listed' });
        break;
      case 'watch-start':
        if (this.watched.has(name)) this.reconnects++;
        this.watched.add(name);
        set({ kind: 'watching', since: r.time });
        break;
      case 'watch-close':
        set({ kind: 'closed', reason: typeof r.reason === 'string' ? r.reason : 'closed' });
        break;
      case 'bookmark':
        if (rv) this.lastRv = rv;
        break;
      case 'backoff':
        if (typeof r.ms === 'number') set({ kind: 'waiting', until: this.now() + r.ms });
        break;
      case 'retry-after':
        if (typeof r.seconds === 'number') set({ kind: 'waiting', until: this.now() + r.seconds * 1000 });
        break;
      case 'relist':
        this.relists++;
        // After a 410 the expired record came first: "relisting after 410" says more than the reason.
        if (this.connections.get(name)?.kind !== 'relisting') set({ kind: 'relisting', reason: typeof r.reason === 'string' ? r.reason : 'relist' });
        break;
      case 'expired':
        this.expired++;
        set({ kind: 'relisting', reason: '410' });
        break;
      case 'list-error':
      case 'watch-error':
        set({ kind: 'error', message: r.op });
        break;
      case 'stopped':
        set({ kind: 'stopped' });
        break;
    }
  }

  private connectionText(now: number): string {
    if (this.connections.size === 0) return 'connecting';
    const several = this.connections.size > 1;
    return [...this.connections]
      .map(([name, s]) => (several && name ? `${name}: ` : '') + describe(s, now))
      .join('; ');
  }
}

function describe(s: Connection, now: number): string {
  switch (s.kind) {
    case 'listing':
      return s.page > 0 ? `listing page ${s.page}${s.pages !== undefined ? `/${s.pages}` : ''}` : 'listing';
    case 'relisting':
      return `relisting after ${s.reason}`;
    case 'listed':
      return 'listed';
    case 'watching':
      return `watching since ${formatClock(s.since).slice(0, 8)}`;
    case 'closed':
      return `watch closed (${s.reason})`;
    case 'waiting':
      return `reconnecting in ${(Math.max(0, s.until - now) / 1000).toFixed(1)} s`;
    case 'error':
      return s.message;
    case 'stopped':
      return 'stopped';
  }
}

/** The pages a list will take, when the page tells: the last one, or the server's remainingItemCount at this page's size. */
function pagesOf(r: TraceRecord): number | undefined {
  const page = typeof r.page === 'number' ? r.page : 1;
  if (r.continue === false) return page;
  const items = typeof r.items === 'number' ? r.items : 0;
  if (typeof r.remainingItemCount === 'number' && items > 0) return page + Math.ceil(r.remainingItemCount / items);
  return undefined;
}

/** Moves the bucket being filled (count, and the depth it ended with so far) into the maps. */
function commit(c: StageCounter): void {
  if (c.curCount > 0) {
    c.buckets.set(c.curBucket, (c.buckets.get(c.curBucket) ?? 0) + c.curCount);
    c.curCount = 0;
  }
  if (c.depthBucket >= 0 && c.depth !== undefined) c.depthAt.set(c.depthBucket, c.depth);
}

/** Deeper now than two seconds ago (and not empty): items arrive faster than the stage takes them. */
function growing(c: StageCounter, bucket: number): boolean {
  if (c.depth === undefined || c.depth === 0) return false;
  // The depth at the end of the second two seconds back: its last sample at or before then.
  let before: number | undefined;
  for (let b = bucket - 2; b > bucket - 8 && before === undefined; b--) before = c.depthAt.get(b);
  return before !== undefined && c.depth > before;
}
