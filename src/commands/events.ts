// kwatch events: list+watch a resource through the whole informer pipeline (or, with --raw, the
// wire only) and print what each stage saw.
import { Args, Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { startTraceOut, traceOutFlags } from '../cli/trace-out.js';
import { parseDuration } from '../cli/duration.js';
import { watchListFlags, watchListOptions } from '../cli/watch-list-flags.js';
import { parseTraceViewFlags } from '../cli/trace-view-flags.js';
import { createStopSignal, type StopSignal } from '../cli/stop-signal.js';
import { displayName, requireVerb, splitTypeName, targetFor } from '../cli/target.js';
import { UserError } from '../cli/user-error.js';
import { objectName, showOrSkipTooDeep } from '../cli/too-deep.js';
import { checkSnapshotDir } from '../cli/snapshot-file.js';
import type { Connection } from '../kube/http/connection.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../cli/discovery-flags.js';
import { printWarning } from '../cli/warning.js';
import type { ListWatchTarget, WireFormat } from '../kube/lister-watchers/http-lister-watcher.js';
import { wireFlag } from '../cli/flags.js';
import type { ResolvedResource } from '../kube/discovery/resolve-resource.js';
import { Tracer } from '../informer/trace.js';
import { metaNamespaceKey } from '../informer/types.js';
import { templateFromOutput } from '../cli/output-template.js';
import type { ObjectTemplate } from '../render/object-template.js';

export default class Events extends KwatchCommand {
  static override summary = 'Watch a resource and print what each stage of the informer pipeline saw.';
  static override description = `Runs the informer pipeline a controller runs (Reflector → FIFO → Indexer → handlers → workqueue → a dry-run reconcile) against one or more resources and prints one line per thing each stage saw: TIME STAGE OP KEY RV DETAIL.

By default it shows the watch, fifo, handler and workqueue stages plus the reflector's lifecycle (LIST pages, WATCH start/close, reconnects, relists, 410s, backoff); --stages all adds the indexer, the reconcile runs and the raw HTTP requests. -o ndjson prints one JSON object per trace record (time, stage, op, key, rv, type for watch events, then the stage's details): a contract for scripts.

--fifo picks the queue between the reflector and the indexer: real (RealFIFO, what client-go 1.33+ uses; the default) or delta (the DeltaFIFO of client-go 1.32 and earlier, which coalesces deltas per key).

With --raw, prints the watch stream exactly as the server sends it: one line per event (type, key, resourceVersion), or the raw event objects with -o ndjson.

With kubectl's template outputs (-o jsonpath=…, jsonpath-file=FILE, custom-columns=…, custom-columns-file=FILE, go-template=…, go-template-file=FILE) it prints each object as it arrives — every object of the initial list, then each added, modified or deleted one — as kubectl get --watch prints it with the same template (add {"\\n"} to the template for a line per object).

It stops on Ctrl-C, after --for, after --max-events watch events, or with --until-synced once the initial list went through every stage; a summary of what each stage saw goes to stderr.`;
  static override examples = [
    '<%= config.bin %> events pods --sim',
    '<%= config.bin %> events pods -A --raw --max-events 20',
    '<%= config.bin %> events pods,deployments -n shop --for 30s',
    '<%= config.bin %> events pods web-0 --diff',
    '<%= config.bin %> events deployment/web -n shop',
    '<%= config.bin %> events pods -A -o ndjson --stages all > trace.ndjson',
    '<%= config.bin %> events pods -A --fifo delta --watch-list --until-synced',
    '<%= config.bin %> events pods -A --watch-list --initial-events-timeout 10s --fallback',
    '<%= config.bin %> events secrets --record secrets.ndjson',
    '<%= config.bin %> events pods --sim --sim-churn 50 --live',
    `<%= config.bin %> events pods -o jsonpath='{.metadata.name} {.status.phase}{"\\n"}'`,
    '<%= config.bin %> events pods --sim --sim-churn 50 --live --key default/web-0 --diff',
  ];
  static override args = {
    resource: Args.string({ description: 'Resource type(s), comma-separated: pods, po, deployments.apps, foos.example.com, …; or TYPE/NAME for one object.', required: true }),
    name: Args.string({ description: 'Narrow to one object by name.' }),
  };
  static override flags = {
    ...discoveryFlags,
    ...wireFlag,
    stages: Flags.string({ description: 'Stages to show, comma-separated: http, reflector, watch, fifo, indexer, handler, workqueue, reconcile, or all (default: watch,fifo,handler,workqueue and the reflector lifecycle).' }),
    diff: Flags.boolean({ description: 'For each update, print what changed between the old and the new object (field paths, old → new).', default: false }),
    'diff-all': Flags.boolean({ description: 'Like --diff, but keep the noise (managedFields, resourceVersion, …).', default: false }),
    fifo: Flags.string({ description: 'The informer queue: real (RealFIFO, client-go 1.33+) or delta (DeltaFIFO, client-go ≤ 1.32).', options: ['real', 'delta'], default: 'real' }),
    'batch-process': Flags.boolean({
      description: "Hand the RealFIFO's deltas to the handlers in batches of distinct keys (up to 1000), the cache updated for the whole batch first, as client-go 1.35's InOrderInformersBatchProcess does; each batch is a `fifo batch` record and its pops carry batch=N. Needs --fifo real.",
      default: false,
    }),
    ...watchListFlags(),
    resync: Flags.string({ description: 'Resync period (e.g. 30s): every period each handler gets an update for every cached object.' }),
    'keep-managed-fields': Flags.boolean({ description: 'Keep metadata.managedFields in the cache (stripped by default, as most controllers do).', default: false }),
    'stall-after': Flags.string({ description: 'A watch that receives no event and no bookmark for this long is a `stall` reflector record saying when its last event came (default 2m; 0 = off).', default: '2m' }),
    'watch-idle-timeout': Flags.string({ description: "Restart a watch that receives no event and no bookmark for this long, from its last resourceVersion (a `watchdog` reflector record), as kube-rs's client read timeout does (295s there). Off by default, as in client-go." }),
    record: Flags.string({ description: 'Write everything the server sent (list pages, events, errors, connection boundaries, timings) to this NDJSON file for kwatch replay.' }),
    force: Flags.boolean({ description: 'Replace the --record file even when it is not a kwatch recording (by default such a file is left untouched and nothing runs).', default: false }),
    'show-secrets': Flags.boolean({ description: 'Print and record Secret data and tokens as sent (masked by default, also in --raw and --diff output).', default: false }),
    raw: Flags.boolean({ description: 'Print the watch stream exactly as the server sends it (the wire only, no informer).', default: false }),
    for: Flags.string({ description: 'Stop after this long (e.g. 30s, 5m).' }),
    'max-events': Flags.integer({ description: 'Stop after this many watch events that change something (ADDED, MODIFIED, DELETED; bookmarks do not count), once every stage has handled them.' }),
    'until-synced': Flags.boolean({ description: 'Stop once the initial list has gone through every stage.', default: false }),
    live: Flags.boolean({ description: 'A full-screen dashboard of the pipeline (stage rates, totals, queue depths, sparklines, connection state, recent activity; Enter on a line follows its key) instead of the trace lines; q quits, ? shows the keys. Falls back to the plain trace without a terminal, under CI or with TERM=dumb.', default: false }),
    key: Flags.string({ description: 'With --live: open the dashboard following this key (namespace/name): every stage\'s record of it, handler old → new RV, workqueue reasons, reconcile runs.' }),
    ...traceOutFlags,
    'snapshot-dir': Flags.string({ description: 'With --live: the folder where s saves the screen as kwatch-snapshot-<time>.txt (default: the working directory).' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Events);
    // kubectl's template outputs print each object as it arrives (as `kubectl get -w -o …` does), not the trace.
    const template = await templateFromOutput(flags.output);
    const { output, stages } = await parseTraceViewFlags({ ...flags, output: template ? undefined : flags.output });
    if (template && flags.live) throw new UserError(`--live draws its own screen: it cannot be combined with -o ${flags.output}`);
    const forMs = flags.for ? parseDuration(flags.for, '--for') : undefined;
    const resyncMs = flags.resync ? parseDuration(flags.resync, '--resync') : undefined;
    if (flags['max-events'] !== undefined && flags['max-events'] < 1) throw new UserError('--max-events must be at least 1');
    if (flags.live && output !== 'table' && output !== 'wide') throw new UserError(`--live draws its own screen: it cannot be combined with -o ${output}`);
    if (flags['batch-process'] && flags.fifo !== 'real') throw new UserError('--batch-process batches the RealFIFO: it cannot be combined with --fifo delta');
    if (flags.raw && flags.live) throw new UserError('--live shows the informer pipeline: it cannot be combined with --raw');
    if (flags.key !== undefined && !flags.live) throw new UserError('--key follows a key in the live dashboard: add --live');
    if (flags['snapshot-dir'] !== undefined && !flags.live) throw new UserError('--snapshot-dir is where the live dashboard saves snapshots: add --live');
    checkSnapshotDir(flags['snapshot-dir']);
    if (flags.raw && flags.wire !== 'json') throw new UserError(`--raw prints the watch stream's JSON lines as sent: it cannot be combined with --wire ${flags.wire}`);
    if (flags.raw && flags.record) throw new UserError('--record records the informer\'s traffic: it cannot be combined with --raw');
    if (flags.record && !flags.force) (await import('../cli/recording-open.js')).refuseForeignRecording(flags.record);

    const named = splitTypeName(args.resource, args.name);
    const tracer = new Tracer();
    await startTraceOut(flags, tracer, `events ${args.resource}${args.name ? ` ${args.name}` : ''}`, (fn) => this.onCleanup(fn));
    const conn = await this.connect(flags, { tracer });
    // --for and Ctrl-C bound the whole run, discovery's first-contact retries included.
    const stop = createStopSignal({ forMs });
    try {
      const { resolveResources } = await import('../kube/discovery/resolve-resource.js');
      const discovery = discoveryOptionsFromFlags(flags, printWarning);
      const resources = await resolveResources(conn, named.resources, { ...discovery, firstContact: discovery.firstContact && { ...discovery.firstContact, signal: stop.signal } });
      for (const r of resources) {
        requireVerb(r, 'watch');
        if (!flags.raw) requireVerb(r, 'list');
      }
      const targets = resources.map((r) => targetFor(r, conn, flags, named.name));
      for (const t of targets) this.noteTarget(t);
      if (flags.raw) await this.runRaw(conn, resources, targets, output, flags['max-events'], flags['show-secrets'], stop, template);
      else {
        const { watchEvents } = await import('../cli/events-view.js');
        await watchEvents({
          conn,
          tracer,
          resources,
          targets,
          stop,
          output,
          stages,
          diff: flags['diff-all'] ? 'all' : flags.diff ? 'changed' : undefined,
          fifo: flags.fifo as 'real' | 'delta',
          batchProcess: flags['batch-process'],
          useWatchList: flags['watch-list'],
          ...watchListOptions(flags),
          resyncPeriodMs: resyncMs,
          stallAfterMs: parseDuration(flags['stall-after'], '--stall-after') || undefined,
          watchIdleTimeoutMs: flags['watch-idle-timeout'] !== undefined ? positiveDuration(flags['watch-idle-timeout'], '--watch-idle-timeout') : undefined,
          keepManagedFields: flags['keep-managed-fields'],
          wire: flags.wire as WireFormat,
          record: flags.record ? { path: flags.record, showSecrets: flags['show-secrets'], kwatchVersion: this.config.version } : undefined,
          showSecrets: flags['show-secrets'],
          maxEvents: flags['max-events'],
          untilSynced: flags['until-synced'],
          firstContact: this.firstContactOptions(),
          live: flags.live,
          template,
          followKey: flags.key,
          snapshotDir: flags['snapshot-dir'],
        });
      }
    } finally {
      stop.dispose();
    }
  }

  private async runRaw(conn: Connection, resources: ResolvedResource[], targets: ListWatchTarget[], output: string, maxEvents: number | undefined, showSecrets: boolean, stop: StopSignal, template?: ObjectTemplate): Promise<void> {
    const { runRawWatch } = await import('../kube/lister-watchers/raw-watch.js');
    const several = resources.length > 1;
    const out = process.stdout;
    let count = 0;
    const yaml = output === 'yaml' ? await import('yaml') : undefined;
    let headerDone = template !== undefined || (output !== 'table' && output !== 'wide');
    // The wire as sent, except secret material: a Secret's data (and credentials anywhere) stay masked
    // unless --show-secrets.
    const { maskSecrets } = await import('../render/secrets.js');
    const { escapeForTerminal } = await import('../render/terminal-escape.js');
    const shown = (line: string): string => {
      if (showSecrets) return line;
      const parsed = JSON.parse(line) as unknown;
      const masked = maskSecrets(parsed);
      return masked === parsed ? line : JSON.stringify(masked);
    };
    await runRawWatch(conn, targets, {
      signal: stop.signal,
      firstContact: this.firstContactOptions(),
      allowWatchBookmarks: true,
      // The header waits for a watch to open, so a request the server refuses prints only its error.
      onOpen: () => {
        if (!headerDone) out.write(`${pad('TYPE', 10)}${several ? pad('RESOURCE', 24) : ''}${pad('KEY', 48)}RV\n`);
        headerDone = true;
      },
      onEvent: ({ target, line, event }) => {
        if (stop.signal.aborted) return;
        const rv = event.object?.metadata?.resourceVersion ?? '';
        const key = event.type === 'ERROR' || event.type === 'BOOKMARK' ? '' : metaNamespaceKey(event.object);
        // An event nested deeper than kwatch follows is one line on stderr; the watch goes on.
        showOrSkipTooDeep(objectName(event.object), () => {
        if (template) {
          // The objects of ADDED, MODIFIED and DELETED events, as kubectl get -w prints them.
          if (key) out.write(template.objects([maskSecrets(event.object, { reveal: showSecrets, assumeKind: resources[target].kind })]));
        } else switch (output) {
          case 'ndjson':
            out.write(`${shown(line)}\n`);
            break;
          case 'json':
            out.write(`${JSON.stringify(maskSecrets(JSON.parse(line), { reveal: showSecrets }), null, 4)}\n`);
            break;
          case 'yaml':
            out.write(`---\n${yaml!.stringify(maskSecrets(JSON.parse(line), { reveal: showSecrets }))}`);
            break;
          case 'name':
            out.write(escapeForTerminal(`${event.type} ${displayName(resources[target])}/${key}`) + '\n');
            break;
          default: {
            // Key, resourceVersion and an ERROR's message are the server's text: escaped for the terminal.
            const detail = event.type === 'ERROR' ? `  ${(event.object as { message?: string }).message ?? ''}` : '';
            // An event without a resourceVersion (an ERROR) ends the line at its key, without the padding.
            out.write(`${`${pad(escapeForTerminal(event.type), 10)}${several ? pad(displayName(resources[target]), 24) : ''}${pad(escapeForTerminal(key) || '-', 48)}${escapeForTerminal(rv + detail)}`.trimEnd()}\n`);
          }
        }
        });
        if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') count++;
        if (maxEvents !== undefined && count >= maxEvents) stop.stop('max-events');
      },
      onNotice: ({ target, message }) => process.stderr.write(`kwatch: ${displayName(resources[target])}: ${escapeForTerminal(message, { multiline: true })}\n`),
    });
  }
}

function pad(s: string, width: number): string {
  return s.length >= width ? `${s} ` : s.padEnd(width);
}

/** A duration that must be more than 0 (a restart after 0 s would restart every watch at once). */
function positiveDuration(text: string, flag: string): number {
  const ms = parseDuration(text, flag);
  if (ms <= 0) throw new UserError(`${flag} must be more than 0 (leave it out for no restart)`);
  return ms;
}
