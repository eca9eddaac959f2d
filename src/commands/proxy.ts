// kwatch proxy: kwatch's endpoint without a child, for a controller started elsewhere (an IDE debugger, `go run`, a
// container with the kubeconfig mounted): the same writes modes, faults and trace as `reconcile --exec`, until Ctrl-C.
import { Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { boundedDuration, endpointFlags, endpointRunOptions, parseInjectFlags, parseListen } from '../cli/exec-flags.js';
import { createStopSignal } from '../cli/stop-signal.js';
import { parseTraceViewFlags } from '../cli/trace-view-flags.js';
import { UserError } from '../cli/user-error.js';
import { Tracer } from '../informer/trace.js';
import { startTraceOut, traceOutFlags } from '../cli/trace-out.js';

export default class Proxy extends KwatchCommand {
  static override summary = 'Stand between a controller started elsewhere and the API server: trace what it lists, watches and writes; intercept, fork, dry-run or apply its writes.';
  static override description = `Serves a local API endpoint on 127.0.0.1 and writes a kubeconfig for it (--kubeconfig-out, or a path it prints). Point a controller at that kubeconfig — from an IDE's debugger, go run, cargo run, a container with the file mounted — and kwatch traces every request it makes, each list page, each watch event it is sent, and each write, with the derived records relist, stale-write, loop and stall, each naming the client by its User-Agent.

Reads are answered by the target cluster (--kubeconfig/--context, or --sim). Writes follow --writes: intercept (default: answered with the target's dry run, never stored; the controller's own watches never see them), overlay (stored in a local copy-on-write fork of the target, seen on the controller's watches), server-dry-run (as intercept, with the target's answer traced), apply (sent for real; needs --sim or --yes).

Runs until Ctrl-C (or --for). The endpoint accepts only the bearer token of the kubeconfig it wrote (mode 0600), since it forwards with your own credentials.`;
  static override examples = [
    '<%= config.bin %> proxy --sim --kubeconfig-out /tmp/ctrl.kubeconfig   # then: KUBECONFIG=/tmp/ctrl.kubeconfig go run ./cmd/manager',
    '<%= config.bin %> proxy --context staging --writes overlay -o ndjson > wire.ndjson',
    '<%= config.bin %> proxy --sim --inject expire@30s --inject conflict@1',
  ];
  static override flags = {
    ...endpointFlags,
    ...traceOutFlags,
    writes: Flags.string({ description: 'What happens to the controller\'s writes: intercept (dry-run answer, nothing stored), overlay (a local fork of the target), server-dry-run (dryRun=All, the answer traced), apply (sent for real; needs --sim or --yes).', options: ['intercept', 'overlay', 'server-dry-run', 'apply'], default: 'intercept' }),
    yes: Flags.boolean({ description: 'Allow --writes apply against a server that is not --sim.', default: false }),
    'kubeconfig-out': Flags.string({ description: 'Where to write the endpoint\'s kubeconfig (default: a new temporary folder, removed at exit). An existing file is replaced only when kwatch wrote it.' }),
    force: Flags.boolean({ description: 'Replace --kubeconfig-out even when it is not a kubeconfig kwatch wrote.', default: false }),
    'loop-threshold': Flags.integer({ description: 'Report a loop when a key is rewritten, each round after the echo of its own write, more than this many times in a row.', default: 5, min: 1 }),
    stages: Flags.string({ description: 'Stages to show, comma-separated; STAGE:OP shows only those ops (endpoint:write+relist+loop+fault) (default: endpoint).' }),
    for: Flags.string({ description: 'Stop after this long (e.g. 10m).' }),
    live: Flags.boolean({ description: 'A full-screen dashboard: the activity and a per-client panel (requests/s, watches open, relists, writes, the newest relist/stale-write/loop/stall records). Falls back to the plain trace without a terminal.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Proxy);
    const { output, stages } = await parseTraceViewFlags(flags);
    if (flags.live && output !== 'table' && output !== 'wide') throw new UserError(`--live draws its own screen: it cannot be combined with -o ${output}`);
    if (flags.writes === 'apply' && !flags.sim && !flags.yes) throw new UserError('--writes apply sends the controller\'s writes to the cluster for real: add --yes to confirm, or use --writes server-dry-run');
    // Checked before connecting: a bad flag is one line, whatever the target.
    parseListen(flags.listen);
    parseInjectFlags(flags.inject);
    boundedDuration(flags['stall-after'], '--stall-after', 1);
    const forMs = flags.for ? boundedDuration(flags.for, '--for', 1) : undefined;
    const tracer = new Tracer();
    await startTraceOut(flags, tracer, 'proxy', (fn) => this.onCleanup(fn));
    const stop = createStopSignal({ forMs });
    try {
      const conn = await this.connect(flags, { tracer });
      const { runExec } = await import('../cli/exec-run.js');
      const code = await runExec({
        ...endpointRunOptions(flags, conn, tracer),
        mode: flags.writes as 'intercept' | 'overlay' | 'server-dry-run' | 'apply',
        output,
        stages,
        loopThreshold: flags['loop-threshold'],
        kubeconfigOut: flags['kubeconfig-out'],
        force: flags.force,
        live: flags.live ? {} : undefined,
        stop,
      });
      if (code !== 0) this.exit(code);
    } finally {
      stop.dispose();
    }
  }
}
