// Wires `kwatch reconcile --exec -- CMD` and `kwatch proxy`: the endpoint between a controller process and the target
// (forwarding, the fork under overlay), the kubeconfig the controller reads, the child itself, the trace into the
// printer, the ways to stop (the child's exit, Ctrl-C, --for, --once's settle), and the report with its exit code.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { InjectFault } from '../faults/inject-spec.js';
import type { Stage, TraceRecord, Tracer } from '../informer/trace.js';
import type { Connection } from '../kube/http/connection.js';
import type { WriteLimits } from '../reconcile/write-limiter.js';
import { childEnvironment, startChild, type ChildExit, type ChildOutput, type RunningChild } from '../endpoint/child-process.js';
import { isEndpointKubeconfig, writeEndpointKubeconfig } from '../endpoint/endpoint-kubeconfig.js';
import { WireRecorder } from '../endpoint/wire-recorder.js';
import { ReconcileAttributingTracer, ReconcileSpans } from '../endpoint/reconcile-spans.js';
import { upstreamResourceTypes } from '../endpoint/upstream-kinds.js';
import type { ResourceType } from '../sim/registry.js';
import { openRecording } from './recording-open.js';
import { startEndpoint, type Endpoint, type EndpointWriteMode, type RefusedWrite } from '../endpoint/endpoint-server.js';
import { Fork } from '../endpoint/fork.js';
import { readExpectedObject } from '../endpoint/expected-state.js';
import { checkExpectation, expectationKey, type Expectation, type ExpectationResult } from '../reconcile/expectations.js';
import { shouldColor } from '../render/color.js';
import { execReportRecord, execReportTable, execVerdictRecord, type ExecReportRow } from '../render/exec-report.js';
import type { StageSelection } from '../render/stage-filter.js';
import { TraceSummary } from '../render/summary.js';
import { createTracePrinter, type TraceOutput } from '../render/trace-printer.js';
import type { StopSignal } from './stop-signal.js';
import { controllerTotals } from './controller-totals.js';
import { UserError } from './user-error.js';
import { writePrivateFile } from '../wire/private-file.js';

/**
 * What `reconcile --exec` and `proxy` show by default: the wire, the reflector lifecycle of the fork's mirrors, and
 * the reconciles a controller's own log lines mark (none without such lines).
 */
export const EXEC_DEFAULT_STAGES: ReadonlySet<Stage> = new Set<Stage>(['endpoint', 'reconcile']);

export interface ExecRunOptions {
  upstream: Connection;
  /** Shown in the first line: the target's context, or "--sim". */
  targetName: string;
  /** The namespace the controller's kubeconfig context names (-n, else the target context's). */
  namespace: string;
  mode: EndpointWriteMode;
  tracer: Tracer;
  output: TraceOutput;
  stages?: StageSelection;
  showSecrets: boolean;
  listen: { host: string; port: number };
  tls: boolean;
  faults: InjectFault[];
  loopThreshold: number;
  stallAfterMs: number;
  maxObjects: number;
  /** reconcile --exec: the controller process; proxy: none. */
  child?: { command: string; args: string[]; output: ChildOutput; graceMs: number };
  /** kwatch sim --mirror: the banner says mirror. */
  mirrorServer?: boolean;
  /** sim --mirror-resources: the kinds the fork mirrors (default: every kind asked for). */
  mirrorResources?: ReadonlySet<string>;
  /** Where to write the kubeconfig (proxy --kubeconfig-out); default a new temporary folder, removed at the end. */
  kubeconfigOut?: string;
  /** Replace a kubeconfig-out that is not one kwatch's endpoint wrote. */
  force: boolean;
  /**
   * --once; `played`, when the target is a recording being served: quiet counts only once it has played to its end;
   * `incomplete`, why that recording is not whole (cut off, lines left out): the run then fails, whatever was written.
   */
  once?: { quietMs: number; maxWaitMs: number; played?: () => boolean; incomplete?: string };
  /** --qps/--burst/--max-writes: enforced on the wire under apply and server-dry-run (the writes that reach the target). */
  writeLimits?: WriteLimits;
  /** --expect (with --once): checked against the fork under overlay, the target otherwise, once the run ends. */
  expectations?: Expectation[];
  /** --record: what the controller was sent and what it wrote, to this recording (Secret data masked). */
  record?: { path: string; kwatchVersion: string };
  /** --live: the dashboard with a per-client panel instead of the trace lines (where the terminal allows). */
  live?: { snapshotDir?: string };
  stop: StopSignal;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Runs until the child exits, the user stops it, or --once settles; resolves with the exit code. */
export async function runExec(o: ExecRunOptions): Promise<number> {
  const out = o.stdout ?? process.stdout;
  const err = o.stderr ?? process.stderr;
  const table = o.output === 'table' || o.output === 'wide';
  const kubeconfigOut = o.kubeconfigOut === undefined ? undefined : checkedKubeconfigOut(o.kubeconfigOut, o.force);
  const notice = (line: string) => err.write(`${line}\n`);
  const fork = o.mode === 'overlay' ? new Fork({ upstream: o.upstream, tracer: o.tracer, maxObjects: o.maxObjects, only: o.mirrorResources, notice }) : undefined;

  const printer = createTracePrinter({ output: o.output, stream: out, color: table && shouldColor(out, process.env), stages: o.stages, defaultStages: EXEC_DEFAULT_STAGES, showSecrets: o.showSecrets, batch: true });
  const startedAt = Date.now();
  const summary = new TraceSummary({ startedAt, now: Date.now });
  let endpoint: Endpoint | undefined;
  // The header's counters are the controller's on the wire, as the summary line at the end gives them.
  const live = o.live ? await startLive(o, out, err, () => o.stop.stop('quit'), () => (endpoint ? controllerTotals(endpoint) : 'starting')) : undefined;
  const unsubscribe = o.tracer.subscribe((r: TraceRecord) => {
    // The summary describes the controller on the wire, not the fork's own mirror informers.
    if (r.stage === 'endpoint') summary.add(r);
    if (!live) printer.write(r);
  });

  // Under --exec, the controller's own log lines say where its reconciles start and end (reconcile-spans.ts).
  const spans = o.child ? new ReconcileSpans(o.tracer, Date.now, basename(o.child.command)) : undefined;
  const endpointTracer = spans ? new ReconcileAttributingTracer(o.tracer, spans) : o.tracer;

  const recording = o.record ? openWireRecording(o.record, o.upstream, () => o.stop.stop('recording failed')) : undefined;
  let child: RunningChild | undefined;
  let exit: ChildExit | undefined;
  let settled: Settled | undefined;
  let maxWritesReached: number | undefined;
  let expected: { key: string; resource: string; result: ExpectationResult }[] | undefined;
  // The temporary folder is made last before the try whose finally removes it: nothing that can fail runs between.
  const kubeconfig = kubeconfigOut !== undefined ? { path: kubeconfigOut, temporary: false } : { path: join(mkdtempSync(join(tmpdir(), 'kwatch-exec-')), 'kubeconfig'), temporary: true };
  // A machine output stays open past the report rows for the verdict record, unless the run failed before its end.
  let ran = false;
  try {
    endpoint = await startEndpoint({ upstream: o.upstream, mode: o.mode, fork, tracer: endpointTracer, host: o.listen.host, port: o.listen.port, tls: o.tls, faults: o.faults, loopThreshold: o.loopThreshold, stallAfterMs: o.stallAfterMs, recorder: recording?.recorder,
      writeLimits: o.mode === 'apply' || o.mode === 'server-dry-run' ? o.writeLimits : undefined,
      onMaxWrites: (max) => { maxWritesReached = max; o.stop.stop('max-writes'); },
      clientRoot: () => child?.pid,
    });
    await writeEndpointKubeconfig(kubeconfig.path, { server: endpoint.url, token: endpoint.token, namespace: o.namespace, caPem: endpoint.caPem });
    // As the kubeconfig: a symlink planted at the path is replaced, never written through.
    if (endpoint.caPem) await writePrivateFile(`${kubeconfig.path}.ca.crt`, endpoint.caPem);
    notice(`kwatch: ${o.child ? 'endpoint' : o.mirrorServer ? 'mirror' : 'proxy'} ${new URL(endpoint.url).origin} → ${o.targetName}, writes ${o.mode}: ${MODE_NOTES[o.mode]}`);
    notice(`kwatch: kubeconfig ${kubeconfig.path}${o.child ? '' : ` (export KUBECONFIG=${kubeconfig.path})`}`);

    endpoint.watchFaults.start();
    const started = Date.now();
    if (o.child) {
      const args = o.child.args.map((a) => a.split('{kubeconfig}').join(kubeconfig.path));
      // The endpoint's port is new every run, so a discovery cache kept for it (kubectl's, client-go's disk cache:
      // <cache dir>/discovery/127.0.0.1_<port>) could never be read again, whatever the upstream. With a temporary
      // kubeconfig it goes beside it and is removed with it. A KUBECACHEDIR of the user's own is replaced as well: what
      // this run would add there is keyed by the same throwaway port, litter in their folder as in ~/.kube/cache.
      const cacheEnv = kubeconfig.temporary ? { KUBECACHEDIR: join(dirname(kubeconfig.path), 'cache') } : {};
      child = startChild({ command: o.child.command, args, env: { ...childEnvironment(process.env, kubeconfig.path), ...cacheEnv }, output: o.child.output, stderr: err, color: shouldColor(err, process.env), onLine: spans && ((line) => spans.line(line)) });
    }
    const stopped = new Promise<void>((r) => (o.stop.signal.aborted ? r() : o.stop.signal.addEventListener('abort', () => r(), { once: true })));
    const waits: Promise<unknown>[] = [stopped];
    if (child) waits.push(child.exited.then((e) => { exit = e; }));
    if (o.once) waits.push(settle(endpoint, o.once, started, o.stop.signal, child).then((s) => { settled = s; }));
    await Promise.race(waits);
    // The child's exit can win the race against settle()'s next look: the run ended because the controller exited.
    if (o.once && settled === undefined && exit !== undefined && !o.stop.signal.aborted) settled = 'exited';
    if (child) exit = await child.stop(o.child!.graceMs);
    if (o.once && o.expectations) expected = await checkEndState(o.expectations, o.upstream, fork);
    ran = true;
  } finally {
    // A failure after the controller started must not leave it running (its kubeconfig is about to go).
    if (child?.running) exit = await child.stop(o.child!.graceMs);
    spans?.end();
    unsubscribe();
    live?.stop();
    if (o.once && endpoint && !table) for (const r of reportRows(endpoint, o.mode, settled, o.once.quietMs)) printer.write(execReportRecord(r, Date.now()) as unknown as TraceRecord);
    if (!table) for (const x of expected ?? []) printer.write({ time: Date.now(), stage: 'endpoint', op: 'expect', key: x.key, resource: x.resource, absent: x.result.expectation.absent || undefined, met: x.result.met, diff: x.result.met ? undefined : x.result.diff } as unknown as TraceRecord);
    if (table || !ran) printer.end();
    await endpoint?.close();
    await recording?.recorder.flushed();
    recording?.file.close();
    if (kubeconfig.temporary) rmSync(dirname(kubeconfig.path), { recursive: true, force: true });
  }
  if (!endpoint) throw new Error('the endpoint did not start');
  /** The exit code, after the verdict record of a --once run for machine outputs (`-o ndjson`: its last line). */
  const finish = (code: number, line: string): number => {
    if (!table && o.once) printer.write(execVerdictRecord({ code, line, settled, mode: o.mode }, VERDICTS, Date.now()) as unknown as TraceRecord);
    printer.end();
    return code;
  };
  if (recording?.file.failure) {
    printer.end();
    throw new UserError(recording.file.failure.message);
  }
  if (recording) notice(`recorded ${recording.file.lines} lines to ${recording.file.path}`);

  err.write(`${summary.format({ color: shouldColor(err, process.env), totals: `${controllerTotals(endpoint)} elapsed=${Math.round((Date.now() - startedAt) / 100) / 10}s` })}\n`);
  for (const c of endpoint.clients()) notice(`client ${c.name}: ${c.requests} requests, ${c.watchesStarted} watches, ${c.relists} relists, ${c.writes} writes${c.failedRequests ? `, ${c.failedRequests} failed` : ''}`);
  const unused = [...endpoint.watchFaults.unused(), ...endpoint.writeFaults.unused()];
  if (unused.length) notice(`kwatch: --inject ${unused.join(', ')} never fired`);
  if (fork) {
    const diverged = fork.divergences();
    notice(diverged.length ? `fork: ${diverged.length} ${diverged.length === 1 ? 'object differs' : 'objects differ'} from the target (written locally):` : 'fork: nothing differs from the target');
    for (const d of diverged) notice(`  ${d.change} ${d.resource} ${d.key}${d.conflicts ? ` (${d.conflicts} upstream ${d.conflicts === 1 ? 'change' : 'changes'} kept out)` : ''}`);
  }
  const rows = reportRows(endpoint, o.mode, settled, o.once?.quietMs ?? 0);
  for (const r of rows) if (r.periodic) notice(`periodic: ${r.client} ${r.resource} ${r.key} written every ~${seconds(r.periodic.everyMs)} with no event triggering it (a lease renewal or a heartbeat): neither a loop nor waited for`);
  for (const f of endpoint.fights) notice(`fight: ${f.clients.join(' and ')} keep rewriting ${f.field} of ${f.resource} ${f.key}, each undoing the other (${f.switches} changes of hands)`);
  for (const x of endpoint.rewatchedExpired.slice(0, 5)) notice(`rewatch-expired: ${x.client} watched ${x.resource} again from resourceVersion ${x.rv}, though it was sent 410 Gone at ${x.expiredAt}: a reflector must list anew`);
  for (const c of endpoint.clients()) for (const l of c.loops) notice(`loop: ${l.client} ${l.resource} ${l.key} rewrote itself ${l.rounds} times in a row after the echo of its own write; changing every round: ${l.fields.join(', ')}`);

  const childFailed = exit !== undefined && !exit.stopped && exit.code !== 0;
  if (exit?.error) notice(`error: ${exit.error}`);
  else if (childFailed) {
    notice(`${childFailure(exit!)}; its last lines:`);
    for (const l of child!.lastLines().slice(-10)) notice(`  ${l}`);
  }
  if (o.once && table && rows.length) out.write(`\n${execReportTable(rows, { color: shouldColor(out, process.env) })}`);
  const failedRequests = endpoint.failures.length + endpoint.clients().reduce((n, c) => n + c.failedRequests, 0);
  if (failedRequests) notice(`requests failed: ${failedRequests}${endpoint.failures.length ? ` (${endpoint.failures.slice(0, 3).join('; ')})` : ''}`);
  for (const r of endpoint.refusedWrites.slice(0, 5)) notice(`refused: kwatch answered ${r.client}'s ${r.method} ${r.path} itself: ${r.code} ${r.reason}: ${r.message}`);
  const pending = rows.filter((r) => r.result === 'pending').length;
  const loops = rows.filter((r) => r.result === 'loop').length;
  if ((o.mode === 'intercept' || o.mode === 'server-dry-run') && rows.length) notice(`note: under --writes ${o.mode} nothing is stored, so the controller's own watches never saw its writes: one it repeats may be one that would land once (--writes overlay shows whether it converges)`);
  // What makes the run fail whatever the writes look like: named on the last line, exit 2.
  const failures: string[] = [];
  if (childFailed && !exit!.error) failures.push(childFailure(exit!));
  if (o.once?.incomplete) failures.push(o.once.incomplete);
  if (maxWritesReached !== undefined) failures.push(`--max-writes ${maxWritesReached} reached: the controller sent ${maxWritesReached} writes and kwatch refused the next and stopped the run (raise --max-writes if that is expected)`);
  else if (endpoint.refusedWrites.length) failures.push(refusedWritesLine(endpoint.refusedWrites));
  if (exit?.error) return finish(exit.code, `error: ${exit.error}`);
  if (failures.length) {
    notice(`failed: ${failures.join('; ')}`);
    return finish(EXEC_EXIT.errors, `failed: ${failures.join('; ')}`);
  }
  if (!o.once) return finish(EXEC_EXIT.converged, '');
  const neverWatched = endpoint.clients().every((c) => c.watchesStarted === 0);
  notice(settledLine(settled, o.once, neverWatched));
  const idle = idleLine(settled, o.once.quietMs, {
    reached: endpoint.clients().some((c) => c.requests > 0),
    watched: !neverWatched,
    worked: endpoint.rewatchedExpired.length > 0 || rows.some((r) => !r.periodic),
  });
  if (idle) {
    if (expected) reportExpectations(expected, notice);
    notice(idle);
    return finish(EXEC_EXIT.idle, idle);
  }
  const verdict = verdictLine(rows, o.mode, settled, neverWatched, { pending, loops, fights: endpoint.fights.length, rewatches: endpoint.rewatchedExpired.length });
  notice(verdict);
  // After the verdict line, as module mode prints them: a run whose writes converged but whose end state is wrong
  // ends on the expectations it missed (exit 3), not on "converged".
  const missed = expected ? reportExpectations(expected, notice) : 0;
  if (rows.some((r) => r.result === 'failed')) return finish(EXEC_EXIT.errors, verdict);
  if (failedRequests) return finish(EXEC_EXIT.errors, `requests failed: ${failedRequests}`);
  if (missed) return finish(EXEC_EXIT.expectations, `expectations: ${missed} of ${expected!.length} not met`);
  return finish(pending || loops || endpoint.fights.length || endpoint.rewatchedExpired.length || rows.some((r) => r.result === 'stopped-while-writing') || !endedSettled(settled, neverWatched) ? EXEC_EXIT.notConverged : EXEC_EXIT.converged, verdict);
}

/** Why a --once run judged nothing (exit 4), if it did: the controller did no work kwatch could see. */
function idleLine(settled: Settled | undefined, quietMs: number, did: { reached: boolean; watched: boolean; worked: boolean }): string | undefined {
  // Not watched at all: it may read another kubeconfig, or none, and talk to a cluster past kwatch.
  if (!did.reached) return 'idle: no request reached the endpoint — the controller may not use the kubeconfig kwatch gave it (KUBECONFIG), and may talk to a cluster another way';
  if (did.worked) return undefined; // a write (periodic ones aside), or a rewatch of an expired version, is judged
  if (settled === 'quiet') return `idle: no write in ${seconds(quietMs)} — the controller may not have started its work; raise --quiet`;
  // Never watched, wrote nothing, then exited or waited out --max-wait: it may have failed quietly (and exited 0).
  if (!did.watched && (settled === 'exited' || settled === 'max-wait')) return `idle: the controller never opened a watch and wrote nothing before ${settled === 'exited' ? 'it exited' : '--max-wait'} — it may not have started its work (--expect judges the end state it leaves)`;
  return undefined;
}

/** What ended a --once run. */
type Settled = 'quiet' | 'max-wait' | 'loop' | 'exited' | 'stopped';

/**
 * Whether the run ended where a verdict can pass: the controller settled (synced, then quiet) or exited on its own. One
 * stopped at --max-wait or interrupted (a CI job's timeout sends SIGTERM) did not settle, as the module runner's
 * --settle-timeout is "did not settle" (exit 1), however few writes were pending.
 */
function endedSettled(settled: Settled | undefined, neverWatched: boolean): boolean {
  // A poller never syncs (settling starts at the first watch), so --max-wait is where it is judged, by its writes.
  return settled === 'quiet' || settled === 'loop' || settled === 'exited' || (settled === 'max-wait' && neverWatched);
}

/** The rule that ended a --once run, in one line; `neverWatched`: no client opened a watch, so none ever synced. */
function settledLine(settled: Settled | undefined, once: NonNullable<ExecRunOptions['once']>, neverWatched: boolean): string {
  switch (settled) {
    case 'quiet': return `settled: ${seconds(once.quietMs)} without writes`;
    // Settling starts at the first watch: a poller (or a controller that never got going) waits out --max-wait.
    case 'max-wait': return `stopped: --max-wait ${seconds(once.maxWaitMs)} reached${neverWatched ? ' and the controller never opened a watch, so it never synced (one that only polls is judged at --max-wait: lower it)' : ''}`;
    case 'loop': return 'stopped: a loop was reported';
    case 'exited': return 'stopped: the controller exited';
    default: return 'stopped: interrupted before it settled';
  }
}

/** 5000 → "5 s", 1500 → "1.5 s", 120000 → "120 s". */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * The exit codes of `reconcile --exec`, the same table as `--with`'s (README: "exit codes"). Without --once a run is
 * watched, not judged: 0 unless it failed.
 */
export const EXEC_EXIT = { converged: 0, notConverged: 1, errors: 2, expectations: 3, idle: 4 } as const;

/** The verdict record's name for each exit code (module mode's names where they meet); any other is a command that never started. */
const VERDICTS: Readonly<Record<number, string>> = { 0: 'converged', 1: 'not-converged', 2: 'errors', 3: 'expectations', 4: 'idle' };

/** Each expectation against where the writes landed (the fork under overlay, else the target). */
async function checkEndState(list: readonly Expectation[], upstream: Connection, fork: Fork | undefined) {
  const out = [];
  for (const e of list) {
    try {
      const { resource, found } = await readExpectedObject(e, upstream, fork);
      out.push({ key: expectationKey(e), resource, result: checkExpectation(e, found) });
    } catch (err) {
      throw new UserError(err instanceof Error ? err.message : String(err), EXEC_EXIT.errors);
    }
  }
  return out;
}

/** A block per expectation not met and a count line, as module mode prints them; answers how many failed. */
function reportExpectations(results: readonly { key: string; resource: string; result: ExpectationResult }[], notice: (line: string) => void): number {
  const failed = results.filter((x) => !x.result.met);
  for (const x of failed) {
    const e = x.result.expectation;
    notice(`expectation not met: ${x.resource} ${x.key}${e.absent ? ' (absent)' : ''} (${e.where})`);
    for (const d of x.result.diff) notice(`  ${d}`);
  }
  notice(failed.length === 0 ? `expectations: ${results.length} of ${results.length} met` : `expectations: ${failed.length} of ${results.length} not met`);
  return failed.length;
}

function childFailure(exit: ChildExit): string {
  return `the controller exited with code ${exit.code}${exit.signal ? ` (${exit.signal})` : ''}`;
}

function refusedWritesLine(refused: readonly RefusedWrite[]): string {
  const first = refused[0];
  const n = refused.length;
  return `kwatch refused ${n} of the controller's writes (${first.method} ${first.path}: ${first.code} ${first.reason}${n > 1 ? ', …' : ''}): the target never saw ${n === 1 ? 'it' : 'them'}`;
}

/** --live on a terminal: the dashboard with the per-client panel; undefined (said in one line) without one. */
async function startLive(o: ExecRunOptions, out: NodeJS.WritableStream & { isTTY?: boolean }, err: NodeJS.WritableStream, quit: () => void, state: () => string) {
  const { canDrawLive } = await import('./live-available.js');
  if (!canDrawLive(out, err)) return undefined;
  const { startLiveSession } = await import('./live-session.js');
  const { EndpointStats } = await import('../render/live/endpoint-panel.js');
  const panel = new EndpointStats();
  return startLiveSession({
    tracer: o.tracer,
    info: { server: o.targetName, resources: o.child ? `${o.child.command} (writes ${o.mode})` : `proxy (writes ${o.mode})`, state },
    stages: o.stages,
    defaultStages: EXEC_DEFAULT_STAGES,
    snapshotDir: o.live?.snapshotDir,
    showSecrets: o.showSecrets,
    panel: { content: () => ({ title: `clients on the wire (writes ${o.mode})`, lines: panel.lines() }), add: panel.add },
    stdout: out as NodeJS.WriteStream,
    onQuit: quit,
  });
}

const MODE_NOTES: Record<EndpointWriteMode, string> = {
  intercept: 'answered with the target\'s dry run (dryRun=All), never stored — the controller\'s own watches never see them',
  'server-dry-run': 'sent with dryRun=All, the target\'s answer traced — never stored, never seen on the controller\'s watches',
  overlay: 'stored in a local fork of the target, seen on the controller\'s watches; the target is not changed',
  apply: 'sent to the target for real',
};

/** The rows of the report; a key is pending when the cluster does not hold what the controller wrote. */
function reportRows(endpoint: Endpoint, mode: EndpointWriteMode, settled: Settled | undefined, quietMs: number): ExecReportRow[] {
  const now = Date.now();
  const fought = new Set(endpoint.fights.map((f) => `${f.resource} ${f.key}`));
  return [...endpoint.written.values()]
    .map((w): ExecReportRow => {
      const failed = w.lastCode >= 400;
      const stored = mode === 'overlay' || mode === 'apply';
      const pending = stored ? settled === 'max-wait' && now - w.lastAt < 10_000 && w.changing > 0 : w.changing > 0;
      // --once stopped on another key's loop while this one was still being written: nothing is known of it.
      const cutShort = settled === 'loop' && stored && w.changing > 0 && now - w.lastAt < Math.max(quietMs, 1000);
      const result = w.loop ? 'loop' : fought.has(`${w.resource} ${w.key}`) ? 'fight' : failed ? 'failed' : w.periodic ? 'periodic' : cutShort ? 'stopped-while-writing' : pending ? 'pending' : 'converged';
      return { ...w, result };
    })
    .sort((a, b) => a.client.localeCompare(b.client) || a.resource.localeCompare(b.resource) || a.key.localeCompare(b.key));
}

function verdictLine(rows: readonly ExecReportRow[], mode: EndpointWriteMode, settled: Settled | undefined, neverWatched: boolean, n: { pending: number; loops: number; fights: number; rewatches: number }): string {
  const judged = rows.filter((r) => !r.periodic);
  const keys = `${judged.length} ${judged.length === 1 ? 'key' : 'keys'} written`;
  const stillWriting = n.pending > 0 && (mode === 'overlay' || mode === 'apply');
  const how = settled === 'max-wait' ? ` (stopped at --max-wait${stillWriting ? ', still writing' : ''})` : '';
  const cut = rows.filter((r) => r.result === 'stopped-while-writing').length;
  const cutNote = cut ? `, ${cut} stopped while writing` : '';
  if (n.loops) return `not converged: ${n.loops} looping${cutNote}, ${keys}${how}`;
  if (n.fights) return `not converged: ${n.fights} ${n.fights === 1 ? 'fight' : 'fights'} between clients over one field, ${keys}${how}`;
  if (n.rewatches) return `not converged: ${n.rewatches} ${n.rewatches === 1 ? 'watch' : 'watches'} from a resourceVersion already expired (rewatch-expired), ${keys}${how}`;
  const failed = rows.filter((r) => r.result === 'failed').length;
  if (failed) return `errors: ${failed} of ${keys} refused by the server${n.pending ? `, ${n.pending} pending` : ''}${how}`;
  if (n.pending) return mode === 'intercept' || mode === 'server-dry-run'
    ? `not converged: ${n.pending} of ${keys} would change the cluster (writes ${mode}: nothing was stored)${how}`
    : `not converged: ${n.pending} of ${keys} still being written${how}`;
  if (settled === 'max-wait' && !neverWatched) return `did not settle: --max-wait reached before the controller had synced (a watch open, no list under way) and been quiet; ${keys}, none pending`;
  if (!endedSettled(settled, neverWatched)) return `did not settle: interrupted before the controller had synced and been quiet; ${keys}, none pending`;
  return `converged: ${keys}, no write pending${how}`;
}

/**
 * --once: the controller has synced (a watch open, no list under way) and then been quiet (no write for `quietMs`,
 * periodic writes such as lease renewals aside), or `maxWaitMs` passed since it started. Polls: the conditions are
 * the endpoint's, not a timer's.
 */
async function settle(endpoint: Endpoint, o: NonNullable<ExecRunOptions['once']>, started: number, signal: AbortSignal, child: RunningChild | undefined): Promise<Settled> {
  let syncedAt: number | undefined;
  for (;;) {
    if (signal.aborted) return 'stopped';
    if (child && !child.running) return 'exited';
    const now = Date.now();
    const clients = endpoint.clients();
    // A loop never settles: the verdict is known.
    if (clients.some((c) => c.loops.length > 0)) return 'loop';
    const synced = clients.some((c) => c.watchesOpen > 0) && clients.every((c) => c.listsInFlight === 0) && (o.played?.() ?? true);
    if (synced) syncedAt ??= now;
    let lastWrite = 0;
    for (const w of endpoint.written.values()) if (!w.periodic && w.lastAt > lastWrite) lastWrite = w.lastAt;
    if (syncedAt !== undefined && now - Math.max(syncedAt, lastWrite) >= o.quietMs) return 'quiet';
    if (now - started >= o.maxWaitMs) return 'max-wait';
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** --kubeconfig-out's path, refused when a file is there that kwatch did not write (unless --force) or it is a folder. */
function checkedKubeconfigOut(out: string, force: boolean): string {
  const path = resolve(out);
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) throw new UserError(`--kubeconfig-out ${out} is a directory: name a file to write`);
    if (!force && !isKwatchKubeconfig(readFileSync(path, 'utf8'))) throw new UserError(`--kubeconfig-out ${out} exists and is not a kubeconfig kwatch wrote: choose another path, or add --force to replace it`);
  }
  return path;
}

/** A kubeconfig kwatch wrote: its endpoint's, or kwatch sim's (cluster kwatch-sim): either may be replaced. */
function isKwatchKubeconfig(text: string): boolean {
  return isEndpointKubeconfig(text) || /^- name: kwatch-sim$/m.test(text);
}

/**
 * --record: a format-2 recording whose resources are declared as the controller first reads them, named from the
 * target's discovery (one request per group/version).
 */
function openWireRecording(rec: { path: string; kwatchVersion: string }, upstream: Connection, onFailure: () => void) {
  const kinds: string[] = [];
  const file = openRecording(rec.path, { server: upstream.server, resources: [], kinds, showSecrets: false, kwatchVersion: rec.kwatchVersion, onFailure });
  const groups = new Map<string, Promise<ResourceType[]>>();
  const recorder = new WireRecorder({
    file,
    declared: (index, r) => (kinds[index] = r.kind),
    describe: async (group, version, resource) => {
      let types = groups.get(`${group}/${version}`);
      if (!types) groups.set(`${group}/${version}`, (types = upstreamResourceTypes(upstream, group, version)));
      const t = (await types).find((x) => x.resource === resource);
      return t && { kind: t.kind, namespaced: t.namespaced };
    },
  });
  return { file, recorder };
}
