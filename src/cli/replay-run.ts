// The two halves of `kwatch replay`: a recording replayed offline, and a watch resumed on the server
// at a resourceVersion — each wired to the replay view, with its notes and summary on stderr.
import type { Tracer } from '../informer/trace.js';
import { formatInformerMetrics } from '../informer/informer-metrics.js';
import { compareResourceVersions } from '../informer/resource-version.js';
import { readRecording, RecordingError, type Recording } from '../informer/recording/recording-reader.js';
import { buildTimeline, ObjectState, stateAt } from '../informer/recording/recording-timeline.js';
import type { ReplayFault } from '../informer/recording/replay-faults.js';
import { replayRecording } from '../informer/recording/replay-recording.js';
import type { CheckpointKeeper } from '../kube/recording/checkpoint.js';
import type { Connection } from '../kube/http/connection.js';
import { ExpiredResourceVersionError } from '../kube/recording/expired-resource-version.js';
import type { ListWatchTarget } from '../kube/lister-watchers/http-lister-watcher.js';
import { resumeWatch } from '../kube/recording/resume-watch.js';
import type { StageSelection } from '../render/stage-filter.js';
import { shouldColor } from '../render/color.js';
import { formatClock } from '../render/format-units.js';
import { escapeForTerminal } from '../render/terminal-escape.js';
import type { TraceOutput } from '../render/trace-printer.js';
import { openReplayView, type ReplayView } from './replay-view.js';
import { limitHeapGrowth } from './heap-growth.js';
import type { StopSignal } from './stop-signal.js';
import { stdoutFailed } from './stdout-guard.js';
import { UserError } from './user-error.js';

export interface ViewFlags {
  output: TraceOutput;
  stages?: StageSelection;
  diff?: 'changed' | 'all';
  key?: string;
  showSecrets?: boolean;
  /** The run's tracer, when --trace-out subscribes to it as well. */
  tracer?: Tracer;
}

export interface PipelineFlags {
  fifo: 'real' | 'delta';
  resyncPeriodMs?: number;
  keepManagedFields: boolean;
  untilRv?: string;
  maxEvents?: number;
}

/** A notice on stderr; it may quote a recording's text, so control characters are escaped. */
const err = (line: string) => void process.stderr.write(`${escapeForTerminal(line, { multiline: true })}\n`);

/** Bad lines of a recording named one by one; the rest are counted. */
const SHOWN_BAD_LINES = 10;

/** Reads a recording, turning its problems into one-line user errors and reporting a cut-off last line. */
export function loadRecording(path: string): Recording {
  let rec: Recording;
  try {
    rec = readRecording(path);
  } catch (e) {
    if (e instanceof RecordingError) throw new UserError(e.message);
    throw e;
  }
  if (rec.truncated) {
    err(`Warning: ${path}: the last line (line ${rec.truncated.line}, ${rec.truncated.bytes} bytes) is incomplete — the recording was cut off, probably because the recording process was killed; replaying the ${rec.count} entries before it`);
  }
  if (rec.skipped) err(`Warning: ${path}: left out ${rec.skipped} lines of a kind this kwatch does not know (written by a newer kwatch)`);
  // One line per bad line, up to a few; a recording made of little else gets a count, not a flood.
  for (const bad of rec.badLines.slice(0, SHOWN_BAD_LINES)) err(`Warning: ${path}: line ${bad.line} ${bad.problem}; left out`);
  if (rec.badLineCount > SHOWN_BAD_LINES) err(`Warning: ${path}: ${rec.badLineCount - SHOWN_BAD_LINES} more bad lines left out (${rec.badLineCount} in all)`);
  return rec;
}

export async function runRecordingReplay(o: {
  path: string;
  view: ViewFlags;
  pipeline: PipelineFlags;
  fromRv?: string;
  faults: ReplayFault[];
  speed: number;
  stop: StopSignal;
  verbose: boolean;
}): Promise<void> {
  const recording = loadRecording(o.path);
  limitHeapGrowth();
  checkOrder([o.fromRv, o.pipeline.untilRv, ...o.faults.map((f) => ('rv' in f ? f.rv : undefined))]);
  if (o.verbose) {
    const h = recording.header;
    err(`kwatch: replaying ${o.path}: ${h.resources.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(',')} from ${h.server}, recorded ${h.startTime} by kwatch ${h.kwatchVersion}, ${recording.count} entries`);
  }
  const view = openReplayView(o.view);
  let result;
  try {
    result = await replayRecording({
      recording,
      tracer: view.tracer,
      signal: o.stop.signal,
      fifo: o.pipeline.fifo,
      fromRv: o.fromRv,
      untilRv: o.pipeline.untilRv,
      maxEvents: o.pipeline.maxEvents,
      faults: o.faults,
      speed: o.speed,
      traceObjects: o.view.diff !== undefined,
      keepManagedFields: o.pipeline.keepManagedFields,
      resyncPeriodMs: o.pipeline.resyncPeriodMs,
      onSeeded: (s) => view.notice(`kwatch: rebuilt the cache at resourceVersion ${s.resourceVersion} from the recording (${s.objects} objects, not shown); replaying from the first event after it`),
    });
  } catch (e) {
    if (e instanceof RecordingError) throw new UserError(e.message);
    throw e;
  } finally {
    view.close();
  }
  if (!stdoutFailed()) {
    err(view.summary.format({ color: shouldColor(process.stderr, process.env) }));
    // After the summary, as the live run (kwatch events) prints them: each replayed informer's metrics.
    for (const m of result.informerMetrics) err(formatInformerMetrics(m.name, m.metrics));
  }
  for (const f of result.unusedFaults) err(`Warning: --inject ${f} matched no event in the recording`);
  for (const s of result.staleAfterHiddenDelete) {
    err(`kwatch: the cache still holds ${s.resource} ${s.key}, which the stream deleted${s.deletedRv ? ` at resourceVersion ${s.deletedRv}` : ''} (--inject hide-delete hid it and no relist found it gone): a controller reading this cache acts on an object that no longer exists`);
  }
  if (result.lateFrom) {
    const l = result.lateFrom;
    err(`kwatch: the replay left the recording's clock at ${formatClock(l.recordedAt)} (the ${l.resource} ${l.what} recorded then came at ${formatClock(l.replayedAt)}, ${((l.replayedAt - l.recordedAt) / 1000).toFixed(1)}s late): the replayed reflector waited longer than the live one did (its own backoff${o.faults.length ? ', or an injected fault' : ''}); later records keep their order but not their recorded times`);
  }
  if (result.stats.synthesizedLists || result.stats.synthesizedExpiries) {
    err(`kwatch: the replayed reflector left the recorded path: ${result.stats.synthesizedLists} relists answered from the recording's state, ${result.stats.synthesizedExpiries} watches answered 410 where the recording relisted`);
  }
  if (result.stoppedBy === 'stalled') err('kwatch: the replay stopped: the pipeline was waiting for a request the recording cannot answer');
}

export async function runServerResume(o: {
  conn: Connection;
  view: ReplayView;
  target: ListWatchTarget;
  name: string;
  kind?: string;
  fromRv: string;
  pipeline: PipelineFlags;
  onExpired: 'stop' | 'relist';
  baselinePath?: string;
  checkpoint?: CheckpointKeeper;
  traceObjects: boolean;
  stop: StopSignal;
}): Promise<void> {
  checkOrder([o.fromRv, o.pipeline.untilRv]);
  const baseline = o.baselinePath ? baselineState(o.baselinePath, o.target, o.fromRv) : undefined;
  try {
    await resumeWatch({
      conn: o.conn,
      target: o.target,
      name: o.name,
      kind: o.kind,
      fromRv: o.fromRv,
      untilRv: o.pipeline.untilRv,
      maxEvents: o.pipeline.maxEvents,
      onExpired: o.onExpired,
      baseline,
      checkpoint: o.checkpoint,
      tracer: o.view.tracer,
      signal: o.stop.signal,
      fifo: o.pipeline.fifo,
      traceObjects: o.traceObjects,
      keepManagedFields: o.pipeline.keepManagedFields,
      resyncPeriodMs: o.pipeline.resyncPeriodMs,
      notice: (m) => o.view.notice(`kwatch: ${m}`),
    });
  } catch (e) {
    if (e instanceof ExpiredResourceVersionError) throw new UserError(e.message);
    throw e;
  } finally {
    o.view.close();
  }
  if (!stdoutFailed()) err(o.view.summary.format({ color: shouldColor(process.stderr, process.env) }));
  if (o.checkpoint?.failure) throw new UserError(o.checkpoint.failure.message);
  if (o.checkpoint) err(`kwatch: checkpoint ${o.checkpoint.path} at resourceVersion ${o.checkpoint.resourceVersion || o.fromRv} (resume with kwatch replay --from-checkpoint ${o.checkpoint.path})`);
}

/** What the baseline recording held at fromRv for the resource being resumed. */
function baselineState(path: string, target: ListWatchTarget, fromRv: string): ObjectState {
  const rec = loadRecording(path);
  const resources = rec.header.resources;
  let index = resources.findIndex((r) => r.group === target.group && r.resource === target.resource);
  if (index < 0 && resources.length === 1) index = 0;
  if (index < 0) {
    const names = resources.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(', ');
    throw new UserError(`--baseline ${path} recorded ${names}, not ${target.group ? `${target.resource}.${target.group}` : target.resource}`);
  }
  return inScope(stateAt(buildTimeline(rec.entriesOf(index), index), fromRv), target);
}

/**
 * The part of a baseline the resumed watch can see: a recording made with -A holds every namespace, but
 * a resume with -n NS (or one object by name) watches only those; the others would seed a cache the
 * watch never updates and show as `gone` in the gap.
 */
function inScope(state: ObjectState, target: ListWatchTarget): ObjectState {
  const namespace = target.namespaced ? target.namespace : undefined;
  if (namespace === undefined && target.name === undefined) return state;
  const scoped = new ObjectState();
  const items = state.items().filter((o) => (namespace === undefined || o.metadata?.namespace === namespace) && (target.name === undefined || o.metadata?.name === target.name));
  scoped.replace(items, state.resourceVersion);
  return scoped;
}

/** Every resourceVersion given must be orderable (an etcd revision) for the comparisons replay makes. */
function checkOrder(rvs: (string | undefined)[]): void {
  for (const rv of rvs) {
    if (rv === undefined) continue;
    try {
      compareResourceVersions(rv, rv);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
  }
}
