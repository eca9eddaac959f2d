// kwatch discovery: the discovery pipeline itself — cache files, aggregated vs legacy, HTTP requests — and how a name resolves.
import { Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { UserError } from '../cli/user-error.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../cli/discovery-flags.js';
import { discoveryReport, type DiscoveryReport } from '../kube/discovery/discovery-report.js';
import type { DiscoveryStore } from '../kube/discovery/discovery-store.js';
import { formatColumns } from '../render/columns.js';
import { shouldColor } from '../render/color.js';
import { reportTable } from '../render/report-table.js';

export default class Discovery extends KwatchCommand {
  static override summary = 'Show how discovery ran: the cache kubectl shares, each file hit/miss/expired, aggregated or legacy, the HTTP requests.';
  static override description =
    'Runs discovery as every kwatch command does — the disk cache shared with kubectl ($KUBECACHEDIR or ~/.kube/cache, 6 h TTL), else aggregated discovery from /api and /apis, else the per-group-version documents — and shows each step. --refresh invalidates the cache first; --explain NAME shows how a resource name (deploy, foos.example.com, all) resolved and from which discovery entry.';
  static override examples = [
    '<%= config.bin %> discovery --sim',
    '<%= config.bin %> discovery --explain deploy',
    '<%= config.bin %> discovery --refresh -o json',
  ];
  static override flags = {
    ...discoveryFlags,
    refresh: Flags.boolean({ description: 'Invalidate the cache first and fetch discovery from the server.', default: false }),
    explain: Flags.string({ description: 'Show how this resource name resolves (e.g. deploy, deployments.apps, foos.v1.example.com, all).' }),
  };

  /** With --sim the cache is this command's subject: its files are kept on disk (a temporary folder) to be shown. */
  protected override localDiscoveryStore(): Promise<DiscoveryStore> {
    return this.temporaryDiscoveryStore();
  }

  async run(): Promise<DiscoveryReport> {
    const { flags } = await this.parse(Discovery);
    const output = flags.output ?? 'table';
    if (!['table', 'wide', 'json'].includes(output)) throw new UserError(`--output ${output} is not available for discovery: use json`);
    const conn = await this.connect(flags);
    const report = await discoveryReport(conn, { ...discoveryOptionsFromFlags(flags, () => undefined), refresh: flags.refresh, explain: flags.explain });
    if (output === 'json') this.log(JSON.stringify(report, null, 2));
    else process.stdout.write(renderReport(report, { color: shouldColor(process.stdout, process.env) }));
    return report;
  }
}

function age(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  if (seconds < 120) return `${Math.round(seconds)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m`;
}

function size(bytes: number | undefined): string {
  if (bytes === undefined) return '-';
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** The human view: a summary, the cache files, the requests, then the explanation. */
export function renderReport(r: DiscoveryReport, opts: { color?: boolean } = {}): string {
  const how =
    r.mode === 'cache'
      ? 'from the disk cache (servergroups.json was fresh)'
      : r.mode === 'aggregated'
        ? 'aggregated discovery from /api and /apis (one request each)'
        : 'legacy discovery: /api, /apis, then one document per group-version';
  let out = '';
  out += formatColumns(null, [
    ['Server:', r.server],
    ['Cache:', `${r.cacheDir} (TTL ${age(r.ttlSeconds)}; shared with kubectl)`],
    ['Discovery:', how],
    ['Found:', `${r.groups} groups, ${r.groupVersions} group-versions, ${r.resources} resources${r.fresh ? '' : ' (using data written by another process)'}`],
  ]);
  for (const why of r.invalidations) out += `Invalidated: ${why}\n`;
  out += '\n';
  if (r.files.length) {
    out += reportTable(
      ['CACHE FILE', 'AGE', 'RESULT', 'WRITTEN'],
      r.files.map((f) => [f.file, age(f.ageSeconds), f.state === 'unreadable' ? 'corrupt' : f.state, f.written ? 'yes' : '']),
      { color: opts.color, alignRight: [1] },
    );
    out += '\n';
  }
  if (r.requests.length) {
    out += reportTable(
      ['REQUEST', 'STATUS', 'LATENCY', 'BYTES', 'DISCOVERY', 'ETAG'],
      r.requests.map((q) => [`${q.method} ${q.path}`, q.error ? `error: ${q.error}` : String(q.status ?? '-'), `${q.ms}ms`, size(q.bytes), q.aggregated ? `aggregated ${q.aggregated}` : 'legacy', q.etag ? (q.etag.length > 20 ? `${q.etag.slice(0, 17)}…"` : q.etag) : '']),
      { color: opts.color, alignRight: [2, 3] },
    );
    out += '\n';
  } else {
    out += 'No HTTP requests: everything came from the cache.\n\n';
  }
  for (const [gv, why] of Object.entries(r.failed)) out += `Failed: ${gv}: ${why}\n`;
  for (const w of r.warnings) out += `Warning: ${w}\n`;
  if (r.explain) {
    const e = r.explain;
    out += `Resolution of "${e.input}":\n`;
    for (const s of e.steps) out += `  ${s}\n`;
    out += reportTable(
      ['RESOURCE', 'APIVERSION', 'KIND', 'NAMESPACED', 'VERBS', 'SOURCE'],
      e.resources.map((x) => [x.group ? `${x.resource}.${x.group}` : x.resource, x.group ? `${x.group}/${x.version}` : x.version, x.kind, String(x.namespaced), x.verbs.join(','), x.source]),
      { color: opts.color },
    );
  }
  return out;
}
