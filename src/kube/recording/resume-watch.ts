// Resumes a watch on a server at a resourceVersion (no list) through the whole pipeline; explains an
// expired resourceVersion, shows the gap a relist covers, and keeps a checkpoint of where it got to.
import { isExpired, StatusError } from '../../informer/errors.js';
import { EventLimit } from '../../informer/event-limit.js';
import { buildPipeline } from '../../informer/pipeline.js';
import type { ObjectState } from '../../informer/recording/recording-timeline.js';
import type { Tracer } from '../../informer/trace.js';
import type { KubeObject, ListOptions, ListPage, ListerWatcher } from '../../informer/types.js';
import { compareStates, summarizeGap } from './baseline-gap.js';
import { untilIdle } from '../pipelines/until-idle.js';
import type { CheckpointKeeper } from './checkpoint.js';
import type { Connection } from '../http/connection.js';
import { explainExpired } from './expired-resource-version.js';
import { HttpListerWatcher, type ListWatchTarget } from '../lister-watchers/http-lister-watcher.js';

export interface ResumeWatchOptions {
  conn: Connection;
  target: ListWatchTarget;
  /** Shown in trace records and messages, e.g. "pods". */
  name: string;
  kind?: string;
  fromRv: string;
  untilRv?: string;
  maxEvents?: number;
  /** 'stop' (default): fail with the explanation; 'relist': list the current state and go on. */
  onExpired?: 'stop' | 'relist';
  /** What the user's recording held at fromRv (`--baseline`): seeds the cache, and shows the gap a relist covers. */
  baseline?: ObjectState;
  checkpoint?: CheckpointKeeper;
  tracer: Tracer;
  signal: AbortSignal;
  fifo?: 'delta' | 'real';
  traceObjects?: boolean;
  keepManagedFields?: boolean;
  resyncPeriodMs?: number;
  /** Lines for the user on stderr (the expiry explained, the gap summarised). */
  notice?: (message: string) => void;
}

export interface ResumeWatchResult {
  stoppedBy: 'signal' | 'until-rv' | 'max-events';
  /** The last resourceVersion the reflector reached. */
  resourceVersion: string;
  /** Set when the resourceVersion had expired and the run relisted. */
  relisted?: { resourceVersion: string; objects: number; gap?: string };
}

/**
 * Runs until the signal aborts or a limit is reached. Rejects with an ExpiredResourceVersionError (its
 * message is the explanation) when fromRv is too old and onExpired is 'stop'.
 */
export async function resumeWatch(o: ResumeWatchOptions): Promise<ResumeWatchResult> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  if (o.signal.aborted) stop.abort();
  let quiet = Promise.resolve();
  const limit = new EventLimit({ untilRv: o.untilRv, maxEvents: o.maxEvents, onReached: () => void (quiet = untilIdle(() => pipeline.isIdle()).then(() => stop.abort())) });
  let expiredAt: string | undefined;
  let relisted: ResumeWatchResult['relisted'];

  // After an expiry (with --on-expired relist), the first complete list is the fresh state to compare;
  // the gap is printed right after the reflector's `listed` line.
  let pendingGap: (() => void) | undefined;
  const capture = new ListCapture(new HttpListerWatcher(o.conn, o.target, { omitManagedFields: !o.keepManagedFields }), (items, rv) => {
    if (expiredAt === undefined || relisted) return;
    const gap = o.baseline ? compareStates(o.baseline.items(), items) : undefined;
    relisted = { resourceVersion: rv, objects: items.length, ...(gap ? { gap: summarizeGap(gap) } : {}) };
    pendingGap = () => {
      const now = Date.now();
      for (const g of gap ?? []) o.tracer.emit({ time: now, stage: 'reflector', op: 'gap', name: o.name, key: g.key, rv: g.rv, change: g.change, baselineRv: g.baselineRv, ...(g.recreated ? { recreated: true } : {}), since: o.fromRv });
      o.notice?.(
        gap
          ? `the gap between resourceVersion ${o.fromRv} and the relist at ${rv}: ${summarizeGap(gap)} (compared with the baseline recording; lines with op "gap")`
          : `listed the current state at resourceVersion ${rv}: ${items.length} objects; without --baseline what changed since ${o.fromRv} is unknown (every object arrives as OnAdd)`,
      );
    };
  });

  const unsubscribe = o.tracer.subscribe((r) => {
    if (r.stage === 'reflector' && r.op === 'expired' && expiredAt === undefined && o.onExpired === 'relist') {
      expiredAt = o.fromRv;
      o.notice?.(explainExpired({ resource: o.name, requested: o.fromRv, serverMessage: String(r.error ?? ''), relisting: true, baseline: Boolean(o.baseline) }).message);
    }
    if (pendingGap && r.stage === 'reflector' && r.op === 'listed') {
      const emit = pendingGap;
      pendingGap = undefined;
      emit();
    }
    if (!o.checkpoint || !r.rv) return;
    if ((r.stage === 'watch' && r.type !== 'ERROR') || (r.stage === 'reflector' && r.op === 'listed')) o.checkpoint.update(String(r.rv));
  });

  const pipeline = buildPipeline({
    sources: [{ name: o.name, listerWatcher: limit.wrap(capture), expectedKind: o.kind }],
    tracer: o.tracer,
    // The baseline's objects seed the cache, so events after fromRv arrive as updates and deletes of known objects.
    startAt: { resourceVersion: o.fromRv, onExpired: o.onExpired ?? 'stop', ...(o.baseline ? { items: o.baseline.items() } : {}) },
    fifo: o.fifo,
    traceObjects: o.traceObjects,
    keepManagedFields: o.keepManagedFields,
    resyncPeriodMs: o.resyncPeriodMs,
  });
  try {
    await pipeline.run(stop.signal);
  } catch (err) {
    if (isExpired(err)) throw explainExpired({ resource: o.name, requested: o.fromRv, serverMessage: (err as StatusError).message });
    throw err;
  } finally {
    unsubscribe();
    o.signal.removeEventListener('abort', onAbort);
    o.checkpoint?.flush();
    await quiet;
  }
  return { stoppedBy: limit.reason ?? 'signal', resourceVersion: pipeline.informers[0].lastSyncResourceVersion, relisted };
}

/** Passes requests through and reports each complete list (all its pages) to `onList`. */
class ListCapture implements ListerWatcher {
  private items: KubeObject[] = [];

  constructor(
    private readonly inner: ListerWatcher,
    private readonly onList: (items: KubeObject[], resourceVersion: string) => void,
  ) {}

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage> {
    const page = await this.inner.list(options, signal);
    if (!options.continue) this.items = [];
    this.items.push(...page.items);
    if (!page.metadata.continue) this.onList(this.items, page.metadata.resourceVersion ?? '');
    return page;
  }

  watch: ListerWatcher['watch'] = (options, signal) => this.inner.watch(options, signal);
}

