// The whole pipeline a controller runs, assembled for kwatch's commands: one SharedIndexInformer per
// watched resource (Reflector → FIFO → Indexer → Processor), each feeding a Controller
// (workqueue → reconcile) whose default reconcile is a local dry run that only reads the cache.
import { setMaxListeners } from 'node:events';
import type { Clock } from './clock.js';
import { Controller, type ReconcileFunc } from './controller.js';
import type { Indexers } from './indexer.js';
import { SharedIndexInformer } from './shared-informer.js';
import type { Tracer } from './trace.js';
import type { ListerWatcher, StartAt } from './types.js';

export interface PipelineSource {
  /** Shown in trace records, e.g. "pods" or "deployments.apps". */
  name: string;
  listerWatcher: ListerWatcher;
  /** Kind of the watched objects (events of another kind are dropped, as client-go does). */
  expectedKind?: string;
}

export interface PipelineOptions {
  sources: PipelineSource[];
  tracer: Tracer;
  clock?: Clock;
  /** DeltaFIFO (client-go ≤ 1.32) or RealFIFO (client-go ≥ 1.33's default). Default 'real'. */
  fifo?: 'delta' | 'real';
  /** RealFIFO deltas to the handlers in batches (client-go 1.35's InOrderInformersBatchProcess). */
  batchProcess?: boolean;
  resyncPeriodMs?: number;
  useWatchList?: boolean;
  /** A watch-list without its initial-events-end bookmark this long is a `no-initial-events-end` record (Reflector's default 30 s). */
  initialEventsEndTimeoutMs?: number;
  /** …and then LIST+WATCH instead (--fallback). */
  fallbackWithoutInitialEventsEnd?: boolean;
  keepManagedFields?: boolean;
  /** Put old/new objects into handler trace records (needed for --diff). */
  traceObjects?: boolean;
  indexers?: Indexers;
  pageSize?: number;
  watchdogMs?: number;
  minWatchTimeoutSeconds?: number;
  random?: () => number;
  startAt?: StartAt;
  /**
   * What runs for each workqueue key: 'dry-run' (default) reads the cache and reports what a
   * controller would see; false leaves out the workqueue and reconcile stages.
   */
  reconcile?: ReconcileFunc | 'dry-run' | false;
  workers?: number;
}

export interface Pipeline {
  informers: SharedIndexInformer[];
  controllers: Controller[];
  /** Runs every stage until the signal aborts; rejects when an informer gives up (e.g. startAt expired with onExpired 'stop'). */
  run(signal: AbortSignal): Promise<void>;
  /** Resolves once every informer synced its initial list. */
  whenSynced(signal?: AbortSignal): Promise<void>;
  hasSynced(): boolean;
  /** Every stage is done with everything it was given (checked between macrotasks, nothing is in flight). */
  isIdle(): boolean;
}

/** A reconcile that changes nothing: it looks the key up in the cache, as a controller's first step would. */
export const dryRunReconcile: ReconcileFunc = async (req) => {
  const obj = req.cache.getByKey(req.key);
  // The result is reported through the reconcile trace records the Controller emits.
  void obj;
};

export function buildPipeline(options: PipelineOptions): Pipeline {
  const informers = options.sources.map(
    (s) =>
      new SharedIndexInformer({
        listerWatcher: s.listerWatcher,
        name: s.name,
        expectedKind: s.expectedKind,
        fifo: options.fifo ?? 'real',
        batchProcess: options.batchProcess,
        resyncPeriodMs: options.resyncPeriodMs,
        indexers: options.indexers,
        keepManagedFields: options.keepManagedFields,
        tracer: options.tracer,
        clock: options.clock,
        traceObjects: options.traceObjects,
        useWatchList: options.useWatchList,
        initialEventsEndTimeoutMs: options.initialEventsEndTimeoutMs,
        fallbackWithoutInitialEventsEnd: options.fallbackWithoutInitialEventsEnd,
        pageSize: options.pageSize,
        watchdogMs: options.watchdogMs,
        minWatchTimeoutSeconds: options.minWatchTimeoutSeconds,
        random: options.random,
        startAt: options.startAt,
      }),
  );
  const reconcile = options.reconcile === undefined || options.reconcile === 'dry-run' ? dryRunReconcile : options.reconcile;
  const controllers: Controller[] = [];
  if (reconcile) {
    informers.forEach((informer, i) => {
      const controller = new Controller({ name: options.sources[i].name, reconcile, workers: options.workers, tracer: options.tracer, clock: options.clock });
      controller.watch(informer, { resyncPeriodMs: options.resyncPeriodMs });
      controllers.push(controller);
    });
  }
  const whenSynced = async (signal?: AbortSignal) => {
    if (!signal) return void (await Promise.all(informers.map((i) => i.whenSynced())));
    // One listener on the caller's signal; each informer's goes on a signal of the pipeline's own (see membersSignal).
    const members = membersSignal();
    const onAbort = () => members.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.all(informers.map((i) => i.whenSynced(members.signal)));
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
  return {
    informers,
    controllers,
    whenSynced,
    hasSynced: () => informers.every((i) => i.hasSynced()),
    isIdle: () => informers.every((i) => i.isIdle()) && controllers.every((c) => c.isIdle()),
    async run(signal: AbortSignal) {
      // If one informer fails, stop the rest and report the failure.
      const stop = membersSignal();
      const onAbort = () => stop.abort(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      let failure: { err: unknown } | undefined;
      const guard = (p: Promise<void>) =>
        p.catch((err: unknown) => {
          failure ??= { err };
          stop.abort(err);
        });
      try {
        await Promise.all([...informers.map((i) => guard(i.run(stop.signal))), ...controllers.map((c) => guard(c.run(stop.signal)))]);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      if (failure) throw failure.err;
    },
  };
}

/**
 * A signal handed to every informer and controller of a pipeline: each adds an abort listener of its own (removed
 * when it stops), so it holds one per member. Node warns past 10 listeners on one signal
 * (MaxListenersExceededWarning, on the user's stderr): a pipeline of 11 resources, or a replayed recording of
 * hundreds, is not a leak, so no limit.
 */
function membersSignal(): AbortController {
  const ac = new AbortController();
  setMaxListeners(0, ac.signal);
  return ac;
}
