// kwatch reconcile: run the user's own reconcile function locally over the informer cache — why each
// run happened, what it read, what it would write (dry-run by default), whether it converges.
import { Args, Flags, type Interfaces } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { startTraceOut, traceOutFlags } from '../cli/trace-out.js';
import { parseDuration } from '../cli/duration.js';
import { watchListFlags, watchListOptions } from '../cli/watch-list-flags.js';
import { describeError } from '../cli/error-message.js';
import { createStopSignal } from '../cli/stop-signal.js';
import type { GlobalFlags } from '../cli/flags.js';
import { parseTraceViewFlags } from '../cli/trace-view-flags.js';
import { parseSpeed } from '../cli/speed.js';
import { UserError } from '../cli/user-error.js';
import { checkSnapshotDir } from '../cli/snapshot-file.js';
import { printWarning } from '../cli/warning.js';
import { Tracer } from '../informer/trace.js';
import { WRITE_MODES, type WriteMode } from '../reconcile/write-mode.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../cli/discovery-flags.js';
import { endpointFlags, execChildFlags, parseInjectFlags, refuseModuleOnlyFlags } from '../cli/exec-flags.js';


export default class Reconcile extends KwatchCommand {
  static override summary = 'Run your reconcile function locally over the informer cache: why each run happened, what it would write, whether it converges.';
  static override description = `Loads your controller from --with FILE (.js, .mjs, .cjs or .ts) and runs it as controller-runtime or kube-rs would: informers for its primary resource (RESOURCE, or the module's \`for\`), for what it \`owns\` (changes enqueue the controller owner) and what it \`watches\` (changes enqueue what its map returns), a debounced scheduler, a rate-limited workqueue, and --concurrency workers that never run one key twice at once.

Each run prints the reasons merged into it (object updated, related object updated, reconciler requested retry, error policy requested retry, error backoff), its writes and its result. Writes are intercepted by default — nothing reaches the server; --writes overlay applies them to a local layer so the reconciler sees its own writes (convergence and loops show without touching the cluster); server-dry-run sends them with dryRun=All and shows the server's answer; apply sends them for real (only with --sim or --yes).

Several --with modules share one informer per resource, as kube-controller-manager's shared informer factory does. A key whose own writes keep re-triggering it more than --loop-threshold times in a row gets a loop record naming the fields that change every round.

--once syncs, reconciles every primary object, follows what that triggers until the queue is idle and every failed key's retry, and every run that returned { requeue: true }, has run (as controller-runtime retries them; bounded by --max-reconciles and --settle-timeout): a reconciler that asks to requeue on every run does not settle. Writes a reconcile makes without awaiting them count for that run. It prints a report and exits with:
  0  converged: no write pending, no loop reported
  1  not converged (writes pending, a loop reported, or stopped at --max-reconciles / --settle-timeout: did not settle); also usage and load errors (a bad flag, a module that does not load, an unknown resource), which print one error line
  2  reconcile errors: a key whose last run failed, or the run itself failed (an informer gave up)
  3  an --expect expectation did not hold
  4  (--exec) idle: the controller synced and wrote nothing before --quiet passed
  126, 127  (--exec) the command could not be run / was not found (one error line, nothing started)`;
  static override examples = [
    '<%= config.bin %> reconcile deployments.apps --with examples/reconcilers/annotator.mjs --sim',
    '<%= config.bin %> reconcile --with examples/reconcilers/configmap-roller.mjs --sim --writes overlay',
    '<%= config.bin %> reconcile --with ./controller.ts -n shop --once',
    '<%= config.bin %> reconcile --with a.mjs --with b.mjs -A -o ndjson > trace.ndjson',
    '<%= config.bin %> reconcile deployments --with ./controller.ts --writes server-dry-run',
  ];
  // `--exec -- CMD ARGS…`: the controller's command line follows `--`, and is not kwatch's to parse.
  static override strict = false;
  static override args = {
    resource: Args.string({ description: 'The primary resource (deployments, deployments.apps, …); may be left out when the module names its `for`.' }),
  };
  static override flags = {
    ...discoveryFlags,
    ...traceOutFlags,
    with: Flags.string({ description: 'Your controller module: .js/.mjs (ESM), .cjs or .ts; repeat for several controllers (they share informers). Or, for a controller process, --exec -- CMD.', multiple: true }),
    ...execChildFlags,
    listen: endpointFlags.listen,
    tls: endpointFlags.tls,
    inject: Flags.string({ description: 'A fault on the watches or writes (modules and --exec): drop-connection@AT, expire@AT (410), duplicate@AT, delay:D[@AT], hide-delete:NS/NAME, conflict@N, error@N, throttle@N; AT: an RV or a time since the start (5s).', multiple: true }),
    'stall-after': endpointFlags['stall-after'],
    'max-objects': endpointFlags['max-objects'],
    'sim-objects': Flags.string({ description: 'With --sim: objects created in the embedded server before the controller starts (a YAML or JSON file, several documents or a List, or a folder of them); repeatable. They are not the controller\'s writes.', multiple: true, helpGroup: 'SIM' }),
    writes: Flags.string({ description: 'What happens to the reconciler\'s writes: intercept (shown, nothing sent), overlay (applied locally and fed back to the informers), server-dry-run (sent with dryRun=All), apply (sent for real; needs --sim or --yes).', options: [...WRITE_MODES], default: 'intercept' }),
    yes: Flags.boolean({ description: 'Allow --writes apply against a server that is not --sim.', default: false }),
    concurrency: Flags.integer({ description: 'Most reconciles running at once (never two of one key).', default: 1, aliases: ['max-concurrent-reconciles'] }),
    debounce: Flags.string({ description: 'Triggers for one key within this window make one run (e.g. 500ms); 0 = off.', default: '0' }),
    'loop-threshold': Flags.integer({ description: 'Report a loop when a key\'s own writes re-trigger it more than this many times in a row.', default: 5 }),
    once: Flags.boolean({ description: 'Reconcile every primary object, follow what that triggers until the queue is idle and failed keys have been retried, print a report; exit 0 converged, 1 not converged or did not settle (and usage errors), 2 reconcile errors, 3 expectations not met; with --exec, until the controller has synced and been quiet (--quiet, --max-wait), 4 idle (it wrote nothing), 126/127 its command could not run.', default: false }),
    'max-reconciles': Flags.integer({ description: 'With --once: stop after this many runs (default 10 × the number of primary objects); reaching it is "did not settle", exit 1.' }),
    expect: Flags.string({ description: 'With --once: a YAML/JSON file of partial objects the end state must hold (absent: true for one that must not exist); checked once the run settles, under --writes overlay, server-dry-run (the cluster\'s state: nothing is stored) or apply; exit 3 with a diff per expectation not met.' }),
    qps: Flags.string({ description: 'Writes per second sent to the server under --writes apply or server-dry-run (client-go\'s token bucket; controller-runtime\'s default).', default: '20' }),
    burst: Flags.integer({ description: 'Writes that may go out at once before --qps paces them.', default: 30 }),
    'max-writes': Flags.integer({ description: 'Most writes sent in one run (apply, server-dry-run): the one past it stops the run with one line, exit 2.', default: 10_000 }),
    'settle-timeout': Flags.string({ description: 'With --once: the longest wait for the queue to settle, failed keys\' retries included (default 30s); reaching it is "did not settle", exit 1.' }),
    'field-manager': Flags.string({ description: 'fieldManager for sent writes that name none (default: kwatch-<controller>).' }),
    stages: Flags.string({ description: 'Stages to show, comma-separated: http, reflector, watch, fifo, indexer, handler, workqueue, reconcile, endpoint, or all; STAGE:OP shows only those ops (endpoint:write+relist+loop+fault) (default: workqueue, reconcile and the reflector lifecycle; with --exec, endpoint).' }),
    diff: Flags.boolean({ description: 'Also print what changed on every handler update (writes always show their diff).', default: false }),
    fifo: Flags.string({ description: 'The informer queue: real (RealFIFO, client-go 1.33+) or delta (DeltaFIFO, client-go ≤ 1.32).', options: ['real', 'delta'], default: 'real' }),
    ...watchListFlags({ scope: 'Module mode: ', listFirst: 'LIST then WATCH', note: 'A --from-recording run replays LIST+WATCH.' }),
    queue: Flags.string({ description: "The workqueue: priority (controller-runtime 0.23's default: initial-list events of objects older than a minute and resyncs at priority -100, highest priority first) or fifo (client-go's workqueue, controller-runtime before 0.23).", options: ['priority', 'fifo'], default: 'priority' }),
    'read-your-writes': Flags.boolean({ description: "A run's cache reads (ctx.get, ctx.list) of keys its controller wrote wait until the informer holds those writes (at most 10s), as controller-runtime's read-your-own-writes does; each wait is a read-your-writes record. Without it such a read is a stale-read finding.", default: false }),
    'starved-after': Flags.string({ description: 'With --queue priority: a ready key passed over this long by keys of higher priority is a `starved` finding.', default: '1m' }),
    resync: Flags.string({ description: 'Resync period (e.g. 30s): every period each primary object is reconciled again (reason: resync).' }),
    'show-secrets': Flags.boolean({ description: 'Print Secret data in writes as it is (masked by default).', default: false }),
    for: Flags.string({ description: 'Stop after this long (e.g. 30s, 5m); runs in flight are waited for (a second Ctrl-C or SIGTERM exits at once).' }),
    'reconcile-timeout': Flags.string({ description: 'A run longer than this is an error, "deadline exceeded": its ctx.signal aborts and its later writes are refused (default: off, as controller-runtime). A run still going after 10s gets a still-running record either way.' }),
    'max-events': Flags.integer({ description: 'Stop after this many watch events that change something, once every stage has handled them.' }),
    record: Flags.string({ description: 'Write what the server sent to the controllers\' informers (for, owns, watches) — with --exec, what the process was sent and what it wrote — to this NDJSON file, for --from-recording later (Secret data masked).' }),
    force: Flags.boolean({ description: 'Replace the --record file even when it is not a kwatch recording (by default such a file is left untouched and nothing runs).', default: false }),
    live: Flags.boolean({ description: 'A full-screen dashboard: the pipeline (stage rates, queue depths, sparklines, activity; Enter follows a key) and a reconcile panel (running / held / queued keys, runs, errors, requeues, p50/p99 duration, loop warnings). Falls back to the plain trace without a terminal, under CI or with TERM=dumb.', default: false }),
    key: Flags.string({ description: 'With --live: open the dashboard following this key (namespace/name).' }),
    'snapshot-dir': Flags.string({ description: 'With --live: the folder where s saves the screen as kwatch-snapshot-<time>.txt (default: the working directory).' }),
    'from-recording': Flags.string({ description: 'Run against a recording (kwatch events --record FILE) instead of a server: modules on its own virtual time (the same trace every run; --writes intercept or overlay); with --exec, served to the process as its cluster at --speed.' }),
    speed: Flags.string({ description: 'With --exec --from-recording: the recording\'s pace, a factor (1 = as recorded, 10 = ten times faster) or max.', default: '1' }),
  };

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(Reconcile);
    const { output, stages } = await parseTraceViewFlags(flags);
    const dash = this.argv.indexOf('--');
    if (flags['sim-objects']?.length && !flags.sim) throw new UserError('--sim-objects seeds the embedded server: add --sim');
    if (flags.exec) return this.runExec(flags, dash >= 0 ? this.argv.slice(dash + 1) : [], argv.map(String), output, stages);
    if (argv.length > 1) throw new UserError(`unexpected argument "${String(argv[1])}": reconcile takes one RESOURCE (a controller process goes after --exec --)`);
    if (!flags.with?.length) throw new UserError('give your controller: --with FILE (a JS/TS module), or --exec -- CMD [ARGS...] (any controller process)');
    if (flags.speed !== '1') throw new UserError('--speed paces a recording served to an --exec process; with --with, a recording replays on its own virtual time');
    const faults = parseInjectFlags(flags.inject);
    const forMs = flags.for ? parseDuration(flags.for, '--for') : undefined;
    const resyncMs = flags.resync ? parseDuration(flags.resync, '--resync') : undefined;
    const debounceMs = parseDuration(flags.debounce, '--debounce');
    if (flags.concurrency < 1) throw new UserError('--concurrency must be at least 1');
    if (flags['loop-threshold'] < 1) throw new UserError('--loop-threshold must be at least 1');
    if (flags['max-events'] !== undefined && flags['max-events'] < 1) throw new UserError('--max-events must be at least 1');
    if (flags['max-reconciles'] !== undefined && !flags.once) throw new UserError('--max-reconciles goes with --once');
    if (flags['max-reconciles'] !== undefined && flags['max-reconciles'] < 1) throw new UserError('--max-reconciles must be at least 1');
    if (flags['settle-timeout'] !== undefined && !flags.once) throw new UserError('--settle-timeout goes with --once');
    if (flags.expect !== undefined && !flags.once) throw new UserError('--expect checks the end state of a --once run: add --once');
    if (flags.expect !== undefined && flags.writes === 'intercept') throw new UserError('--expect checks the end state, which --writes intercept never changes: use --writes overlay (local), server-dry-run or apply');
    const { qps } = parseWriteLimits(flags);
    const expectations = flags.expect !== undefined ? await readExpectations(flags.expect) : undefined;
    const settleTimeoutMs = flags['settle-timeout'] !== undefined ? parseDuration(flags['settle-timeout'], '--settle-timeout') : undefined;
    if (flags.live && output !== 'table' && output !== 'wide') throw new UserError(`--live draws its own screen: it cannot be combined with -o ${output}`);
    if (flags.key !== undefined && !flags.live) throw new UserError('--key follows a key in the live dashboard: add --live');
    if (flags['snapshot-dir'] !== undefined && !flags.live) throw new UserError('--snapshot-dir is where the live dashboard saves snapshots: add --live');
    checkSnapshotDir(flags['snapshot-dir']);
    const mode = flags.writes as WriteMode;
    if (flags['from-recording'] && (flags.sim || flags['all-namespaces'] || flags.namespace || flags.record)) throw new UserError('--from-recording replays what the recording holds: it cannot be combined with --sim, -n, -A or --record');
    if (flags.record && !flags.force) (await import('../cli/recording-open.js')).refuseForeignRecording(flags.record);
    if (mode === 'apply' && !flags.sim && !flags.yes && !flags['from-recording']) {
      throw new UserError('--writes apply sends the reconciler\'s writes to the cluster for real: add --yes to confirm, or use --writes server-dry-run to see what the server would answer');
    }

    const { loadControllerModules } = await import('../reconcile/module-loader.js');
    const controllers = await loadControllerModules(flags.with, { resource: args.resource });
    const tracer = new Tracer();
    await startTraceOut(flags, tracer, `reconcile ${args.resource ?? ''} --with ${(flags.with ?? []).join(' ')}`, (fn) => this.onCleanup(fn));
    const reconcileTimeoutMs = flags['reconcile-timeout'] !== undefined ? parseDuration(flags['reconcile-timeout'], '--reconcile-timeout') : undefined;
    if (reconcileTimeoutMs !== undefined && reconcileTimeoutMs <= 0) throw new UserError('--reconcile-timeout must be more than 0 (leave it out for no deadline)');
    // The first Ctrl-C waits for runs in flight; a second one (or SIGTERM) exits at once, report printed.
    const stop = createStopSignal({ forMs, secondSignalForces: true });
    const { runReconcile, ReconcileSetupError } = await import('../cli/reconcile-run.js');
    let code: number;
    try {
      // Connecting (the kubeconfig, the server) is part of starting: its failures are usage errors (1).
      const source = flags['from-recording'] ? ({ kind: 'recording', path: flags['from-recording'] } as const) : await this.serverSource(flags, tracer, mode, stop.signal).catch((e: unknown) => Promise.reject(new ReconcileSetupError(e)));
      code = await runReconcile({
        source,
        tracer,
        controllers,
        mode,
        output,
        stages,
        diff: flags.diff ? 'changed' : undefined,
        showSecrets: flags['show-secrets'],
        concurrency: flags.concurrency,
        debounceMs,
        loopThreshold: flags['loop-threshold'],
        resyncPeriodMs: resyncMs,
        queue: flags.queue as 'priority' | 'fifo',
        starvedAfterMs: parseDuration(flags['starved-after'], '--starved-after'),
        readYourWrites: flags['read-your-writes'],
        fifo: flags.fifo as 'real' | 'delta',
        fieldManager: flags['field-manager'],
        reconcileTimeoutMs,
        expectations,
        writeLimits: { qps, burst: flags.burst, maxWrites: flags['max-writes'] },
        once: flags.once ? { maxReconciles: flags['max-reconciles'], settleTimeoutMs } : undefined,
        maxEvents: flags['max-events'],
        stop,
        live: flags.live ? { followKey: flags.key, snapshotDir: flags['snapshot-dir'] } : undefined,
        faults,
      });
    } catch (err) {
      // A run that could not start is a usage error (1), in every mode.
      if (err instanceof ReconcileSetupError) throw err.failure;
      // --once is a check: whatever stopped a started run is a reconcile error (2), never "not converged" (1).
      if (flags.once) throw new UserError(describeError(err).message, 2);
      throw err;
    } finally {
      stop.dispose();
    }
    if (stop.forced.aborted) {
      // Runs that never returned may hold the event loop: leave once the output is out.
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
      process.exit(code);
    }
    if (code !== 0) this.exit(code);
  }

  /** `--exec -- CMD`: the controller process behind kwatch's endpoint (src/endpoint), on the target the flags name. */
  private async runExec(flags: Interfaces.InferredFlags<typeof Reconcile.flags> & GlobalFlags, command: string[], positional: string[], output: Awaited<ReturnType<typeof parseTraceViewFlags>>['output'], stages: Awaited<ReturnType<typeof parseTraceViewFlags>>['stages']): Promise<void> {
    // Without --, the command's words were read as kwatch's RESOURCE: say where the -- goes, with their own words.
    if (command.length === 0 && positional.length > 0) throw new UserError(`--exec runs the command after --, and there is none: put -- before it (kwatch reconcile --exec [FLAGS] -- ${positional.join(' ')})`);
    if (command.length === 0) throw new UserError('--exec needs the controller\'s command after --: kwatch reconcile --exec [FLAGS] -- CMD [ARGS...]');
    const dash = this.argv.indexOf('--');
    const ownArgs = dash >= 0 ? this.argv.slice(0, dash) : this.argv;
    refuseModuleOnlyFlags(ownArgs);
    if (flags.with?.length) throw new UserError('--with runs a JS/TS module, --exec a process: give one of them');
    const fromRecording = flags['from-recording'];
    if (flags.record && fromRecording) throw new UserError('--record writes what a cluster sent: it cannot be combined with --from-recording');
    if (flags.record && !flags.force) (await import('../cli/recording-open.js')).refuseForeignRecording(flags.record);
    if (fromRecording && (flags.sim || flags.context || flags.kubeconfig)) throw new UserError('--from-recording is the controller\'s cluster: leave out --sim, --kubeconfig and --context');
    const speed = parseSpeed(flags.speed);
    if (!fromRecording && flags.speed !== '1') throw new UserError('--speed paces a recording: add --from-recording FILE');
    // A command that cannot start is one line, before any banner (exit 127 not found, 126 not runnable).
    const { commandProblem } = await import('../endpoint/child-process.js');
    const unstartable = process.platform === 'win32' ? undefined : commandProblem(command[0], process.env.PATH);
    if (unstartable) throw new UserError(unstartable.message, unstartable.code);
    const ex = await import('../cli/exec-flags.js');
    const mode = flags.writes as WriteMode;
    if (mode === 'apply' && !flags.sim && !fromRecording && !flags.yes) throw new UserError('--writes apply sends the controller\'s writes to the cluster for real: add --yes to confirm, or use --writes server-dry-run to see what the server would answer');
    if (flags.live && output !== 'table' && output !== 'wide') throw new UserError(`--live draws its own screen: it cannot be combined with -o ${output}`);
    const options = {
      // The dashboard owns the terminal: the controller's lines would tear it (its last lines still reach the report).
      childOutput: flags.live && (flags['child-output'] === 'prefix' || flags['child-output'] === 'passthrough') ? ({ kind: 'none' } as const) : ex.parseChildOutput(flags['child-output']),
      graceMs: ex.boundedDuration(flags.grace, '--grace'),
      quietMs: ex.boundedDuration(flags.quiet, '--quiet', 1),
      maxWaitMs: ex.boundedDuration(flags['max-wait'], '--max-wait', 1),
      forMs: flags.for ? ex.boundedDuration(flags.for, '--for', 1) : undefined,
    };
    // Checked before connecting: a bad flag is one line, whatever the target.
    ex.parseListen(flags.listen);
    ex.parseInjectFlags(flags.inject);
    ex.boundedDuration(flags['stall-after'], '--stall-after', 1);
    if (flags['loop-threshold'] < 1) throw new UserError('--loop-threshold must be at least 1');
    if (flags.expect !== undefined && !flags.once) throw new UserError('--expect checks the end state of a --once run: add --once');
    if (flags.expect !== undefined && flags.writes === 'intercept') throw new UserError('--expect checks the end state, which --writes intercept never changes: use --writes overlay (the fork), server-dry-run or apply');
    const expectations = flags.expect !== undefined ? await readExpectations(flags.expect) : undefined;
    const writeLimits = parseWriteLimits(flags);
    const tracer = new Tracer();
    await startTraceOut(flags, tracer, `reconcile --exec -- ${command.join(' ')}`, (fn) => this.onCleanup(fn));
    const stop = createStopSignal({ forMs: options.forMs });
    try {
      const served = fromRecording ? await this.recordingTarget(fromRecording, speed, flags, tracer) : undefined;
      const conn = served?.conn ?? (await this.connect(flags, { tracer }));
      const { runExec } = await import('../cli/exec-run.js');
      const code = await runExec({
        ...ex.endpointRunOptions(flags, conn, tracer),
        ...(fromRecording ? { targetName: `the recording ${fromRecording}` } : {}),
        record: flags.record ? { path: flags.record, kwatchVersion: this.config.version } : undefined,
        mode,
        output,
        stages,
        loopThreshold: flags['loop-threshold'],
        child: { command: command[0], args: command.slice(1), output: options.childOutput, graceMs: options.graceMs },
        force: false,
        once: flags.once ? { quietMs: options.quietMs, maxWaitMs: options.maxWaitMs, played: served?.played, incomplete: served?.incomplete } : undefined,
        expectations,
        writeLimits,
        live: flags.live ? { snapshotDir: flags['snapshot-dir'] } : undefined,
        stop,
      });
      if (code !== 0) this.exit(code);
    } finally {
      stop.dispose();
    }
  }

  /**
   * --exec --from-recording: the recording served as a cluster (src/endpoint/recording-cluster.ts), seeded before the
   * controller starts, its events following at the recording's pace.
   */
  private async recordingTarget(path: string, speed: number, flags: GlobalFlags, tracer: Tracer) {
    const { loadRecording } = await import('../cli/replay-run.js');
    const recording = loadRecording(path);
    const { startRecordingCluster } = await import('../endpoint/recording-cluster.js');
    const cluster = await startRecordingCluster(recording, { speed });
    this.onCleanup(() => cluster.close());
    const names = recording.header.resources.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(', ');
    await cluster.seeded;
    process.stderr.write(`kwatch: serving ${path} (${names}) as the cluster, ${Number.isFinite(speed) ? `at ${speed}x the recorded pace` : 'as fast as it replays'}\n`);
    let played = false;
    void cluster.played.then((ended) => {
      played = ended;
      if (ended) process.stderr.write(`kwatch: ${path} played to its end: the cluster holds its last state\n`);
    });
    // A recording with lines missing is not the cluster it recorded: a --once verdict on it cannot pass.
    const missing = [recording.truncated ? 'its last line was cut off' : undefined, recording.badLineCount ? `${recording.badLineCount} bad ${recording.badLineCount === 1 ? 'line' : 'lines'} left out` : undefined].filter(Boolean);
    const incomplete = missing.length ? `${path} is incomplete (${missing.join(', ')}): a verdict on it is not one on the cluster it recorded` : undefined;
    // --once settles only once the recording has played: its events are what the controller is tested against.
    return { conn: await this.connectLocal(cluster.url, flags, tracer), played: () => played, incomplete };
  }

  /** The live server the flags name (kubeconfig or --sim), scoped by -n/-A/-l/--field-selector. */
  private async serverSource(flags: Interfaces.InferredFlags<typeof Reconcile.flags> & GlobalFlags, tracer: Tracer, mode: string, signal: AbortSignal) {
    const conn = await this.connect(flags, { tracer });
    if (mode === 'apply') process.stderr.write(`kwatch: --writes apply: the reconciler's writes go to ${flags.sim ? 'the embedded --sim server' : `context "${conn.contextName ?? '(none)'}"`} at ${conn.server}\n`);
    const namespace = flags['all-namespaces'] ? undefined : (flags.namespace ?? conn.namespace);
    this.noteTarget({ namespaced: true, namespace });
    const discovery = discoveryOptionsFromFlags(flags, printWarning);
    return {
      kind: 'server',
      conn,
      scope: { namespace, labelSelector: flags.selector, fieldSelector: flags['field-selector'] },
      // --for and Ctrl-C bound discovery's first-contact retries too.
      discovery: { ...discovery, firstContact: discovery.firstContact && { ...discovery.firstContact, signal } },
      firstContact: this.firstContactOptions(),
      record: flags.record ? { path: flags.record, kwatchVersion: this.config.version } : undefined,
      watchList: watchListOptions(flags),
    } as const;
  }
}

/** --qps, --burst and --max-writes, checked. */
function parseWriteLimits(flags: { qps: string; burst: number; 'max-writes': number }) {
  const qps = Number(flags.qps);
  if (!Number.isFinite(qps) || qps <= 0) throw new UserError(`--qps must be a number above 0, got "${flags.qps}"`);
  if (flags.burst < 1) throw new UserError('--burst must be at least 1');
  if (flags['max-writes'] < 1) throw new UserError('--max-writes must be at least 1');
  return { qps, burst: flags.burst, maxWrites: flags['max-writes'] };
}

/** The --expect file's documents (YAML, several separated by ---, or JSON), as one-line usage errors. */
async function readExpectations(path: string) {
  const { readFileSync } = await import('node:fs');
  const { parseAllDocuments } = await import('yaml');
  const { parseExpectations } = await import('../reconcile/expectations.js');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`--expect ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  const docs = parseAllDocuments(text);
  const docList = Array.isArray(docs) ? docs : [docs];
  for (const d of docList) if (d.errors.length > 0) throw new UserError(`--expect ${path}: ${d.errors[0].message.split('\n')[0]}`);
  try {
    return parseExpectations(docList.map((d) => d.toJS() as unknown), path);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
}
