// Replays a recording offline through the whole pipeline (Reflector → FIFO → Indexer → handlers →
// workqueue → reconcile) on the recording's own virtual time, so every run traces the same records.
import { EventLimit } from '../event-limit.js';
import type { InformerMetricsSnapshot } from '../informer-metrics.js';
import { buildPipeline } from '../pipeline.js';
import { RecordedListerWatcher, type ClockDivergence, type InjectedFault, type RecordedStats } from './recorded-lister-watcher.js';
import { RecordingError, type Recording } from './recording-reader.js';
import { buildTimeline, startAfter, startsWithWatchList, type ObjectState, type Timeline, type TimelinePosition } from './recording-timeline.js';
import { describeFault, ReplayFaults, type ReplayFault } from './replay-faults.js';
import { Tracer } from '../trace.js';
import { VirtualClock } from './virtual-clock.js';
import { driveVirtualTime, settle } from './virtual-time-driver.js';
import { seededRandom } from '../seeded-random.js';

export interface ReplayRecordingOptions {
  recording: Recording;
  /** Receives the replay's trace records (none while the cache is being rebuilt for fromRv). */
  tracer: Tracer;
  /** Stops the replay early (Ctrl-C, --for). */
  signal: AbortSignal;
  fifo?: 'delta' | 'real';
  /** Rebuild the cache at this resourceVersion from the recording, then replay from the first event after it. */
  fromRv?: string;
  /** Stop once the stream passes this resourceVersion. */
  untilRv?: string;
  /** Stop after this many object events. */
  maxEvents?: number;
  faults?: ReplayFault[];
  /** Recorded time runs this many times faster than real time; Infinity (default) runs as fast as possible. */
  speed?: number;
  traceObjects?: boolean;
  keepManagedFields?: boolean;
  resyncPeriodMs?: number;
  /** Called once the cache has been rebuilt at fromRv, before the first replayed record. */
  onSeeded?: (info: { resourceVersion: string; objects: number }) => void;
}

export interface ReplayResult {
  /** What ended the replay: the recording ran out, a limit, the caller's signal, or nothing left to happen. */
  stoppedBy: 'end' | 'until-rv' | 'max-events' | 'signal' | 'stalled';
  /** Injected faults that never matched an event, as given. */
  unusedFaults: string[];
  stats: RecordedStats;
  /** Virtual time (epoch ms) the replay ended at. */
  endTime: number;
  /**
   * Objects whose DELETED event hide-delete hid and that the cache still held at the end (no relist found them
   * gone): the informer believes in an object the stream deleted.
   */
  staleAfterHiddenDelete: { resource: string; key: string; deletedRv?: string }[];
  /** The first point where the replay ran behind the recording's clock (the replayed reflector waited longer than the live one). */
  lateFrom?: ClockDivergence & { resource: string };
  /**
   * Each replayed informer's client-go 1.36 metrics at the end, in the header's order. Its queue and store
   * resourceVersion follow from what was replayed; its processing latency is this replay's own time to process a pop
   * (the same objects, handed to the same stages, on this machine), not the live run's.
   */
  informerMetrics: { name: string; metrics: InformerMetricsSnapshot }[];
}

/** How much virtual time may pass after the last recorded entry before the replay gives up waiting. */
const HORIZON_MS = 10 * 60_000;

export async function replayRecording(o: ReplayRecordingOptions): Promise<ReplayResult> {
  const { recording } = o;
  // One pass over the file per resource that has entries, each read as its replay goes (line-passes.ts bounds the open ones).
  const timelines = recording.header.resources.map((_r, i) => buildTimeline(recording.entriesOf(i), i));
  const starts = o.fromRv === undefined ? undefined : startsAfter(timelines, o.fromRv, recording);
  const firstT = starts ? Math.min(...starts.map((s) => s.t)) - 1 : 0;
  const lastT = recording.lastT;
  const clock = new VirtualClock(recording.startEpoch + firstT);
  const faults = new ReplayFaults(o.faults);
  const limit = new EventLimit({ untilRv: o.untilRv, maxEvents: o.maxEvents });

  // The pipeline traces into its own tracer: records are counted (to know when it is idle) and
  // forwarded, except while the cache is rebuilt for fromRv.
  const inner = new Tracer();
  let records = 0;
  let muted = starts !== undefined;
  inner.subscribe((r) => {
    records++;
    if (!muted) o.tracer.emit(r);
  });

  const names = recording.header.resources.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource));
  // Each fault at work leaves a trace line where it acted; hidden deletes are checked against the cache at the end.
  const hidden: { resource: number; key: string; rv?: string }[] = [];
  const onFault = (i: number) => (f: InjectedFault) => {
    if (f.fault.startsWith('hide-delete:') && f.key) hidden.push({ resource: i, key: f.key, rv: f.rv });
    inner.emit({ time: clock.now(), stage: 'reflector', op: 'fault', name: names[i], key: f.key, rv: f.rv, fault: f.fault, event: f.event, ...(f.fault.startsWith('hide-delete:') ? { explanation: 'the DELETED event was hidden from the reflector' } : {}) });
  };
  const lws = timelines.map(
    (timeline, i) => new RecordedListerWatcher({ timeline, clock, startEpoch: recording.startEpoch, faults, start: starts?.[i], onFault: onFault(i) }),
  );
  const pipeline = buildPipeline({
    sources: recording.header.resources.map((r, i) => ({ name: names[i], listerWatcher: limit.wrap(lws[i]), expectedKind: r.kind })),
    tracer: inner,
    clock,
    fifo: o.fifo,
    random: seededRandom(1),
    traceObjects: o.traceObjects,
    keepManagedFields: o.keepManagedFields,
    resyncPeriodMs: o.resyncPeriodMs,
    // A recording made with watch-list (events' default) replays with watch-list, fallback included; --from-rv seeds
    // the cache with a list instead, so it keeps LIST+WATCH.
    useWatchList: starts === undefined && timelines.some(startsWithWatchList),
    // The live reflector's bound and --fallback: without them a watch-list whose initial-events-end never came would
    // wait out the default 30 s instead, and its fallback (when recorded) reached by an error rather than the bound.
    initialEventsEndTimeoutMs: recording.header.watchList?.initialEventsEndTimeoutMs,
    fallbackWithoutInitialEventsEnd: recording.header.watchList?.fallbackWithoutInitialEventsEnd,
  });

  const stop = new AbortController();
  let failure: { err: unknown } | undefined;
  const running = pipeline.run(stop.signal).catch((err: unknown) => void (failure = { err }));
  let stoppedBy: ReplayResult['stoppedBy'];
  try {
    await settle(() => records);
    if (starts) {
      muted = false;
      o.onSeeded?.({ resourceVersion: o.fromRv!, objects: starts.reduce((n, s) => n + s.seed.size, 0) });
    }
    stoppedBy = (await driveVirtualTime({
      clock,
      progress: () => records,
      signal: o.signal,
      speed: o.speed,
      horizon: recording.startEpoch + lastT + HORIZON_MS,
      done: () => (failure ? 'end' : limit.reached ? (limit.reason ?? 'max-events') : lws.every((lw) => lw.exhausted) ? 'end' : undefined),
    })) as ReplayResult['stoppedBy'];
  } finally {
    stop.abort();
    await running;
  }
  if (failure) throw failure.err;
  const stats: RecordedStats = { recorded: 0, synthesizedLists: 0, synthesizedExpiries: 0 };
  for (const lw of lws) for (const k of Object.keys(stats) as (keyof RecordedStats)[]) stats[k] += lw.stats[k];
  const staleAfterHiddenDelete = hidden
    .filter((h) => pipeline.informers[h.resource].getIndexer().getByKey(h.key) !== undefined)
    .map((h) => ({ resource: names[h.resource], key: h.key, deletedRv: h.rv }));
  let lateFrom: ReplayResult['lateFrom'];
  lws.forEach((lw, i) => {
    if (lw.late && (!lateFrom || lw.late.recordedAt < lateFrom.recordedAt)) lateFrom = { ...lw.late, resource: names[i] };
  });
  const informerMetrics = pipeline.informers.map((informer) => ({ name: informer.name, metrics: informer.metrics() }));
  return { stoppedBy, unusedFaults: faults.unused().map(describeFault), stats, endTime: clock.now(), staleAfterHiddenDelete, lateFrom, informerMetrics };
}

type Start = { position: TimelinePosition; seed: ObjectState; resourceVersion: string; t: number };

/** Per resource: where replay starts after `rv`, and the state rebuilt just before it (one pass each). */
function startsAfter(timelines: Timeline[], rv: string, recording: Recording): Start[] {
  let any = false;
  const starts = timelines.map((timeline) => {
    const found = startAfter(timeline, rv);
    if (found.position) any = true;
    // Nothing newer for this resource: its replay starts past its last op.
    const position = found.position ?? { op: Number.MAX_SAFE_INTEGER, event: 0 };
    return { position, seed: found.state, resourceVersion: rv, t: found.t };
  });
  if (!any) {
    const last = recording.lastResourceVersion;
    throw new RecordingError(`the recording has nothing after resourceVersion ${rv}${last ? ` (its last event is at ${last})` : ''}`);
  }
  return starts;
}
