// Wires kwatch reconcile: the user's controllers over shared informers — of a live server (catalog and
// writer from src/kube) or of a recording replayed on virtual time — the trace into the printer, the
// ways to stop (Ctrl-C, --for, --max-events, --once's idle queue, the recording's end), and the verdict:
// the --once report and its exit code.
import { formatInformerMetrics } from '../informer/informer-metrics.js';
import type { MetricsSource } from '../render/live/informer-metrics-panel.js';
import type { TraceRecord, Tracer } from '../informer/trace.js';
import { metaNamespaceKey, type ListerWatcher } from '../informer/types.js';
import { VirtualClock } from '../informer/recording/virtual-clock.js';
import { driveVirtualTime } from '../informer/recording/virtual-time-driver.js';
import { realClock, type Clock } from '../informer/clock.js';
import { seededRandom } from '../informer/seeded-random.js';
import type { Connection } from '../kube/http/connection.js';
import type { DiscoveryClientOptions } from '../kube/discovery/discovery-client.js';
import { HttpResourceCatalog, type CatalogScope } from '../kube/discovery/resource-catalog.js';
import { DEFAULT_FIRST_CONTACT_MS, FirstContact, type FirstContactOptions } from '../kube/http/first-contact.js';
import { FirstContactListerWatcher } from '../kube/lister-watchers/first-contact-lister-watcher.js';
import { EventGate, GatedListerWatcher } from '../kube/lister-watchers/gated-lister-watcher.js';
import { HttpObjectWriter } from '../kube/http/object-writer.js';
import { untilIdle } from '../kube/pipelines/until-idle.js';
import type { RecordingFile, RecordingSink } from '../kube/recording/recording-file.js';
import { RecordingListerWatcher } from '../kube/recording/recording-lister-watcher.js';
import type { ResourceCatalog, ResourceInfo } from '../reconcile/catalog.js';
import type { LoadedController } from '../reconcile/module-loader.js';
import { checkExpectation, expectationKey, type Expectation } from '../reconcile/expectations.js';
import { RecordingCatalog } from '../reconcile/recording-catalog.js';
import { ReconcileSession } from '../reconcile/session.js';
import { MaxWritesReached, type WriteLimits } from '../reconcile/write-limiter.js';
import type { WriteMode } from '../reconcile/writes.js';
import { shouldColor } from '../render/color.js';
import { loopLine, reconcileReportTable, reconcileVerdict, reportRecord } from '../render/reconcile-report.js';
import { RECONCILE_DEFAULT_STAGES, type StageSelection } from '../render/stage-filter.js';
import { TraceSummary } from '../render/summary.js';
import { createTracePrinter, type TraceOutput } from '../render/trace-printer.js';
import { openRecording, type RecordedResource } from './recording-open.js';
import { loadRecording } from './replay-run.js';
import type { StopSignal } from './stop-signal.js';
import { UserError } from './user-error.js';
import { formatMs, formatSeconds } from '../render/format-units.js';
import { PriorityQueue } from '../informer/workqueue/priority-queue.js';
import { describeInject, isWriteFault, type InjectFault } from '../faults/inject-spec.js';
import { FaultyListerWatcher, type FaultFired } from '../faults/faulty-lister-watcher.js';
import { WatchFaults } from '../faults/watch-faults.js';
import { WriteFaults } from '../faults/write-faults.js';
import { describeFault, ReplayFaults, type ReplayFault } from '../informer/recording/replay-faults.js';
import type { RecordedWatchListSettings } from '../informer/recording/recording-format.js';

/** Where the objects come from: a live server, or a recording made with `kwatch events --record`. */
export type ReconcileSource =
  | {
      kind: 'server';
      conn: Connection;
      scope: CatalogScope;
      discovery: DiscoveryClientOptions;
      firstContact?: FirstContactOptions;
      record?: { path: string; kwatchVersion: string };
      /** The informers sync with a watch-list (--watch-list, the default), with its bound and --fallback; undefined: LIST first. */
      watchList?: { initialEventsEndTimeoutMs: number; fallbackWithoutInitialEventsEnd: boolean };
    }
  | { kind: 'recording'; path: string };

export interface ReconcileRunOptions {
  source: ReconcileSource;
  /** Receives every stage's records (and, live, the connection's http records). */
  tracer: Tracer;
  controllers: LoadedController[];
  mode: WriteMode;
  output: TraceOutput;
  stages?: StageSelection;
  diff?: 'changed' | 'all';
  showSecrets: boolean;
  concurrency: number;
  debounceMs: number;
  loopThreshold: number;
  resyncPeriodMs?: number;
  queue?: 'priority' | 'fifo';
  starvedAfterMs?: number;
  readYourWrites?: boolean;
  fifo: 'real' | 'delta';
  fieldManager?: string;
  /** --expect: checked once --once settles; a mismatch exits 3. */
  expectations?: Expectation[];
  /** --qps/--burst/--max-writes for writes that are sent. */
  writeLimits?: WriteLimits;
  /** --reconcile-timeout in ms: a longer run is an error, `deadline exceeded`. */
  reconcileTimeoutMs?: number;
  /** --once: stop when the queue is idle and no failed key waits for its retry (or after maxReconciles runs, or settleTimeoutMs) and report. */
  once?: { maxReconciles?: number; settleTimeoutMs?: number };
  maxEvents?: number;
  stop: StopSignal;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
  /** --live: the dashboard with a reconcile panel instead of the trace lines (where the terminal allows). */
  live?: { followKey?: string; snapshotDir?: string };
  /** --inject: watch faults on the informers' streams, write faults on the controllers' writes. */
  faults?: readonly InjectFault[];
}

/** What differs between a live run and a replayed one. */
interface Backend {
  catalog: ResourceCatalog;
  session: Pick<ConstructorParameters<typeof ReconcileSession>[0], 'writer' | 'clock' | 'random'>;
  wrap(info: ResourceInfo, lw: ListerWatcher, role: 'primary' | 'secondary', onFatal: (e: Error) => void): ListerWatcher;
  /** A recording whose Secret data and credential fields were masked when it was made. */
  masked?: boolean;
  /** Once every declared informer exists (the recording's header names them). */
  afterSetup?(): void;
  /** When the run is over: a line for stderr, or a failure to report. */
  close?(): { note?: string; failure?: Error };
  /** --inject's watch faults that never fired, as given. */
  unusedFaults(): string[];
  /** The informers have started: @TIME faults count from now. */
  started?(): void;
  /**
   * Runs until stopped; `idle()` says every stage is done; `finish()` names why the run should end once idle:
   * 'max-events' (the budget is spent) or 'idle' (--once synced: end when the queue is idle).
   */
  drive(o: { run: AbortController; idle: () => boolean; finish: () => string | undefined; finishing: Promise<void>; progress: () => number }): Promise<void>;
}

/** The run could not start (a resource that does not exist, a recording that cannot be read): a usage error, exit 1. */
export class ReconcileSetupError extends Error {
  constructor(readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'ReconcileSetupError';
  }
}

/** --once exit codes: usage and load errors are 1 too (thrown, not returned). */
export const EXIT = { converged: 0, notConverged: 1, errors: 2, expectations: 3 } as const;

/** Default of --settle-timeout: how long --once waits for the queue to settle (failed keys' retries included). */
export const DEFAULT_SETTLE_TIMEOUT_MS = 30_000;
/** How long --once waits for runs in flight once --settle-timeout or --max-reconciles stopped it. */
export const RUNNING_GRACE_MS = 2_000;

/** Runs until stopped; resolves with the exit code (--once: 0 converged, 1 not converged or did not settle, 2 errors). */
export async function runReconcile(o: ReconcileRunOptions): Promise<number> {
  const out = o.stdout ?? process.stdout;
  const err = o.stderr ?? process.stderr;
  let backend: Backend;
  const writeFaults = new WriteFaults(o.faults ?? []);
  try {
    backend = o.source.kind === 'server' ? serverBackend(o.source, o) : recordingBackend(o.source.path, o.mode, o.faults ?? []);
    await checkPrimaries(o.controllers, backend.catalog);
  } catch (e) {
    throw new ReconcileSetupError(e);
  }

  const table = o.output === 'table' || o.output === 'wide';
  const printer = createTracePrinter({ output: o.output, stream: out, color: table && shouldColor(out, process.env), stages: o.stages, defaultStages: RECONCILE_DEFAULT_STAGES, diff: o.diff, showSecrets: o.showSecrets, batch: true });
  // A recording's run is timed on its own clock, by its records' times (as `kwatch replay` counts it): the wall clock
  // would say how long the replay took, ~0s at --speed max.
  const summary = o.source.kind === 'server' ? new TraceSummary({ startedAt: Date.now(), now: Date.now }) : new TraceSummary();
  let muted = false;
  let records = 0;
  const run = new AbortController();
  // The informers the --live panel draws metrics of: none until the session exists (the panel asks every frame).
  let informersNow: () => readonly MetricsSource[] = () => [];
  const live = o.live ? await startLive(o, out, err, () => o.stop.stop('quit'), () => informersNow()) : undefined;
  const unsubscribe = o.tracer.subscribe((r: TraceRecord) => {
    records++;
    if (muted) return;
    summary.add(r);
    if (!live) printer.write(r);
  });

  let fatal: Error | undefined;
  const onFatal = (e: Error) => {
    if (fatal) return;
    fatal = e;
    muted = true;
    run.abort(e);
  };
  const gate = new EventGate(o.maxEvents);
  const session = new ReconcileSession({
    ...backend.session,
    controllers: o.controllers.map((c) => ({ name: c.name, definition: c.definition, file: c.file })),
    catalog: backend.catalog,
    mode: o.mode,
    tracer: o.tracer,
    concurrency: o.concurrency,
    debounceMs: o.debounceMs,
    loopThreshold: o.loopThreshold,
    resyncPeriodMs: o.resyncPeriodMs,
    queue: o.queue,
    starvedAfterMs: o.starvedAfterMs,
    readYourWrites: o.readYourWrites,
    fifo: o.fifo,
    // A recording is replayed LIST+WATCH (the recorded lister-watcher turns a recorded watch-list into a list).
    watchList: o.source.kind === 'server' ? o.source.watchList : undefined,
    traceObjects: o.diff !== undefined,
    fieldManager: o.fieldManager,
    reconcileTimeoutMs: o.reconcileTimeoutMs,
    writeLimits: o.writeLimits,
    writeFaults: writeFaults.empty ? undefined : writeFaults,
    wrap: (info, lw, role) => new GatedListerWatcher(backend.wrap(info, lw, role, onFatal), gate),
    onMaskedRead: backend.masked ? maskedReadWarning(o.tracer, err, backend.session.clock ?? realClock) : undefined,
  });

  informersNow = () => session.factory.informers.map((e) => e.informer);

  let unsettled: string | undefined;
  const onUserStop = () => {
    run.abort(o.stop.signal.reason);
    const n = session.running();
    if (n > 0 && !live) err.write(`waiting for ${n} running ${n === 1 ? 'reconcile' : 'reconciles'} (again to force)\n`);
  };
  // A second signal: stop waiting for runs in flight, abort sent writes, report what there is.
  let forcedRunning = 0;
  let forceStop!: (reason: unknown) => void;
  const forced = new Promise<void>((resolve) => {
    forceStop = (reason) => {
      forcedRunning = session.running();
      unsettled ??= `forced to stop with ${forcedRunning} ${forcedRunning === 1 ? 'reconcile' : 'reconciles'} still running`;
      session.forceStop(reason);
      run.abort(reason);
      resolve();
    };
    const onForce = () => forceStop(o.stop.forced.reason);
    if (o.stop.forced.aborted) onForce();
    else o.stop.forced.addEventListener('abort', onForce, { once: true });
  });
  // --once stopped by a limit: runs still in flight get a grace period, then are left behind (JavaScript cannot stop
  // a reconcile that never returns; waiting on it would end the process with no report, Node's exit 13).
  let graceTimer: NodeJS.Timeout | undefined;
  const abandonHungRuns = () => {
    graceTimer ??= setTimeout(() => {
      if (session.running() > 0) forceStop(new Error(`stopped: a reconcile still running ${formatMs(RUNNING_GRACE_MS)} after the run was stopped`));
    }, RUNNING_GRACE_MS);
  };
  if (o.stop.signal.aborted) onUserStop();
  else o.stop.signal.addEventListener('abort', onUserStop, { once: true });
  let finishing: string | undefined;
  let finishRequested!: () => void;
  const whenFinishing = new Promise<void>((resolve) => (finishRequested = resolve));
  const requestFinish = (why: string) => {
    finishing ??= why;
    finishRequested();
  };
  let closed: ReturnType<NonNullable<Backend['close']>> | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  let expected: Awaited<ReturnType<typeof evaluateExpectations>> | undefined;
  let stuck: ReturnType<ReconcileSession['stuckDeleting']> | undefined;
  // A --once machine output stays open past the report rows for the verdict record, unless the run failed first.
  let ran = false;
  try {
    try {
      await session.setup();
    } catch (e) {
      throw new ReconcileSetupError(e);
    }
    // The kinds expectations name are watched from the start, so overlay keeps the writes to them.
    for (const e of o.expectations ?? []) await watchExpected(session, backend.catalog, e);
    backend.afterSetup?.();
    backend.started?.();
    const running = session.run(run.signal).catch((e: unknown) => onFatal(e instanceof Error ? e : new Error(String(e))));
    if (o.maxEvents !== undefined) void gate.whenClosed().then(() => requestFinish('max-events'));
    // A primary that lists nothing is almost always a selector or namespace that matches nothing.
    void session.whenSynced(run.signal).then(
      () => {
        if (live) return;
        for (const e of session.emptyPrimaries()) err.write(`Warning: ${e.controller}: ${e.resource} listed 0 objects (check -n, -l, --field-selector and the module's cache): nothing to reconcile\n`);
      },
      () => {},
    );
    if (o.once) {
      void session.whenSynced(run.signal).then(
        () => {
          const keys = session.runners.reduce((n, r) => n + r.primarySize(), 0);
          session.report.limitRuns(o.once!.maxReconciles ?? Math.max(10, 10 * keys), () => {
            unsettled ??= 'stopped at --max-reconciles';
            run.abort(new Error('stopped: --max-reconciles'));
            abandonHungRuns();
          });
          const settleMs = o.once!.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS;
          settleTimer = setTimeout(() => {
            unsettled ??= `not settled within --settle-timeout ${formatMs(settleMs)}`;
            run.abort(new Error('stopped: --settle-timeout'));
            abandonHungRuns();
          }, settleMs);
          settleTimer.unref();
          requestFinish('idle');
        },
        () => {},
      );
    }
    await backend.drive({
      run,
      // --once also waits for failed keys' retries: a conflict that the next attempt resolves is not a failure.
      idle: () => gate.inFlight === 0 && session.isIdle() && (!o.once || session.retriesDue() === 0),
      finish: () => finishing,
      finishing: whenFinishing,
      progress: () => records,
    });
    run.abort(new Error('stopped'));
    await Promise.race([running, forced]);
    ran = true;
  } finally {
    clearTimeout(settleTimer);
    clearTimeout(graceTimer);
    o.stop.signal.removeEventListener('abort', onUserStop);
    unsubscribe();
    // The screen is restored before anything else is written (the report, the summary, an error).
    live?.stop();
    closed = backend.close?.();
    if (!fatal && o.once && o.expectations) expected = await evaluateExpectations(o.expectations, session, backend.catalog);
    if (!fatal && o.once && !table) for (const r of session.report.rows()) printer.write(reportRecord(r, Date.now()) as unknown as TraceRecord);
    if (!fatal && o.once) stuck = session.stuckDeleting();
    if (!table) for (const x of stuck ?? []) printer.write({ time: Date.now(), stage: 'reconcile', op: 'stuck-deleting', key: x.key, resource: x.resource, finalizers: x.finalizers } as TraceRecord);
    if (!table) for (const x of expected ?? []) printer.write({ time: Date.now(), stage: 'reconcile', op: 'expect', key: x.key, resource: x.resource, absent: x.result.expectation.absent || undefined, met: x.result.met, diff: x.result.met ? undefined : x.result.diff } as TraceRecord);
    if (table || !o.once || !ran || fatal) printer.end();
  }
  // A reconciler that writes without end: one line, a reconcile error (2) with or without --once.
  if (fatal instanceof MaxWritesReached) throw new UserError(fatal.message, EXIT.errors);
  if (fatal) throw fatal;
  if (closed?.failure) {
    printer.end();
    throw closed.failure;
  }

  err.write(`${summary.format({ color: shouldColor(err as { isTTY?: boolean }, process.env) })}\n`);
  // After the summary, as events prints them: each informer's metrics in client-go 1.36's names.
  for (const { informer } of session.factory.informers) err.write(`${formatInformerMetrics(informer.name, informer.metrics())}\n`);
  if (closed?.note) err.write(`${closed.note}\n`);
  const unused = [...backend.unusedFaults(), ...writeFaults.unused()];
  if (unused.length) err.write(`Warning: --inject ${unused.join(', ')} never fired\n`);
  for (const f of session.loops.findings) err.write(`${loopLine(f)}\n`);
  for (const line of priorityQueueLines(session)) err.write(`${line}\n`);
  for (const s of session.writes.ownWrites.staleReads) err.write(`stale-read: ${s.controller} run ${s.key} read ${s.resource} ${s.readKey} at resourceVersion ${s.cachedRv}, older than its own write (${s.writtenRv})${o.readYourWrites ? '' : '; --read-your-writes waits for it'}\n`);
  if (!o.once) return 0;
  const rows = session.report.rows();
  if (table) out.write(`\n${reconcileReportTable(rows, o.controllers.length > 1, { color: shouldColor(out, process.env) })}`);
  const loops = session.loops.findings.length;
  const verdictText = reconcileVerdict(rows, session.report.runs, { unsettled, loops });
  err.write(`${verdictText}\n`);
  for (const x of stuck ?? []) err.write(`stuck deleting: ${x.resource} ${x.key}, held by finalizers ${x.finalizers.join(', ')}\n`);
  const missed = expected ? reportExpectations(expected, err) : 0;
  const verdict = session.report.verdict({ loops, unsettled: unsettled !== undefined, expectationsMissed: missed });
  const code = verdict === 'errors' ? EXIT.errors : verdict === 'expectations' ? EXIT.expectations : verdict === 'not-converged' ? EXIT.notConverged : EXIT.converged;
  // Machine outputs end with the verdict a CI step acts on, as the exit code and the last stderr line give it.
  const message = verdict === 'expectations' ? `expectations: ${missed} of ${expected!.length} not met` : verdictText;
  if (!table) printer.write({ time: Date.now(), stage: 'reconcile', op: 'verdict', key: null, verdict, exit: code, mode: o.mode, message } as unknown as TraceRecord);
  printer.end();
  return code;
}

/**
 * Each controller's priority queue: ready keys per priority now and at their peak (controller-runtime's depth
 * metric has a priority label since 0.22), then one line per `starved` finding.
 */
function priorityQueueLines(session: ReconcileSession): string[] {
  const lines: string[] = [];
  const levels = (d: [number, number][]) => (d.length ? d.map(([p, n]) => `${p}:${n}`).join(' ') : 'none');
  for (const r of session.runners) {
    const q = r.controller.queue;
    if (!(q instanceof PriorityQueue)) continue;
    lines.push(`queue ${r.name} (priority): ready by priority now ${levels(q.depthByPriority())}, at peak ${levels(q.peakDepthByPriority())}`);
    for (const s of q.starved) lines.push(`starved: ${r.name} ${s.item} (priority ${s.priority}) ready ${formatSeconds(s.waitedMs)} while keys of priority ${s.overtakenByPriority} went first`);
  }
  return lines;
}

/** --live on a terminal: the dashboard, its reconcile panel fed by the same trace; undefined (said in one line) without one. */
async function startLive(o: ReconcileRunOptions, out: NodeJS.WritableStream & { isTTY?: boolean }, err: NodeJS.WritableStream, quit: () => void, informersNow: () => readonly MetricsSource[]) {
  // Asked first: a run that cannot draw never loads the live session.
  const { canDrawLive } = await import('./live-available.js');
  if (!canDrawLive(out, err)) return undefined;
  const { startLiveSession } = await import('./live-session.js');
  const { ReconcileStats } = await import('../render/live/reconcile-panel.js');
  const { informerMetricsPanel } = await import('../render/live/informer-metrics-panel.js');
  const panel = new ReconcileStats();
  const src = o.source;
  const names = o.controllers.map((c) => c.name).join(', ');
  return startLiveSession({
    tracer: o.tracer,
    info:
      src.kind === 'server'
        ? { context: src.conn.contextName, server: src.conn.server, resources: o.controllers.map((c) => c.cliResource ?? c.moduleFor ?? '?').join(','), namespace: src.scope.namespace ?? '(all)', selector: src.scope.labelSelector }
        : { server: `recording ${src.path}`, resources: o.controllers.map((c) => c.cliResource ?? c.moduleFor ?? '?').join(',') },
    stages: o.stages,
    defaultStages: RECONCILE_DEFAULT_STAGES,
    follow: o.live?.followKey,
    snapshotDir: o.live?.snapshotDir,
    diff: o.diff,
    showSecrets: o.showSecrets,
    panel: {
      // The reconcile panel, then the informers' metrics (client-go 1.36's names) as events --live draws them.
      content: () => {
        const informers = informerMetricsPanel(informersNow());
        return { title: `reconcile: ${names} (writes ${o.mode})`, lines: [...panel.lines(), '', informers.title, ...informers.lines] };
      },
      add: panel.add,
    },
    stdout: out as NodeJS.WriteStream,
    onQuit: quit,
  });
}

/** A live server: discovery names resources, writes go over HTTP, first contact follows the events policy. */
function serverBackend(src: Extract<ReconcileSource, { kind: 'server' }>, o: ReconcileRunOptions): Backend {
  const catalog = new HttpResourceCatalog(src.conn, { ...src.scope, keepManagedFields: src.record !== undefined }, src.discovery);
  const recorder = src.record ? new ReconcileRecorder(src.record, src.conn.server, catalog, o.stop, src.watchList) : undefined;
  const faults = new WatchFaults(o.faults ?? []);
  // What the server sent is recorded; the faults act between it and the informer, as a flaky network would.
  const faulty = (info: ResourceInfo, lw: ListerWatcher) => (faults.empty ? lw : new FaultyListerWatcher(lw, faults, realClock, faultTracer(o.tracer, info)));
  return {
    catalog,
    session: { writer: o.mode === 'server-dry-run' || o.mode === 'apply' ? new HttpObjectWriter(src.conn) : undefined },
    wrap: (info, lw, role, onFatal) => new FirstContactListerWatcher(faulty(info, recorder ? recorder.wrap(info, lw) : lw), new FirstContact({ signal: o.stop.signal, ...(src.firstContact ?? { deadlineMs: DEFAULT_FIRST_CONTACT_MS }) }), info.name, onFatal),
    afterSetup: () => recorder?.open(),
    started: () => faults.start(),
    unusedFaults: () => faults.unused(),
    close: () => {
      faults.stop();
      return recorder?.close() ?? {};
    },
    async drive({ run, idle, finishing }) {
      // Nothing to poll until a stop condition is met (or the user stops the run).
      if (!run.signal.aborted) await Promise.race([finishing, new Promise((resolve) => run.signal.addEventListener('abort', resolve, { once: true }))]);
      // Between macrotasks: every event handed to a reflector has reached its FIFO by then.
      await untilIdle(idle, run.signal, Infinity);
    },
  };
}

/**
 * --record: what the server sent to the informers the controllers declare (for, owns, watches), for
 * --from-recording later. The header names them, so the file opens once they exist; a kind a reconciler
 * reads only later through ctx.get is not recorded (said on stderr).
 */
class ReconcileRecorder {
  private readonly resources: RecordedResource[] = [];
  private file?: RecordingFile;
  private readonly late: string[] = [];

  constructor(
    private readonly rec: { path: string; kwatchVersion: string },
    private readonly server: string,
    private readonly catalog: HttpResourceCatalog,
    private readonly stop: StopSignal,
    /** The informers' watch-list bound and --fallback, kept in the header for a replay's reflector. */
    private readonly watchList: RecordedWatchListSettings | undefined,
  ) {}

  wrap(info: ResourceInfo, lw: ListerWatcher): ListerWatcher {
    if (this.file) {
      this.late.push(info.name);
      return lw;
    }
    const t = this.catalog.targetOf(info)!;
    this.resources.push({ group: t.group, version: t.version, resource: t.resource, kind: info.kind, namespaced: t.namespaced, namespace: t.namespace, labelSelector: t.labelSelector, fieldSelector: t.fieldSelector });
    const sink: RecordingSink = { elapsed: () => this.file!.elapsed(), nextConn: () => this.file!.nextConn(), write: (e) => this.file?.write(e) };
    return new RecordingListerWatcher(lw, sink, this.resources.length - 1);
  }

  open(): void {
    this.file = openRecording(this.rec.path, { server: this.server, resources: this.resources, showSecrets: false, kwatchVersion: this.rec.kwatchVersion, onFailure: () => this.stop.stop('recording failed'), watchList: this.watchList });
  }

  close(): { note?: string; failure?: Error } {
    if (!this.file) return {};
    this.file.close();
    if (this.file.failure) return { failure: new UserError(this.file.failure.message) };
    const late = this.late.length ? ` (not recorded: ${this.late.join(', ')}, first read by a reconciler after the start)` : '';
    return { note: `recorded ${this.file.lines} lines to ${this.file.path}${late}` };
  }
}

/** A recording: its resources replayed on its own virtual time, so every run traces the same records. */
function recordingBackend(path: string, mode: WriteMode, inject: readonly InjectFault[]): Backend {
  if (mode !== 'intercept' && mode !== 'overlay') throw new UserError(`--from-recording has no server to send writes to: use --writes intercept or overlay (not ${mode})`);
  const faults = new ReplayFaults(inject.flatMap(replayFaultOf));
  const recording = loadRecording(path);
  const first = recording.firstT;
  const last = recording.lastT;
  const clock = new VirtualClock(recording.startEpoch + first - 1);
  const catalog = new RecordingCatalog(recording, clock, path, faults);
  return {
    catalog,
    masked: recording.header.masked,
    session: { clock, random: seededRandom(1) },
    wrap: (_info, lw) => lw,
    unusedFaults: () => faults.unused().map(describeFault),
    async drive({ run, idle, finish, progress }) {
      await driveVirtualTime({
        clock,
        progress,
        signal: run.signal,
        horizon: recording.startEpoch + last + 10 * 60_000,
        // The recording's end (with --once too: the recording is the whole cluster), or the event budget.
        done: () => (idle() && (finish() === 'max-events' || catalog.exhausted()) ? 'end' : undefined),
      });
    },
  };
}

/**
 * A recording is replayed as `replay --inject` replays it: watch faults are placed by resourceVersion (its events carry
 * the recorded ones), on the recording's virtual time; write faults act on the writes (not here).
 */
function replayFaultOf(f: InjectFault): ReplayFault[] {
  if (isWriteFault(f)) return [];
  if (f.kind === 'hide-delete') return [f];
  if (f.kind === 'delay') throw new UserError(`--inject ${describeInject(f)}: a recording is replayed at its own pace; use replay's --speed instead of delay with --from-recording`);
  if ('afterMs' in f.at) throw new UserError(`--inject ${describeInject(f)}: with --from-recording, place a watch fault at a resourceVersion of the recording (e.g. ${f.kind}@1234), not at a time`);
  return [{ kind: f.kind, rv: f.at.rv }];
}

/** A watch fault that fired on an informer's stream: a reflector `fault` record (shown with its lifecycle). */
function faultTracer(tracer: Tracer, info: ResourceInfo): FaultFired {
  return (fault, event) => {
    if (!tracer.enabled) return;
    const watched = event && event.type !== 'ERROR' && event.type !== 'BOOKMARK' ? event.object : undefined;
    tracer.emit({ time: Date.now(), stage: 'reflector', op: 'fault', resource: info.name, key: watched ? metaNamespaceKey(watched) : undefined, rv: event?.object.metadata?.resourceVersion, event: event?.type, fault });
  };
}

/**
 * A reconciler read a value the recording masked: once per resource and field, a warning naming it (the
 * run may differ from one against the cluster) and a `masked-read` record.
 */
function maskedReadWarning(tracer: Tracer, err: NodeJS.WritableStream, clock: Clock): (controller: string, resource: string, key: string, path: string) => void {
  const warned = new Set<string>();
  return (controller, resource, key, path) => {
    const id = `${resource}\u0000${path}`;
    if (warned.has(id)) return;
    warned.add(id);
    err.write(`Warning: ${controller} read ${resource} ${key} ${path}, which the recording masked: it sees a placeholder, not the value, so this replay may differ from the cluster (record with --show-secrets to keep such values)\n`);
    if (tracer.enabled) tracer.emit({ time: clock.now(), stage: 'reconcile', op: 'masked-read', key, controller, resource, field: path });
  };
}

/** Starts the informer of an expectation's kind (when the source has it), before the run starts. */
async function watchExpected(session: ReconcileSession, catalog: ResourceCatalog, e: Expectation): Promise<void> {
  try {
    const info = await catalog.resolveKind(e.apiVersion, e.kind);
    await catalog.resolve(info.name);
    await session.factory.informerFor(info);
  } catch (err) {
    throw new UserError(`${e.where}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Each expectation against the end state (the informers' caches). */
async function evaluateExpectations(list: Expectation[], session: ReconcileSession, catalog: ResourceCatalog) {
  const out = [];
  for (const e of list) {
    const info = await catalog.resolveKind(e.apiVersion, e.kind);
    const key = expectationKey(e);
    out.push({ key, resource: info.name, result: checkExpectation(e, session.factory.existing(info)?.informer.getIndexer().getByKey(key)) });
  }
  return out;
}

/** A block per failed expectation and a count line on stderr; returns how many failed. */
function reportExpectations(results: Awaited<ReturnType<typeof evaluateExpectations>>, err: NodeJS.WritableStream): number {
  const failed = results.filter((x) => !x.result.met);
  for (const x of failed) {
    const e = x.result.expectation;
    err.write(`expectation not met: ${x.resource} ${x.key}${e.absent ? ' (absent)' : ''} (${e.where})\n${x.result.diff.map((d) => `  ${d}`).join('\n')}\n`);
  }
  err.write(failed.length === 0 ? `expectations: ${results.length} of ${results.length} met\n` : `expectations: ${failed.length} of ${results.length} not met\n`);
  return failed.length;
}

/** RESOURCE on the command line and a module's `for` must name the same resource. */
async function checkPrimaries(controllers: LoadedController[], catalog: ResourceCatalog): Promise<void> {
  for (const c of controllers) {
    if (!c.definition.for) throw new UserError(`${c.file}: names no primary resource: give RESOURCE on the command line or \`for\` in the module`);
    if (c.cliResource && c.moduleFor) {
      const [a, b] = await Promise.all([catalog.resolve(c.cliResource), catalog.resolve(c.moduleFor)]);
      if (a.group !== b.group || a.resource !== b.resource) throw new UserError(`${c.file} reconciles ${b.name}, but the command line names ${a.name}: leave RESOURCE out or name the same resource`);
    }
  }
}
