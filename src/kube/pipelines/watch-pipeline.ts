// Runs the informer pipeline for `kwatch events`: one informer per resource over HTTP (optionally
// recorded), every stage's trace into one tracer, and the CLI's ways to stop — a signal, an event
// budget, the initial sync — plus the first-contact policy (fail at once on what retrying cannot fix,
// retry the rest visibly until a deadline).
import { buildPipeline, type Pipeline, type PipelineOptions } from '../../informer/pipeline.js';
import type { SharedIndexInformer } from '../../informer/shared-informer.js';
import { ResourceTracer, type Tracer } from '../../informer/trace.js';
import { untilIdle } from './until-idle.js';
import type { ListerWatcher } from '../../informer/types.js';
import { realClock } from '../../informer/clock.js';
import { StallReportingListerWatcher } from '../../informer/stall-watch.js';
import { DEFAULT_FIRST_CONTACT_MS, FirstContact, FirstContactError, type FirstContactOptions } from '../http/first-contact.js';
import { FirstContactListerWatcher } from '../lister-watchers/first-contact-lister-watcher.js';
import { EventGate, GatedListerWatcher } from '../lister-watchers/gated-lister-watcher.js';

export interface WatchPipelineSource {
  /** kubectl's spelling, e.g. "pods" or "deployments.apps"; put on records as `resource` when there are several sources. */
  name: string;
  kind?: string;
  listerWatcher: ListerWatcher;
}

export type StopReason = 'signal' | 'max-events' | 'synced';

export interface WatchPipelineOptions {
  sources: WatchPipelineSource[];
  /** Receives every stage's records (and whatever else the caller traces into it, e.g. http). */
  tracer: Tracer;
  /** Everything buildPipeline takes but sources and tracer. */
  pipeline?: Omit<PipelineOptions, 'sources' | 'tracer'>;
  /** The user's stop (Ctrl-C, --for). */
  signal: AbortSignal;
  /** Stop once this many watch events went through every stage. */
  maxEvents?: number;
  /** Stop once every informer synced its initial list and the stages downstream caught up. */
  untilSynced?: boolean;
  /** Called (synchronously, before the stages stop) with an error that ends the run. */
  onFatal?(err: Error): void;
  /** Called once every informer has synced. */
  onSynced?(): void;
  /** Called with the informers once they are built (for their client-go 1.36 metrics). */
  onInformers?(informers: SharedIndexInformer[]): void;
  /** A watch with no event and no bookmark for this long is a `stall` reflector record (off when unset). */
  stallAfterMs?: number;
  /** The deadline and retry notices of the first contact (default: 30s, silent). */
  firstContact?: FirstContactOptions;
}

/** Stages that keep working on events already received. */

/**
 * Resolves with why it stopped. Rejects with the server's error when the first contact with the server
 * fails for good (bad selector, forbidden, a server still failing at the first-contact deadline — see
 * first-contact.ts), when the user stops a run whose server never answered, or when an informer gives up.
 */
export async function runWatchPipeline(o: WatchPipelineOptions): Promise<StopReason> {
  const stop = new AbortController();
  let fatal: Error | undefined;
  const onFatal = (err: Error) => {
    if (fatal) return;
    fatal = err;
    o.onFatal?.(err);
    stop.abort(err);
  };
  const gate = new EventGate(o.maxEvents);
  const several = o.sources.length > 1;
  const contacts = o.sources.map(() => new FirstContact(o.firstContact ?? { deadlineMs: DEFAULT_FIRST_CONTACT_MS }));
  const pipelines: Pipeline[] = o.sources.map((s, i) => {
    // One tracer per source so that, with several resources, every record says which one it is about.
    const tracer = several ? new ResourceTracer(o.tracer, s.name) : o.tracer;
    const contacted = new FirstContactListerWatcher(s.listerWatcher, contacts[i], s.name, onFatal);
    const watched = o.stallAfterMs ? new StallReportingListerWatcher(contacted, { clock: realClock, tracer, stallAfterMs: o.stallAfterMs, resource: s.name }) : contacted;
    const lw = new GatedListerWatcher(watched, gate);
    return buildPipeline({ ...o.pipeline, sources: [{ name: s.name, listerWatcher: lw, expectedKind: s.kind }], tracer });
  });

  o.onInformers?.(pipelines.flatMap((p) => p.informers));

  let reason: StopReason = 'signal';
  const finish = async (why: StopReason) => {
    if (stop.signal.aborted) return;
    gate.close();
    // Every event let through reaches every stage before the run stops.
    await untilIdle(() => gate.inFlight === 0 && pipelines.every((p) => p.isIdle()), stop.signal);
    if (stop.signal.aborted) return;
    reason = why;
    stop.abort(new Error(`stopped: ${why}`));
  };

  const onUserStop = () => stop.abort(o.signal.reason);
  if (o.signal.aborted) onUserStop();
  else o.signal.addEventListener('abort', onUserStop, { once: true });
  if (o.maxEvents !== undefined) void gate.whenClosed().then(() => finish('max-events'));
  void Promise.all(pipelines.map((p) => p.whenSynced(stop.signal))).then(
    () => {
      o.onSynced?.();
      if (o.untilSynced) void finish('synced');
    },
    () => {},
  );

  try {
    const runs = pipelines.map((p) =>
      p.run(stop.signal).catch((err: unknown) => {
        if (!stop.signal.aborted) onFatal(err instanceof Error ? err : new Error(String(err)));
      }),
    );
    await Promise.all(runs);
  } finally {
    o.signal.removeEventListener('abort', onUserStop);
  }
  if (fatal) throw fatal;
  // Stopped (--for, Ctrl-C) while the first contact was still failing: nothing ever worked, so no success.
  const never = o.sources.findIndex((_, i) => !contacts[i].succeeded && contacts[i].lastError);
  if (never >= 0) {
    const c = contacts[never];
    throw new FirstContactError(`stopped after ${c.secondsAtStop(o.signal)}s while the first ${o.sources[never].name} request was still failing`, c.lastError!);
  }
  return reason;
}
