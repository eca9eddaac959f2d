// kwatch events: list+watch a resource through the whole informer pipeline (or, with --raw, the
// wire only) and print what each stage saw.
import { Args, Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { parseDuration } from '../cli/duration.js';
import { createStopSignal } from '../cli/stop-signal.js';
import { UserError } from '../cli/user-error.js';
import type { GlobalFlags } from '../cli/flags.js';
import type { Connection } from '../kube/connection.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../kube/discovery-flags.js';
import type { ListWatchTarget } from '../kube/http-lister-watcher.js';
import type { ResolvedResource } from '../kube/resolve-resource.js';
import { metaNamespaceKey } from '../informer/types.js';

const RAW_OUTPUTS = ['table', 'wide', 'ndjson', 'json', 'yaml', 'name'];

export default class Events extends KwatchCommand {
  static override summary = 'Watch a resource and print what each stage of the informer pipeline saw.';
  static override description = `Runs the informer pipeline (Reflector → FIFO → Indexer → handlers → workqueue) against one or more resources and prints one line per thing each stage saw. With --raw, prints the watch stream exactly as the server sends it: one line per event (type, key, resourceVersion), or the raw event objects with -o ndjson.`;
  static override examples = [
    '<%= config.bin %> events pods --sim',
    '<%= config.bin %> events pods -A --raw --max-events 20',
    '<%= config.bin %> events pods,deployments -n shop --for 30s',
    '<%= config.bin %> events pods -A -o ndjson --stages all > trace.ndjson',
  ];
  static override args = {
    resource: Args.string({ description: 'Resource type(s), comma-separated: pods, po, deployments.apps, foos.example.com, …', required: true }),
    name: Args.string({ description: 'Narrow to one object by name.' }),
  };
  static override flags = {
    ...discoveryFlags,
    raw: Flags.boolean({ description: 'Print the watch stream exactly as the server sends it (the wire only, no informer).', default: false }),
    for: Flags.string({ description: 'Stop after this long (e.g. 30s, 5m).' }),
    'max-events': Flags.integer({ description: 'Stop after this many watch events.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Events);
    const output = flags.output ?? 'table';
    const forMs = flags.for ? parseDuration(flags.for, '--for') : undefined;
    if (flags['max-events'] !== undefined && flags['max-events'] < 1) throw new UserError('--max-events must be at least 1');
    if (flags.raw && !RAW_OUTPUTS.includes(output)) throw new UserError(`--output ${output} is not available: use one of ${RAW_OUTPUTS.join(', ')}`);

    const conn = await this.connect(flags);
    const { resolveResources } = await import('../kube/resolve-resource.js');
    const resources = await resolveResources(conn, args.resource, discoveryOptionsFromFlags(flags));
    for (const r of resources) {
      if (!r.verbs.includes('watch')) throw new UserError(`the server does not support watch on ${displayName(r)} (verbs: ${r.verbs.join(', ')})`);
    }
    const targets = resources.map((r) => targetFor(r, conn, flags, args.name));
    const stop = createStopSignal({ forMs });
    try {
      if (flags.raw) await this.runRaw(conn, resources, targets, output, flags['max-events'], stop);
      else throw new UserError('the pipeline view is not available yet: use --raw');
    } finally {
      stop.dispose();
    }
  }

  private async runRaw(conn: Connection, resources: ResolvedResource[], targets: ListWatchTarget[], output: string, maxEvents: number | undefined, stop: ReturnType<typeof createStopSignal>): Promise<void> {
    const { runRawWatch } = await import('../kube/raw-watch.js');
    const several = resources.length > 1;
    const out = process.stdout;
    let count = 0;
    const yaml = output === 'yaml' ? await import('yaml') : undefined;
    if (output === 'table' || output === 'wide') out.write(`${pad('TYPE', 10)}${several ? pad('RESOURCE', 24) : ''}${pad('KEY', 48)}RV\n`);
    await runRawWatch(conn, targets, {
      signal: stop.signal,
      allowWatchBookmarks: true,
      onEvent: ({ target, line, event }) => {
        if (stop.signal.aborted) return;
        const rv = event.object?.metadata?.resourceVersion ?? '';
        const key = event.type === 'ERROR' || event.type === 'BOOKMARK' ? '' : metaNamespaceKey(event.object);
        switch (output) {
          case 'ndjson':
            out.write(`${line}\n`);
            break;
          case 'json':
            out.write(`${JSON.stringify(JSON.parse(line), null, 4)}\n`);
            break;
          case 'yaml':
            out.write(`---\n${yaml!.stringify(JSON.parse(line))}`);
            break;
          case 'name':
            out.write(`${event.type} ${displayName(resources[target])}/${key}\n`);
            break;
          default: {
            const detail = event.type === 'ERROR' ? `  ${(event.object as { message?: string }).message ?? ''}` : '';
            out.write(`${pad(event.type, 10)}${several ? pad(displayName(resources[target]), 24) : ''}${pad(key || '-', 48)}${rv}${detail}\n`);
          }
        }
        count++;
        if (maxEvents !== undefined && count >= maxEvents) stop.stop('max-events');
      },
      onNotice: ({ target, message }) => process.stderr.write(`kwatch: ${displayName(resources[target])}: ${message}\n`),
    });
  }
}

function pad(s: string, width: number): string {
  return s.length >= width ? `${s} ` : s.padEnd(width);
}

/** kubectl's spelling: pods, deployments.apps. */
export function displayName(r: ResolvedResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

function targetFor(r: ResolvedResource, conn: Connection, flags: GlobalFlags, name?: string): ListWatchTarget {
  const namespace = r.namespaced && !flags['all-namespaces'] ? (flags.namespace ?? conn.namespace) : undefined;
  return { group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced, namespace, labelSelector: flags.selector, fieldSelector: flags['field-selector'], name };
}
