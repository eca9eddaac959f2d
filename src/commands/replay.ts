// kwatch replay: resume a watch on the server from a resourceVersion, or replay a recording offline,
// through the whole informer pipeline, printing what each stage saw.
import { statSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { startTraceOut, traceOutFlags } from '../cli/trace-out.js';
import { parseDuration } from '../cli/duration.js';
import type { GlobalFlags } from '../cli/flags.js';
import { parseTraceViewFlags } from '../cli/trace-view-flags.js';
import type { PipelineFlags, ViewFlags } from '../cli/replay-run.js';
import { createStopSignal } from '../cli/stop-signal.js';
import { displayName, requireVerb, targetFor } from '../cli/target.js';
import { UserError } from '../cli/user-error.js';
import { parseSpeed } from '../cli/speed.js';
import { serverAddress } from '../kube/http/server-url.js';
import { discoveryFlags, discoveryOptionsFromFlags, type DiscoveryFlagValues } from '../cli/discovery-flags.js';
import { printWarning } from '../cli/warning.js';

type ResumeFlags = GlobalFlags & DiscoveryFlagValues & { 'from-rv'?: string; 'from-checkpoint'?: string; checkpoint?: string; baseline?: string; 'on-expired': string; force: boolean };

export default class Replay extends KwatchCommand {
  static override summary = 'Resume a watch from a resourceVersion on the server, or replay a recording offline, through the informer pipeline.';
  static override description = `Two questions, one command.

"What happened since resourceVersion X?" — kwatch replay RESOURCE --from-rv X starts a watch at X (no list) and runs the events through the whole pipeline (Reflector → FIFO → Indexer → handlers → workqueue), printing each stage as kwatch events does. --until-rv stops once the stream passes a resourceVersion. When X is too old the server answers 410 Expired: kwatch explains what the server still has and why, and exits 1; with --on-expired relist it lists the current state instead and, given the recording that held the state at X (--baseline), prints which objects are new, changed or gone (records with op "gap"). Without a cache, each object's first event after X reaches the handlers as OnAdd; --baseline RECORDING seeds the cache with the state the recording held at X, so they get OnUpdate and OnDelete with the old object, as a restarted informer with a persisted cache would. --checkpoint FILE keeps the last resourceVersion seen (bookmarks included) so that kwatch replay --from-checkpoint FILE resumes there.

"What would my informer have done with this stream?" — kwatch replay FILE feeds a recording written by kwatch events --record through the same pipeline, offline, on the recording's own clock: two runs print the same trace. --from-rv rebuilds the cache at a resourceVersion from the recording and replays from the first event after it; --key follows one object (with --diff, what changed between its versions); --inject drop-connection@RV, expire@RV, duplicate@RV and hide-delete:NAMESPACE/NAME put faults into the stream; --speed 1 replays at the recorded pace (default: max).

The argument is read as a recording when it names an existing file (or with --file), otherwise as a resource type.`;
  static override examples = [
    '<%= config.bin %> events pods -A --record pods.ndjson --for 5m',
    '<%= config.bin %> replay pods.ndjson',
    '<%= config.bin %> replay pods.ndjson --from-rv 48211 --key shop/web-7d9c-x2k4q --diff',
    '<%= config.bin %> replay pods.ndjson --inject expire@48230 --inject hide-delete:shop/web-0 --stages reflector,handler',
    '<%= config.bin %> replay pods -A --from-rv 48211 --until-rv 48400',
    '<%= config.bin %> replay pods -A --from-rv 48211 --on-expired relist --baseline pods.ndjson',
    '<%= config.bin %> replay pods -A --from-rv 48211 --checkpoint pods.rv',
    '<%= config.bin %> replay --from-checkpoint pods.rv',
  ];
  static override args = {
    target: Args.string({ description: 'A recording file (written by kwatch events --record), or a resource type to resume on the server (pods, deployments.apps, …).' }),
  };
  static override flags = {
    ...discoveryFlags,
    file: Flags.string({ description: 'Replay this recording (the same as giving its path as the argument).' }),
    'from-rv': Flags.string({ description: 'Resume at this resourceVersion (server), or start at the first event after it with the cache rebuilt there (recording).' }),
    'until-rv': Flags.string({ description: 'Stop once the stream passes this resourceVersion.' }),
    'from-checkpoint': Flags.string({ description: 'Resume where a --checkpoint file says (its resource, server and resourceVersion); the file keeps being updated unless --checkpoint names another.' }),
    checkpoint: Flags.string({ description: 'Keep the last resourceVersion seen (bookmarks included) in this file, written atomically.' }),
    force: Flags.boolean({ description: 'Replace the --checkpoint file even when it is not a kwatch checkpoint (by default such a file is left untouched and nothing runs).', default: false }),
    'on-expired': Flags.string({ description: 'When --from-rv is too old (410): stop with an explanation, or relist and show the gap.', options: ['stop', 'relist'], default: 'stop' }),
    baseline: Flags.string({ description: 'A recording holding the state at --from-rv: it seeds the cache (so handlers get OnUpdate/OnDelete with the old object, as a restarted informer with a persisted cache would), and with --on-expired relist it shows which objects are new, changed or gone.' }),
    speed: Flags.string({ description: 'Recording replay pace: max (as fast as possible), or a factor of the recorded pace (1 = as recorded, 10 = ten times faster).', default: 'max' }),
    key: Flags.string({ description: 'Follow one object (NAMESPACE/NAME, or NAME when cluster-scoped): only its records (default stages: watch,handler).' }),
    inject: Flags.string({ description: 'Recording replay: inject a fault — drop-connection@RV, expire@RV, duplicate@RV or hide-delete:NAMESPACE/NAME (repeatable).', multiple: true }),
    stages: Flags.string({ description: 'Stages to show, comma-separated: http, reflector, watch, fifo, indexer, handler, workqueue, reconcile, or all (default: watch,fifo,handler,workqueue and the reflector lifecycle).' }),
    diff: Flags.boolean({ description: 'For each update, print what changed between the old and the new object.', default: false }),
    'show-secrets': Flags.boolean({ description: 'Print Secret data and tokens in diffs as they are (masked by default).', default: false }),
    'diff-all': Flags.boolean({ description: 'Like --diff, but keep the noise (managedFields, resourceVersion, …).', default: false }),
    fifo: Flags.string({ description: 'The informer queue: real (RealFIFO, client-go 1.33+) or delta (DeltaFIFO, client-go ≤ 1.32).', options: ['real', 'delta'], default: 'real' }),
    resync: Flags.string({ description: 'Resync period (e.g. 30s); in a recording replay it runs on the recording\'s clock.' }),
    'keep-managed-fields': Flags.boolean({ description: 'Keep metadata.managedFields in the cache (stripped by default).', default: false }),
    for: Flags.string({ description: 'Stop after this long (real time, e.g. 30s, 5m).' }),
    'max-events': Flags.integer({ description: 'Stop after this many ADDED/MODIFIED/DELETED events (once every stage has handled them).' }),
    ...traceOutFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Replay);
    const { output, stages } = await parseTraceViewFlags(flags);
    if (flags['max-events'] !== undefined && flags['max-events'] < 1) throw new UserError('--max-events must be at least 1');
    const diff = flags['diff-all'] ? 'all' : flags.diff ? 'changed' : undefined;
    const { Tracer } = await import('../informer/trace.js');
    const tracer = new Tracer();
    await startTraceOut(flags, tracer, `replay ${flags.file ?? args.target ?? ''}`.trim(), (fn) => this.onCleanup(fn));
    const view: ViewFlags = { output, stages, diff, key: flags.key, showSecrets: flags['show-secrets'], tracer };
    const pipeline: PipelineFlags = {
      fifo: flags.fifo as 'real' | 'delta',
      resyncPeriodMs: flags.resync ? parseDuration(flags.resync, '--resync') : undefined,
      keepManagedFields: flags['keep-managed-fields'],
      untilRv: flags['until-rv'],
      maxEvents: flags['max-events'],
    };
    const recordingPath = flags.file ?? (args.target !== undefined && isFile(args.target) ? args.target : undefined);
    if (flags.file && args.target) throw new UserError('give the recording either as the argument or with --file, not both');
    const stop = createStopSignal({ forMs: flags.for ? parseDuration(flags.for, '--for') : undefined });
    try {
      if (recordingPath) {
        for (const f of ['from-checkpoint', 'checkpoint', 'baseline'] as const) if (flags[f]) throw new UserError(`--${f} is for resuming on the server; ${recordingPath} is a recording`);
        if (flags.sim) throw new UserError('--sim is for resuming on a server; a recording replays offline');
        const { parseReplayFault } = await import('../informer/recording/replay-faults.js');
        const faults = (flags.inject ?? []).map((spec) => {
          try {
            return parseReplayFault(spec);
          } catch (err) {
            throw new UserError((err as Error).message);
          }
        });
        const { runRecordingReplay } = await import('../cli/replay-run.js');
        await runRecordingReplay({ path: recordingPath, view, pipeline, fromRv: flags['from-rv'], faults, speed: parseSpeed(flags.speed), stop, verbose: flags.v > 0 });
        return;
      }
      if (flags.inject?.length) throw new UserError('--inject works on a recording replay: give a recording file');
      if (flags.speed !== 'max') throw new UserError('--speed works on a recording replay: give a recording file');
      await this.resume(args.target, flags, view, pipeline, stop);
    } finally {
      stop.dispose();
    }
  }

  private async resume(
    resourceArg: string | undefined,
    flags: ResumeFlags,
    viewFlags: ViewFlags,
    pipeline: PipelineFlags,
    stop: ReturnType<typeof createStopSignal>,
  ): Promise<void> {
    const [{ openReplayView }, { runServerResume }, checkpoints] = await Promise.all([import('../cli/replay-view.js'), import('../cli/replay-run.js'), import('../kube/recording/checkpoint.js')]);
    const fromCheckpoint = flags['from-checkpoint'];
    const cp = fromCheckpoint ? readCheckpointOrFail(checkpoints, fromCheckpoint) : undefined;
    if (cp && resourceArg) throw new UserError(`--from-checkpoint names the resource (${cp.resource.resource}): give no RESOURCE argument`);
    if (cp && flags['from-rv']) throw new UserError('--from-checkpoint names the resourceVersion: give no --from-rv');
    if (!cp && !resourceArg) throw new UserError('give a recording file, or a RESOURCE with --from-rv, or --from-checkpoint FILE');
    if (!cp && !flags['from-rv']) throw new UserError(`${resourceArg} is not a file, so it is read as a resource type: resuming on the server needs --from-rv RV (or --from-checkpoint FILE)`);

    const checkpointPath = flags.checkpoint ?? fromCheckpoint;
    // Before any connection: a path that cannot be a checkpoint is the user's to fix at once.
    if (checkpointPath) checkpoints.checkCheckpointTarget(checkpointPath);
    if (checkpointPath && !flags.force) (await import('../kube/recording/own-file.js')).refuseForeignFile(checkpointPath, checkpoints.isKwatchCheckpoint, 'checkpoint');

    const view = openReplayView(viewFlags);
    const conn = await this.connect(flags, { tracer: view.tracer });
    let target, name: string, kind: string | undefined;
    if (cp) {
      // Checkpoints hold the shown URL (an older one may hold a password: compare it masked).
      if (serverAddress(cp.server).shown !== conn.server) throw new UserError(`${fromCheckpoint} was written against ${cp.server}, but the current context points at ${conn.server}: resourceVersions mean nothing on another cluster (pick the right --context)`);
      const { kind: k, ...t } = cp.resource;
      target = t;
      kind = k;
      name = displayName(cp.resource);
    } else {
      const { resolveResources } = await import('../kube/discovery/resolve-resource.js');
      const resources = await resolveResources(conn, resourceArg!, discoveryOptionsFromFlags(flags, printWarning));
      if (resources.length !== 1) throw new UserError(`resume one resource at a time (${resourceArg} names ${resources.length}: ${resources.map(displayName).join(', ')})`);
      const r = resources[0];
      requireVerb(r, 'watch');
      if (flags['on-expired'] === 'relist') requireVerb(r, 'list');
      target = targetFor(r, conn, flags);
      this.noteTarget(target);
      name = displayName(r);
      kind = r.kind;
    }
    const checkpoint = checkpointPath ? new checkpoints.CheckpointKeeper(checkpointPath, { server: conn.server, resource: { ...target, kind } }, undefined, undefined, () => stop.stop('checkpoint failed')) : undefined;
    await runServerResume({
      conn,
      view,
      target,
      name,
      kind,
      fromRv: cp?.resourceVersion ?? flags['from-rv']!,
      pipeline,
      onExpired: flags['on-expired'] as 'stop' | 'relist',
      baselinePath: flags.baseline,
      checkpoint,
      traceObjects: viewFlags.diff !== undefined,
      stop,
    });
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function readCheckpointOrFail(m: typeof import('../kube/recording/checkpoint.js'), path: string) {
  try {
    return m.readCheckpoint(path);
  } catch (err) {
    if (err instanceof m.CheckpointError) throw new UserError(err.message);
    throw err;
  }
}
