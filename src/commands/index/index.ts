// kwatch index: sync an informer with the `--by` indices and show what they hold (lives in index/index.ts: oclif reads commands/index.ts as the root command).
import { Args, Flags } from '@oclif/core';
import { KwatchCommand } from '../../cli/base-command.js';
import { startTraceOut, traceOutFlags } from '../../cli/trace-out.js';
import { parseDuration } from '../../cli/duration.js';
import { watchListFlags, watchListOptions } from '../../cli/watch-list-flags.js';
import { createStopSignal, type StopSignal } from '../../cli/stop-signal.js';
import { UserError } from '../../cli/user-error.js';
import { checkSnapshotDir } from '../../cli/snapshot-file.js';
import { indexChangeRecord } from '../../informer/index-changes.js';
import { indexCounts, indexersFromSpecs, indexRows, indicesOf, indexTotals, timeIndexBuild, type Indices } from '../../informer/index-report.js';
import { Tracer } from '../../informer/trace.js';
import type { KubeObject } from '../../informer/types.js';
import type { CacheCheckReport } from '../../kube/pipelines/cache-check.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../../cli/discovery-flags.js';
import { printWarning } from '../../cli/warning.js';
import type { IndexInformer } from '../../kube/pipelines/index-informer.js';
import type { Connection } from '../../kube/http/connection.js';
import type { LiveSession } from '../../cli/live-session.js';
import type { ResolvedResource } from '../../kube/discovery/resolve-resource.js';
import { shouldColor } from '../../render/color.js';
import { formatColumns } from '../../render/columns.js';
import { reportTable } from '../../render/report-table.js';
import { checkReportText, indexTable, IndexWatchRows, totalsLine } from '../../render/index-table.js';
import { kubectlYAML, listOf, printObjects } from '../../render/objects.js';
import { maskSecrets } from '../../render/secrets.js';
import { objectName, showOrSkipTooDeep } from '../../cli/too-deep.js';
import { escapeForTerminal } from '../../render/terminal-escape.js';
import { ListProgress } from '../../render/list-progress.js';
import { startSpinner } from '../../render/spinner.js';
import { TEMPLATE_OUTPUT_HELP, templateFromOutput } from '../../cli/output-template.js';
import type { ObjectTemplate } from '../../render/object-template.js';

/** Exit code of a --check that found the cache and the server disagreeing. */
export const CHECK_DIFFERS_EXIT_CODE = 3;

type Mode = 'report' | 'value' | 'watch' | 'check';
const OUTPUTS: Record<Mode, string[]> = {
  report: ['table', 'wide', 'json', 'yaml', 'ndjson'],
  value: ['table', 'name', 'json', 'yaml'],
  watch: ['table', 'ndjson'],
  check: ['table', 'json', 'yaml'],
};

export default class Index extends KwatchCommand {
  static override summary = "Sync an informer and show what its indexer holds: values, counts and keys of the --by indices.";
  static override description = `Lists and watches RESOURCE (pods when left out) into an informer cache — in the context's namespace, or -n NAMESPACE, or every namespace with -A (a controller's informer usually reads them all) — with one index per --by, built by the same index functions the informer core offers:
  namespace, nodeName, phase, owner (the controller ownerReference, Kind/name), label:KEY, annotation:KEY, and any JSONPath ({.spec.schedulerName} or jsonpath=EXPR; several matches give several values).
Objects without the indexed field are filed under <none> instead of disappearing from the index (client-go's index funcs drop them; kwatch wraps them so they stay visible; nodeName and namespace also file "" there).
Index values derived from secret material — a Secret's data, stringData and last-applied annotation, credential fields such as token or password on any object — show as <masked N bytes> unless --show-secrets; control characters in values are escaped in the table.

Without --value: one row per index value with its count and a few keys, by count; then each index's totals, its build time (indexing the cached objects from scratch, as a relist does) and approximate size. -o json|yaml prints client-go's Indices shape {index: {value: [keys]}}.
With --value: ByIndex — the objects under that value, in IndexKeys order (keys sorted).
kubectl's template outputs (-o jsonpath=…, jsonpath-file=FILE, custom-columns=…, custom-columns-file=FILE, go-template=…, go-template-file=FILE) apply to what -o json prints: the Indices, the List of objects under --value (as kubectl get prints it), or the --check report.
With --watch: the informer keeps running and the table updates live (plain timestamped blocks when stdout is not a terminal), highlighting values whose count changed; -o ndjson prints the indexer's trace records narrowed to the --by indices (op add|update|delete with old and new index values).
With --check: after the sync, LISTs at the cache's resourceVersion (resourceVersionMatch=Exact) and reports objects missing, extra or stale in the cache; exit code ${CHECK_DIFFERS_EXIT_CODE} when they differ.`;
  static override examples = [
    '<%= config.bin %> index --by nodeName --sim',
    '<%= config.bin %> index pods --by nodeName -A',
    '<%= config.bin %> index pods --by phase --by label:app -o json',
    "<%= config.bin %> index pods --by '{.spec.containers[*].image}' --show-keys",
    '<%= config.bin %> index pods --by nodeName --value node-001 -o name',
    '<%= config.bin %> index pods --by nodeName --watch',
    '<%= config.bin %> index pods --by nodeName --live --sim --sim-churn 50',
    '<%= config.bin %> index pods --by nodeName --watch -o ndjson --for 1m',
    '<%= config.bin %> index pods --check',
  ];
  static override args = {
    resource: Args.string({ description: 'Resource type: pods, po, deployments.apps, foos.example.com, … (default: pods).', default: 'pods' }),
  };
  static override flags = {
    ...discoveryFlags,
    ...traceOutFlags,
    by: Flags.string({ description: 'Index to build: namespace, nodeName, phase, owner, label:KEY, annotation:KEY, {JSONPATH} or jsonpath=EXPR. Repeat for several indices.', multiple: true, multipleNonGreedy: true }),
    value: Flags.string({ description: 'Show the objects under this index value (ByIndex); needs exactly one --by. <none> selects objects without the field.' }),
    'show-secrets': Flags.boolean({ description: 'Print Secret data and tokens as they are, in index values (--by {.data}, annotation:kubectl.kubernetes.io/last-applied-configuration, …) and in --value objects (masked by default).', default: false }),
    'show-keys': Flags.boolean({ description: 'List every key under each value, not just the first few.', default: false }),
    watch: Flags.boolean({ char: 'w', description: 'Keep the informer running and update the counts live (or stream index changes with -o ndjson); on a terminal, the same dashboard as --live.', default: false, exclusive: ['value'] }),
    live: Flags.boolean({ description: 'A full-screen dashboard: the pipeline (stage rates, queue depths, sparklines, activity) and an index panel (values, counts, change since the start, by count); q quits and prints the table. Falls back to the plain periodic table without a terminal, under CI or with TERM=dumb.', default: false, exclusive: ['value'] }),
    'snapshot-dir': Flags.string({ description: 'With --live: the folder where s saves the screen as kwatch-snapshot-<time>.txt (default: the working directory).' }),
    check: Flags.boolean({ description: `Compare the cache with a LIST from the server (with --watch: when the watch ends); exit code ${CHECK_DIFFERS_EXIT_CODE} when objects are missing, extra or stale.`, default: false, exclusive: ['value'] }),
    ...watchListFlags({ listFirst: 'a paged LIST then WATCH' }),
    'page-size': Flags.integer({ description: 'Objects per LIST page (0 = one unpaged LIST).', default: 500, min: 0 }),
    for: Flags.string({ description: 'With --watch: stop after this long (e.g. 30s, 5m).' }),
    interval: Flags.string({ description: 'With --watch: how often the table is redrawn.', default: '1s' }),
    'sync-timeout': Flags.string({ description: 'Give up when the cache has not synced after this long.', default: '2m' }),
  };

  async run(): Promise<Indices | KubeObject[] | Record<string, unknown> | CacheCheckReport | void> {
    const { args, flags } = await this.parse(Index);
    const mode: Mode = flags.watch || flags.live ? 'watch' : flags.check ? 'check' : flags.value !== undefined ? 'value' : 'report';
    const output = flags.output ?? 'table';
    if (flags.live && output !== 'table') throw new UserError(`--live draws its own screen: it cannot be combined with -o ${output}`);
    if (flags['snapshot-dir'] !== undefined && !flags.live && !flags.watch) throw new UserError('--snapshot-dir is where the live dashboard saves snapshots: add --live');
    checkSnapshotDir(flags['snapshot-dir']);
    if ((flags.watch || flags.live) && flags.check && output !== 'table') throw new UserError('--watch --check prints a table: leave out --output');
    // kubectl's template outputs apply to what -o json prints: the Indices, the objects under --value, the check report.
    const template = mode === 'watch' ? undefined : await templateFromOutput(output);
    if (!template && !OUTPUTS[mode].includes(output)) throw new UserError(`--output ${output} is not available${mode === 'report' ? '' : ` with --${mode}`}: use one of ${OUTPUTS[mode].join(', ')}${mode === 'watch' ? '' : `, ${TEMPLATE_OUTPUT_HELP}`}`);
    const specs = (flags.by ?? []).map((s) => s.trim());
    if (specs.length === 0 && mode !== 'check') throw new UserError('name an index with --by, e.g. --by nodeName, --by label:app or --by {.spec.schedulerName}');
    if (mode === 'value' && new Set(specs).size !== 1) throw new UserError('--value needs exactly one --by');
    let indexers;
    try {
      // Index values are printed (table, json, --watch changes): derived from a view of each object with
      // Secret data, its last-applied annotation and credential fields masked, unless --show-secrets.
      indexers = indexersFromSpecs(specs, {
        view: flags['show-secrets'] ? undefined : (obj) => maskSecrets(obj),
        onTooDeep: (obj, index, e) => process.stderr.write(`error: ${escapeForTerminal(objectName(obj))}: ${e.message}; not indexed by ${escapeForTerminal(index)}\n`),
      });
    } catch (err) {
      throw new UserError(`invalid --by: ${(err as Error).message}`);
    }
    const names = Object.keys(indexers);
    const forMs = flags.for ? parseDuration(flags.for, '--for') : undefined;
    if (forMs !== undefined && mode !== 'watch') throw new UserError('--for only applies with --watch or --live');
    const intervalMs = parseDuration(flags.interval, '--interval');
    const syncTimeoutMs = parseDuration(flags['sync-timeout'], '--sync-timeout');

    const tracer = new Tracer();
    await startTraceOut(flags, tracer, `index ${args.resource}`, (fn) => this.onCleanup(fn));
    const conn = await this.connect(flags, { tracer });
    const { resolveResource } = await import('../../kube/discovery/resolve-resource.js');
    const resource = await resolveResource(conn, args.resource, discoveryOptionsFromFlags(flags, printWarning));
    for (const verb of ['list', 'watch']) {
      if (!resource.verbs.includes(verb)) throw new UserError(`the server does not support ${verb} on ${displayName(resource)} (verbs: ${resource.verbs.join(', ')})`);
    }
    // The same default as every command: -A reads every namespace, otherwise -n, else the context's namespace.
    const namespace = resource.namespaced && !flags['all-namespaces'] ? (flags.namespace ?? conn.namespace) : undefined;
    this.noteTarget({ namespaced: resource.namespaced, namespace });

    const stop = createStopSignal({ forMs });
    this.onCleanup(async () => stop.dispose());
    /** Stops the informer; --for and Ctrl-C only end the watch, so that --watch --check can still read the cache. */
    const end = new AbortController();
    let synced = false;
    stop.signal.addEventListener('abort', () => (synced && flags.check ? undefined : end.abort()), { once: true });
    const ndjson = output === 'ndjson' ? await this.streamIndexChanges(tracer, new Set(names)) : undefined;
    // --live (and --watch on a terminal): the dashboard opens before the informer, to show its sync too.
    const dashboard = mode === 'watch' && output === 'table' ? await this.liveIndex(flags.live, conn, resource, namespace, flags.selector, names, tracer, stop, flags['snapshot-dir']) : undefined;
    if (dashboard) this.onCleanup(async () => dashboard.session.stop());
    const { startIndexInformer } = await import('../../kube/pipelines/index-informer.js');
    const session = startIndexInformer({
      conn,
      target: { group: resource.group, version: resource.version, resource: resource.resource, namespaced: resource.namespaced, namespace, labelSelector: flags.selector, fieldSelector: flags['field-selector'] },
      name: displayName(resource),
      expectedKind: resource.kind,
      indexers,
      tracer,
      useWatchList: flags['watch-list'],
      ...watchListOptions(flags),
      pageSize: flags['page-size'],
      signal: end.signal,
      firstContact: this.firstContactOptions(),
    });
    this.onCleanup(async () => {
      end.abort();
      await session.done.catch(() => {});
    });
    await this.sync(session, resource, stop, syncTimeoutMs, tracer, dashboard !== undefined);
    synced = true;
    dashboard?.synced(session);

    switch (mode) {
      case 'check':
        return this.check(session, resource, names, output, flags['page-size'], stop.signal, template);
      case 'value':
        return this.byIndex(session, names[0], flags.value!, output, resource, namespace === undefined, flags['show-secrets'], template);
      case 'watch':
        if (!ndjson && !dashboard) await this.live(session, resource, names, intervalMs, stop);
        await Promise.race([untilAborted(stop.signal), session.done]);
        ndjson?.();
        if (dashboard) {
          // The screen is restored first: then the summary, and the table as it ends.
          dashboard.session.stop();
          process.stderr.write(`${dashboard.session.summary.format({ color: shouldColor(process.stderr, process.env) })}\n`);
          const rows = names.flatMap((n) => indexRows(session.store, n));
          const t = indexTable(rows, { showKeys: false, several: names.length > 1 });
          if (!flags.check) process.stdout.write(reportTable(t.headers, t.cells, { color: shouldColor(process.stdout, process.env), alignRight: [t.headers.indexOf('COUNT')] }));
        }
        if (!flags.check) return;
        // The informer keeps running until the check has its snapshot: the cache after the whole watch.
        process.stdout.write('\n');
        return this.check(session, resource, [], 'table', flags['page-size']);
      case 'report':
        ndjson?.();
        if (output === 'ndjson') return;
        // The build time is the index funcs' own, as a controller's relist pays it: timed without the masking.
        return this.report(session, names, indexersFromSpecs(specs), output, flags['show-keys'] || output === 'wide', template);
    }
  }

  /** Waits for the initial list, with a spinner on stderr (TTY only). */
  private async sync(session: IndexInformer, resource: ResolvedResource, stop: StopSignal, timeoutMs: number, tracer: Tracer, quiet = false): Promise<void> {
    const started = Date.now();
    const what = displayName(resource);
    // Under the dashboard its header shows the list's progress: a spinner would write over the screen.
    const spinner = startSpinner(quiet ? {} as NodeJS.WritableStream : process.stderr, `Syncing ${what}…`);
    // A paged LIST shows its pages and the server's estimate of the total; a watch-list only its count.
    // Only for a terminal: listening turns tracing on, which a sync to a pipe should not pay for.
    const progress = new ListProgress(what);
    let paged = false;
    const unsubscribe = process.stderr.isTTY && !quiet
      ? tracer.subscribe((r) => {
          if (!progress.add(r)) return;
          paged = true;
          spinner.update(progress.text());
        })
      : () => {};
    try {
      await session.synced({
        timeoutMs,
        onProgress: (n) => (paged ? undefined : spinner.update(`Syncing ${what}… ${n} listed`)),
        onNotice: (line) => {
          spinner.stop();
          process.stderr.write(`kwatch: ${what}: ${line}\n`);
        },
      });
    } catch (err) {
      unsubscribe();
      spinner.stop();
      if (stop.reason === 'interrupted' || stop.reason === 'quit') throw new UserError(`${stop.reason === 'quit' ? 'quit' : 'interrupted'} before the ${what} cache synced`, 130);
      if ((err as Error).name === 'SyncTimeoutError') throw new UserError((err as Error).message);
      throw err;
    }
    unsubscribe();
    spinner.succeed(`Synced ${session.store.size} ${what} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    await spinner.ready;
  }

  private async report(session: IndexInformer, names: string[], indexers: ReturnType<typeof indexersFromSpecs>, output: string, showKeys: boolean, template?: ObjectTemplate): Promise<Indices> {
    const store = session.store;
    const indices = indicesOf(store, names);
    if (template) process.stdout.write(template.document(indices));
    else if (output === 'json') process.stdout.write(JSON.stringify(indices, null, 2) + '\n');
    else if (output === 'yaml') process.stdout.write(kubectlYAML(indices));
    else {
      const rows = names.flatMap((n) => indexRows(store, n));
      const t = indexTable(rows, { showKeys, several: names.length > 1 });
      process.stdout.write(reportTable(t.headers, t.cells, { color: shouldColor(process.stdout, process.env), alignRight: [t.headers.indexOf('COUNT')] }));
      const objects = store.list();
      for (const n of names) {
        const built = timeIndexBuild(objects, { [n]: indexers[n] });
        process.stdout.write(totalsLine(indexTotals(n, indexRows(store, n), store.size), built.ms) + '\n');
      }
    }
    return indices;
  }

  private byIndex(session: IndexInformer, name: string, value: string, output: string, resource: ResolvedResource, allNamespaces: boolean, showSecrets: boolean, template?: ObjectTemplate): KubeObject[] | Record<string, unknown> {
    const store = session.store;
    // IndexKeys order (sorted keys), as client-go's IndexKeys returns them; ByIndex itself is unordered.
    // One object nested deeper than kwatch follows is one line on stderr and left out.
    const objects = store.indexKeys(name, value).flatMap((k) => {
      const obj = store.getByKey(k)!;
      let shown: KubeObject[] = [];
      showOrSkipTooDeep(objectName(obj), () => (shown = [maskSecrets(obj, { reveal: showSecrets })]));
      return shown;
    });
    if (template) {
      process.stdout.write(template.document(listOf(objects)));
      return listOf(objects);
    }
    if (objects.length === 0 && output === 'table') process.stderr.write(`No ${displayName(resource)} under ${name}=${value}\n`);
    printObjects(objects, { output: output as 'table' | 'name' | 'json' | 'yaml', stream: process.stdout, allNamespaces: allNamespaces && resource.namespaced, resource: resourcePrefix(resource) });
    return output === 'json' || output === 'yaml' ? listOf(objects) : objects;
  }

  private async check(session: IndexInformer, resource: ResolvedResource, names: string[], output: string, pageSize: number, signal?: AbortSignal, template?: ObjectTemplate): Promise<CacheCheckReport> {
    const { checkCache } = await import('../../kube/pipelines/cache-check.js');
    const snapshot = await session.snapshot();
    const report = await checkCache({ listerWatcher: session.listerWatcher, snapshot, pageSize, signal });
    const result = names.length > 0 ? { ...report, indices: indicesOf(session.store, names) } : report;
    if (template) process.stdout.write(template.document(result));
    else if (output === 'json') process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else if (output === 'yaml') process.stdout.write(kubectlYAML(result));
    else {
      if (names.length > 0) {
        const rows = names.flatMap((n) => indexRows(session.store, n));
        const t = indexTable(rows, { showKeys: false, several: names.length > 1 });
        process.stdout.write(reportTable(t.headers, t.cells, { color: shouldColor(process.stdout, process.env), alignRight: [t.headers.indexOf('COUNT')] }) + '\n');
      }
      const text = checkReportText(report, displayName(resource));
      process.stdout.write(text.summary + '\n');
      if (text.table) process.stdout.write(reportTable(text.table.headers, text.table.cells, { color: shouldColor(process.stdout, process.env) }));
    }
    if (!report.inSync) this.exit(CHECK_DIFFERS_EXIT_CODE);
    return result;
  }

  /** The live table until the stop signal; ink on a TTY, timestamped blocks otherwise. */
  private async live(session: IndexInformer, resource: ResolvedResource, names: string[], intervalMs: number, stop: StopSignal): Promise<void> {
    const { startLiveView } = await import('../../render/live-table.js');
    const rows = new IndexWatchRows((n) => indexCounts(session.store, n), names);
    const view = await startLiveView({
      headers: rows.headers,
      getRows: () => rows.rows(),
      rowKey: rows.rowKey,
      intervalMs,
      stream: process.stdout,
      title: () => `${displayName(resource)} by ${names.join(', ')}: ${session.store.size} objects at resourceVersion ${session.informer.lastSyncResourceVersion}`,
    });
    stop.signal.addEventListener('abort', () => view.stop(), { once: true });
    session.done.finally(() => view.stop()).catch(() => {});
  }

  /**
   * The dashboard with an index panel, when the terminal allows (see liveUnavailable); undefined otherwise
   * (--live says why in one line, --watch quietly keeps its table).
   */
  private async liveIndex(live: boolean, conn: Connection, resource: ResolvedResource, namespace: string | undefined, selector: string | undefined, names: string[], tracer: Tracer, stop: StopSignal, snapshotDir: string | undefined): Promise<{ session: LiveSession; synced: (s: IndexInformer) => void } | undefined> {
    const { liveUnavailable } = await import('../../cli/live-available.js');
    const why = liveUnavailable(process.stdout, process.stdin, process.env);
    if (why !== undefined) {
      if (live) process.stderr.write(`--live needs a terminal (${why}): showing the plain table\n`);
      return undefined;
    }
    const { startLiveSession } = await import('../../cli/live-session.js');
    let informer: IndexInformer | undefined;
    let rows: IndexWatchRows | undefined;
    const session = await startLiveSession({
      tracer,
      info: { context: conn.contextName, server: conn.server, resources: displayName(resource), namespace: resource.namespaced ? (namespace ?? '(all)') : undefined, selector },
      // The activity an index watches: the watch events and what they did to the cache.
      defaultStages: new Set(['watch', 'indexer']),
      snapshotDir,
      panel: {
        content: () => {
          if (!informer || !rows) return { title: `${displayName(resource)} by ${names.join(', ')}: syncing…`, lines: [] };
          return {
            title: `${displayName(resource)} by ${names.join(', ')}: ${informer.store.size} objects at resourceVersion ${informer.informer.lastSyncResourceVersion}`,
            lines: formatColumns(rows.headers, rows.rows()).replace(/\n$/, '').split('\n'),
          };
        },
      },
      stdout: process.stdout,
      onQuit: () => stop.stop('quit'),
    });
    return {
      session,
      synced: (s) => {
        informer = s;
        rows = new IndexWatchRows((n) => indexCounts(s.store, n), names);
      },
    };
  }

  /** Prints the indexer's records for `names` as ndjson from now on; returns the function that ends the stream. */
  private async streamIndexChanges(tracer: Tracer, names: ReadonlySet<string>): Promise<() => void> {
    const { createTracePrinter } = await import('../../render/trace-printer.js');
    const printer = createTracePrinter({ output: 'ndjson', stream: process.stdout, stages: new Set(['indexer']), batch: true });
    const unsubscribe = tracer.subscribe((r) => {
      const shaped = indexChangeRecord(r, names);
      if (shaped) printer.write(shaped);
    });
    return () => {
      unsubscribe();
      printer.end();
    };
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

/** kubectl's spelling: pods, deployments.apps. */
function displayName(r: ResolvedResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** `-o name` prefix as kubectl prints it: pod, deployment.apps. */
function resourcePrefix(r: ResolvedResource): string {
  const kind = r.kind.toLowerCase();
  return r.group ? `${kind}.${r.group}` : kind;
}
