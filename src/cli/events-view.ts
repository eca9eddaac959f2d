// The pipeline view of `kwatch events`: wires the watched resources (recorded when asked) into the
// informer pipeline and its trace into the printer, the exit summary and the initial-sync spinner.
import type { TraceRecord, Tracer } from '../informer/trace.js';
import type { KubeObject, ListerWatcher } from '../informer/types.js';
import type { Connection } from '../kube/http/connection.js';
import type { FirstContactOptions } from '../kube/http/first-contact.js';
import { HttpListerWatcher, type ListWatchTarget, type WireFormat } from '../kube/lister-watchers/http-lister-watcher.js';
import type { RecordingFile } from '../kube/recording/recording-file.js';
import type { ResolvedResource } from '../kube/discovery/resolve-resource.js';
import { runWatchPipeline } from '../kube/pipelines/watch-pipeline.js';
import { shouldColor } from '../render/color.js';
import { ListProgress } from '../render/list-progress.js';
import { startSpinner } from '../render/spinner.js';
import type { StageSelection } from '../render/stage-filter.js';
import { TraceSummary } from '../render/summary.js';
import { formatInformerMetrics } from '../informer/informer-metrics.js';
import type { SharedIndexInformer } from '../informer/shared-informer.js';
import { createTracePrinter, type TraceOutput } from '../render/trace-printer.js';
import type { StopSignal } from './stop-signal.js';
import { displayName } from './target.js';
import { stdoutFailed } from './stdout-guard.js';
import { UserError } from './user-error.js';
import { retryLine } from './error-message.js';
import type { ObjectTemplate } from '../render/object-template.js';
import { maskSecrets } from '../render/secrets.js';
import { objectName, showOrSkipTooDeep } from './too-deep.js';
import { canDrawLive } from './live-available.js';
import { ExpiryExplainer } from './expiry-explainer.js';
import { escapeForTerminal } from '../render/terminal-escape.js';

export interface WatchEventsOptions {
  conn: Connection;
  /** The connection's tracer: http records and every stage's records meet here. */
  tracer: Tracer;
  resources: ResolvedResource[];
  /** One per resource, same order. */
  targets: ListWatchTarget[];
  stop: StopSignal;
  output: TraceOutput;
  stages?: StageSelection;
  diff?: 'changed' | 'all';
  fifo: 'real' | 'delta';
  /** --batch-process: RealFIFO deltas to the handlers in batches (client-go 1.35's InOrderInformersBatchProcess). */
  batchProcess?: boolean;
  useWatchList: boolean;
  /** --initial-events-timeout: a watch-list without its initial-events-end bookmark this long is a `no-initial-events-end` record. */
  initialEventsEndTimeoutMs?: number;
  /** --fallback: …and then LIST+WATCH instead. */
  fallbackWithoutInitialEventsEnd?: boolean;
  resyncPeriodMs?: number;
  /** --watch-idle-timeout: a watch silent this long is restarted from its last resourceVersion (the reflector's watchdog). */
  watchIdleTimeoutMs?: number;
  /** --stall-after: a watch silent this long is a `stall` record. */
  stallAfterMs?: number;
  keepManagedFields: boolean;
  /** --wire: JSON, or CBOR with JSON as the fallback. */
  wire?: WireFormat;
  record?: { path: string; showSecrets: boolean; kwatchVersion: string };
  /** Print Secret data and credentials in diffs as they are (default: masked). */
  showSecrets?: boolean;
  maxEvents?: number;
  untilSynced: boolean;
  /** The first-contact deadline and its retry notices. */
  firstContact?: FirstContactOptions;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
  /** -o jsonpath=…|custom-columns=…|go-template=…: printed for each object as the handlers get it, instead of the trace. */
  template?: ObjectTemplate;
  /** --live: the full-screen dashboard instead of the trace lines (where liveUnavailable finds none in the way). */
  live?: boolean;
  /** --key with --live: follow this key's history from the start. */
  followKey?: string;
  /** --snapshot-dir: where `s` saves the screen (default: the working directory). */
  snapshotDir?: string;
}

/** Runs until stopped; the summary goes to stderr. Rejects with the server's error when the first contact fails for good. */
export async function watchEvents(o: WatchEventsOptions): Promise<void> {
  const out = o.stdout ?? process.stdout;
  const err = o.stderr ?? process.stderr;
  if (o.live) {
    if (canDrawLive(out, err)) return watchEventsLive(o, out as NodeJS.WriteStream, err);
  }
  const names = o.resources.map(displayName).join(',');
  const startedAt = Date.now();
  const summary = new TraceSummary({ startedAt, now: Date.now });

  // The spinner shares the terminal with the table: it goes at the first line printed to a terminal stdout.
  const spinner = startSpinner(err, `listing ${names}…`);
  let spinning = true;
  const stopSpinner = () => {
    if (!spinning) return;
    spinning = false;
    spinner.stop();
  };
  const stream = {
    write(chunk: string) {
      if (spinning && out.isTTY) stopSpinner();
      return out.write(chunk);
    },
  };
  const table = o.output === 'table' || o.output === 'wide';
  const printer = createTracePrinter({ output: o.output, stream, color: table && shouldColor(out, process.env), stages: o.stages, diff: o.diff, showSecrets: o.showSecrets, batch: true });
  const progress = new ListProgress(names);
  // After a fatal error only its one line is wanted, not the stages shutting down.
  let muted = false;
  // Records nobody prints (with a template: all but the handler's) are not even built, only counted for the summary.
  const interest = summary.interest((stage, op) => (o.template ? stage === 'handler' : printer.shows(stage, op)));
  // A 410 is explained on stderr, in words, after its trace line.
  const expiries = new ExpiryExplainer();
  const unsubscribe = o.tracer.subscribe((r: TraceRecord) => {
    if (muted) return;
    summary.add(r);
    if (o.template) printTemplate(r);
    else printer.write(r);
    const why = r.stage === 'reflector' ? expiries.explain(r) : undefined;
    if (why) {
      stopSpinner();
      printer.flush();
      err.write(`${escapeForTerminal(why)}\n`);
    }
    if (r.stage === 'reflector' && r.op === 'synced' && r.items === 0) emptyHint(r);
    if (spinning && progress.add(r)) spinner.update(progress.text());
  }, interest);
  // Each object once per change, as `kubectl get -w -o …` prints it: what the handlers get (resyncs left
  // out), the initial list as one block (custom-columns align it together), then object by object.
  let templateError: unknown;
  let initial: unknown[] | undefined = [];
  let skippedInitial = 0;
  const listedBy = new Map<string, number>();
  const printObjects = (objs: unknown[]) => {
    if (objs.length === 0 || templateError) return;
    try {
      stream.write(o.template!.objects(objs));
    } catch (e) {
      templateError = e;
      o.stop.stop('template failed');
    }
  };
  const flushInitial = () => {
    const objs = initial ?? [];
    initial = undefined;
    printObjects(objs);
  };
  const printTemplate = (r: TraceRecord) => {
    if (r.stage === 'reflector' && r.op === 'synced') listedBy.set(String(r.resource ?? ''), typeof r.items === 'number' ? r.items : 0);
    if (r.stage !== 'handler' || !HANDLER_OPS.has(r.op) || r.sync === true || r.new === undefined) return;
    const kind = o.resources.length > 1 ? o.resources.find((x) => displayName(x) === r.resource)?.kind : o.resources[0]?.kind;
    // An object nested deeper than kwatch follows is one line on stderr, and counts as shown.
    let obj: unknown;
    const shown = showOrSkipTooDeep(objectName(r.new as KubeObject), () => (obj = maskSecrets(r.new, { reveal: o.showSecrets, assumeKind: kind })));
    if (initial && r.isInInitialList === true) {
      if (shown) initial.push(obj);
      else skippedInitial++;
      const expected = [...listedBy.values()].reduce((a, b) => a + b, 0);
      if (listedBy.size === o.resources.length && initial.length + skippedInitial >= expected) flushInitial();
      return;
    }
    flushInitial();
    if (shown) printObjects([obj]);
  };
  // kubectl's "No resources found" for an empty start, with the hint a first-time user needs.
  const emptyHint = (r: TraceRecord) => {
    const i = o.resources.length > 1 ? o.resources.findIndex((x) => displayName(x) === r.resource) : 0;
    const ns = o.targets[i]?.namespace;
    stopSpinner();
    printer.flush();
    err.write(ns ? `No resources found in ${ns} namespace (watching for changes; -A watches all namespaces).\n` : 'No resources found (watching for changes).\n');
  };
  const onOutputError = (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') o.stop.stop('output closed'); // `kwatch events … | head` ends quietly
  };
  out.on('error', onOutputError);

  let recording: RecordingFile | undefined;
  const informers: SharedIndexInformer[] = [];
  try {
    recording = await runEventsPipeline(o, {
      informers,
      onSynced: stopSpinner,
      firstContact: o.firstContact && {
        ...o.firstContact,
        onRetry: (r) => {
          stopSpinner();
          printer.flush();
          o.firstContact?.onRetry?.(r);
        },
      },
      onFatal: () => {
        muted = true;
      },
      traceObjects: o.diff !== undefined || o.template !== undefined,
    });
  } finally {
    stopSpinner();
    unsubscribe();
    if (o.template) flushInitial();
    printer.end();
    out.off('error', onOutputError);
  }
  if (templateError) throw templateError;
  if (!stdoutFailed()) {
    err.write(`${summary.format({ color: shouldColor(err, process.env) })}\n`);
    writeInformerMetrics(informers, err);
  }
  reportRecording(recording, err);
}

/** --live: the dashboard draws from the trace until q / Ctrl-C (or --for, --max-events, …); the summary follows on the restored screen. */
async function watchEventsLive(o: WatchEventsOptions, out: NodeJS.WriteStream, err: NodeJS.WritableStream): Promise<void> {
  const { startLiveSession } = await import('./live-session.js');
  const { informerMetricsPanel } = await import('../render/live/informer-metrics-panel.js');
  // Filled once the pipeline has built them: the metrics panel reads them on every frame.
  const informers: SharedIndexInformer[] = [];
  const selectors = [...new Set(o.targets.map((t) => [t.labelSelector, t.fieldSelector].filter(Boolean).join(',')).filter(Boolean))];
  const namespaces = [...new Set(o.targets.map((t) => t.namespace ?? '(all)'))];
  const live = await startLiveSession({
    tracer: o.tracer,
    info: {
      context: o.conn.contextName,
      server: o.conn.server,
      resources: o.resources.map(displayName).join(','),
      namespace: o.targets.some((t) => t.namespaced) ? namespaces.join(',') : undefined,
      selector: selectors.join(' ') || undefined,
    },
    stages: o.stages,
    follow: o.followKey,
    snapshotDir: o.snapshotDir,
    diff: o.diff,
    showSecrets: o.showSecrets,
    panel: { content: () => informerMetricsPanel(informers) },
    stdout: out,
    onQuit: () => o.stop.stop('quit'),
  });
  let recording: RecordingFile | undefined;
  try {
    recording = await runEventsPipeline(o, {
      informers,
      // A retry notice written to the terminal would land in the middle of the dashboard.
      firstContact: o.firstContact && { ...o.firstContact, onRetry: (r) => live.dashboard.notice(retryLine(r.what, r.error, r.delayMs)) },
      onSynced: () => live.dashboard.notice(''),
      // Objects only with --diff: the followed key's updates then show what changed.
      traceObjects: o.diff !== undefined,
    });
  } finally {
    live.stop();
  }
  err.write(`${live.summary.format({ color: shouldColor(err as { isTTY?: boolean }, process.env) })}\n`);
  writeInformerMetrics(informers, err);
  reportRecording(recording, err);
}

/** How a view follows the pipeline: its first-contact retries, the end of the initial sync, a fatal error. */
interface PipelineHooks {
  firstContact?: FirstContactOptions;
  onSynced: () => void;
  onFatal?: () => void;
  /** Trace records carry the objects (for --diff, or a template). */
  traceObjects: boolean;
  /** Filled with the informers once built, for the metrics lines after the summary. */
  informers?: SharedIndexInformer[];
}

/** After the summary: each informer's metrics, in client-go 1.36's names. */
function writeInformerMetrics(informers: SharedIndexInformer[], err: NodeJS.WritableStream): void {
  for (const i of informers) err.write(`${formatInformerMetrics(i.name, i.metrics())}\n`);
}

/**
 * What both views run: the watched resources (recorded with --record) through the informer pipeline until it stops.
 * Resolves with the recording, closed, for reportRecording.
 */
async function runEventsPipeline(o: WatchEventsOptions, hooks: PipelineHooks): Promise<RecordingFile | undefined> {
  const recording = o.record ? await openEventsRecording(o, o.record) : undefined;
  try {
    await runWatchPipeline({
      sources: watchedSources(o, recording),
      tracer: o.tracer,
      signal: o.stop.signal,
      maxEvents: o.maxEvents,
      untilSynced: o.untilSynced,
      firstContact: hooks.firstContact,
      onSynced: hooks.onSynced,
      onFatal: hooks.onFatal,
      onInformers: (informers) => hooks.informers?.push(...informers),
      stallAfterMs: o.stallAfterMs,
      pipeline: {
        fifo: o.fifo,
        batchProcess: o.batchProcess,
        useWatchList: o.useWatchList,
        initialEventsEndTimeoutMs: o.initialEventsEndTimeoutMs,
        fallbackWithoutInitialEventsEnd: o.fallbackWithoutInitialEventsEnd,
        resyncPeriodMs: o.resyncPeriodMs,
        watchdogMs: o.watchIdleTimeoutMs,
        keepManagedFields: o.keepManagedFields,
        traceObjects: hooks.traceObjects,
      },
    });
  } finally {
    recording?.file.close();
  }
  return recording?.file;
}

/** After the summary: a recording that failed is the command's error; one that worked says where it went. */
function reportRecording(recording: RecordingFile | undefined, err: NodeJS.WritableStream): void {
  if (recording?.failure) throw new UserError(recording.failure.message);
  if (recording) err.write(`recorded ${recording.lines} lines to ${recording.path}\n`);
}

const HANDLER_OPS = new Set(['OnAdd', 'OnUpdate', 'OnDelete']);

/** --record's file, and how each source's lister-watcher writes into it. */
interface EventsRecording {
  file: RecordingFile;
  wrap(lw: ListerWatcher, resourceIndex: number): ListerWatcher;
}

/** One source per watched resource, recorded when asked. */
function watchedSources(o: WatchEventsOptions, recording: EventsRecording | undefined) {
  return o.resources.map((r, i) => {
    // A recording keeps what the server sent; otherwise managedFields the cache would strip are never decoded.
    const lw: ListerWatcher = new HttpListerWatcher(o.conn, o.targets[i], { omitManagedFields: !o.keepManagedFields && !recording, wire: o.wire });
    return { name: displayName(r), kind: r.kind, listerWatcher: recording ? recording.wrap(lw, i) : lw };
  });
}

/** Opens --record's file; the recording code is loaded only by the runs that record. */
async function openEventsRecording(o: WatchEventsOptions, rec: NonNullable<WatchEventsOptions['record']>): Promise<EventsRecording> {
  const [{ openRecording }, { RecordingListerWatcher }] = await Promise.all([import('./recording-open.js'), import('../kube/recording/recording-lister-watcher.js')]);
  const file = openRecording(rec.path, {
    server: o.conn.server,
    resources: o.resources.map((r, i) => {
      const t = o.targets[i];
      const byName = t.name ? `metadata.name=${t.name}` : undefined;
      const fieldSelector = [t.fieldSelector, byName].filter(Boolean).join(',') || undefined;
      return { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced, namespace: t.namespace, labelSelector: t.labelSelector, fieldSelector };
    }),
    showSecrets: rec.showSecrets,
    kwatchVersion: rec.kwatchVersion,
    onFailure: () => o.stop.stop('recording failed'),
    watchList:
      o.useWatchList && o.initialEventsEndTimeoutMs !== undefined
        ? { initialEventsEndTimeoutMs: o.initialEventsEndTimeoutMs, fallbackWithoutInitialEventsEnd: o.fallbackWithoutInitialEventsEnd ?? false }
        : undefined,
  });
  return { file, wrap: (lw, i) => new RecordingListerWatcher(lw, file, i) };
}
