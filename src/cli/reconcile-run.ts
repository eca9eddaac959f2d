// Wires kwatch reconcile: the user's controllers over the shared informers of a live server (catalog
// and writer from src/kube), the trace into the printer, the ways to stop (Ctrl-C, --for, --max-events,
// --once's idle queue), and the verdict: the --once report and its exit code.
import type { TraceRecord, Tracer } from '../informer/trace.js';
import type { Connection } from '../kube/connection.js';
import type { DiscoveryClientOptions } from '../kube/discovery-client.js';
import { HttpResourceCatalog, type CatalogScope } from '../kube/discovery/resource-catalog.js';
import { DEFAULT_FIRST_CONTACT_MS, FirstContact, type FirstContactOptions } from '../kube/first-contact.js';
import { FirstContactListerWatcher } from '../kube/first-contact-lister-watcher.js';
import { EventGate, GatedListerWatcher } from '../kube/gated-lister-watcher.js';
import { HttpObjectWriter } from '../kube/http/object-writer.js';
import { untilIdle } from '../kube/until-idle.js';
import type { ResourceCatalog } from '../reconcile/catalog.js';
import type { LoadedController } from '../reconcile/module-loader.js';
import { ReconcileSession } from '../reconcile/session.js';
import type { WriteMode } from '../reconcile/writes.js';
import { shouldColor } from '../render/color.js';
import { loopLine, reconcileReportTable, reconcileVerdict, reportRecord } from '../render/reconcile-report.js';
import { RECONCILE_DEFAULT_STAGES, type StageSelection } from '../render/stage-filter.js';
import { TraceSummary } from '../render/summary.js';
import { createTracePrinter, type TraceOutput } from '../render/trace-printer.js';
import type { StopSignal } from './stop-signal.js';
import { UserError } from './user-error.js';

export interface ReconcileRunOptions {
  conn: Connection;
  /** The connection's tracer: http records and every stage's records meet here. */
  tracer: Tracer;
  controllers: LoadedController[];
  scope: CatalogScope;
  discovery: DiscoveryClientOptions;
  mode: WriteMode;
  output: TraceOutput;
  stages?: StageSelection;
  diff?: 'changed' | 'all';
  showSecrets: boolean;
  concurrency: number;
  debounceMs: number;
  loopThreshold: number;
  resyncPeriodMs?: number;
  fifo: 'real' | 'delta';
  fieldManager?: string;
  /** --once: stop when the queue is idle (or after maxReconciles runs) and report. */
  once?: { maxReconciles?: number };
  maxEvents?: number;
  /** How the first LIST or watch of each resource retries a failing server (events' policy). */
  firstContact?: FirstContactOptions;
  stop: StopSignal;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

/** Runs until stopped; resolves with the exit code (--once: 0 converged, 1 writes pending, 2 errors). */
export async function runReconcile(o: ReconcileRunOptions): Promise<number> {
  const out = o.stdout ?? process.stdout;
  const err = o.stderr ?? process.stderr;
  const catalog = new HttpResourceCatalog(o.conn, o.scope, o.discovery);
  await checkPrimaries(o.controllers, catalog);

  const table = o.output === 'table' || o.output === 'wide';
  const printer = createTracePrinter({ output: o.output, stream: out, color: table && shouldColor(out, process.env), stages: o.stages, defaultStages: RECONCILE_DEFAULT_STAGES, diff: o.diff, showSecrets: o.showSecrets, batch: true });
  const summary = new TraceSummary({ startedAt: Date.now(), now: Date.now });
  let muted = false;
  const unsubscribe = o.tracer.subscribe((r: TraceRecord) => {
    if (muted) return;
    summary.add(r);
    printer.write(r);
  });

  const run = new AbortController();
  let fatal: Error | undefined;
  const onFatal = (e: Error) => {
    if (fatal) return;
    fatal = e;
    muted = true;
    run.abort(e);
  };
  const gate = new EventGate(o.maxEvents);
  const session = new ReconcileSession({
    controllers: o.controllers.map((c) => ({ name: c.name, definition: c.definition })),
    catalog,
    mode: o.mode,
    writer: o.mode === 'server-dry-run' || o.mode === 'apply' ? new HttpObjectWriter(o.conn) : undefined,
    tracer: o.tracer,
    concurrency: o.concurrency,
    debounceMs: o.debounceMs,
    loopThreshold: o.loopThreshold,
    resyncPeriodMs: o.resyncPeriodMs,
    fifo: o.fifo,
    traceObjects: o.diff !== undefined,
    fieldManager: o.fieldManager,
    wrap: (info, lw) => new GatedListerWatcher(new FirstContactListerWatcher(lw, new FirstContact({ signal: o.stop.signal, ...(o.firstContact ?? { deadlineMs: DEFAULT_FIRST_CONTACT_MS }) }), info.name, onFatal), gate),
  });

  const onUserStop = () => run.abort(o.stop.signal.reason);
  if (o.stop.signal.aborted) onUserStop();
  else o.stop.signal.addEventListener('abort', onUserStop, { once: true });
  let limited = false;
  try {
    await session.setup();
    const running = session.run(run.signal).catch((e: unknown) => onFatal(e instanceof Error ? e : new Error(String(e))));
    const finish = async () => {
      await untilIdle(() => gate.inFlight === 0 && session.isIdle(), run.signal, Infinity);
      run.abort(new Error('stopped'));
    };
    if (o.maxEvents !== undefined) void gate.whenClosed().then(finish);
    if (o.once) {
      void session.whenSynced(run.signal).then(
        () => {
          const keys = session.runners.reduce((n, r) => n + r.primarySize(), 0);
          const max = o.once!.maxReconciles ?? Math.max(10, 10 * keys);
          session.report.limitRuns(max, () => {
            limited = true;
            run.abort(new Error('stopped: --max-reconciles'));
          });
          void untilIdle(() => gate.inFlight === 0 && session.isIdle(), run.signal, Infinity).then(() => run.abort(new Error('stopped: idle')));
        },
        () => {},
      );
    }
    await running;
  } finally {
    o.stop.signal.removeEventListener('abort', onUserStop);
    unsubscribe();
    if (!fatal && o.once && !table) for (const r of session.report.rows()) printer.write(reportRecord(r, Date.now()) as unknown as TraceRecord);
    printer.end();
  }
  if (fatal) throw fatal;

  err.write(`${summary.format()}\n`);
  for (const f of session.loops.findings) err.write(`${loopLine(f)}\n`);
  if (!o.once) return 0;
  const rows = session.report.rows();
  if (table) out.write(`\n${reconcileReportTable(rows, o.controllers.length > 1)}`);
  err.write(`${reconcileVerdict(rows, session.report.runs, limited)}\n`);
  if (rows.some((r) => r.result === 'error')) return 2;
  return session.report.pending().length > 0 ? 1 : 0;
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
