// The data behind `kwatch api-resources`: kubectl's ServerPreferredResources, filtered and sorted
// exactly as `kubectl api-resources` does (rows only; the command renders them).
import type { Connection } from '../http/connection.js';
import { DiscoveryClient, topLevelResources, type DiscoveryClientOptions, type DiscoverySnapshot } from './discovery-client.js';
import type { APIResource } from './discovery-types.js';
import { groupVersionString } from './discovery-types.js';

export interface ApiResourceRow {
  name: string;
  shortNames: string[];
  /** group/version as the APIVERSION column shows it. */
  apiVersion: string;
  group: string;
  version: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  categories: string[];
}

export interface ApiResourcesOptions extends DiscoveryClientOptions {
  /** Only this group ("" = core); undefined = all groups. */
  apiGroup?: string;
  /** Only namespaced (true) or cluster-scoped (false) resources; undefined = both. */
  namespaced?: boolean;
  /** Only resources supporting all of these verbs. */
  verbs?: string[];
  /** Only resources in all of these categories. */
  categories?: string[];
  sortBy?: 'name' | 'kind';
  /** Use the cache as is (kubectl --cached); otherwise always ask the server. */
  cached?: boolean;
  discovery?: DiscoveryClient;
}

export interface ApiResourcesResult {
  rows: ApiResourceRow[];
  /** Group-versions that could not be discovered, with why (kubectl prints these as errors). */
  failed: Record<string, string>;
  discovery: DiscoveryClient;
}

/** client-go's ServerPreferredResources: one version per group/resource, the preferred one when it has it. */
export function serverPreferredResources(snap: DiscoverySnapshot): { group: string; version: string; res: APIResource }[] {
  const chosen = new Map<string, { group: string; version: string; res: APIResource }>();
  for (const { group, version, res } of topLevelResources(snap)) {
    const key = `${group.name}/${res.name}`;
    if (chosen.has(key) && version !== group.preferredVersion?.version) continue;
    chosen.set(key, { group: group.name, version, res });
  }
  // Grouped back by group-version in discovery order (the order kubectl flattens its lists in).
  const order = snap.groups.flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion));
  return [...chosen.values()].sort((a, b) => order.indexOf(groupVersionString(a.group, a.version)) - order.indexOf(groupVersionString(b.group, b.version)));
}

export function apiResourceRows(snap: DiscoverySnapshot, opts: ApiResourcesOptions = {}): ApiResourceRow[] {
  const rows: ApiResourceRow[] = [];
  for (const { group, version, res } of serverPreferredResources(snap)) {
    const verbs = res.verbs ?? [];
    if (verbs.length === 0) continue;
    if (opts.apiGroup !== undefined && opts.apiGroup !== group) continue;
    if (opts.namespaced !== undefined && opts.namespaced !== Boolean(res.namespaced)) continue;
    if (opts.verbs?.length && !opts.verbs.every((v) => verbs.includes(v))) continue;
    if (opts.categories?.length && !opts.categories.every((c) => (res.categories ?? []).includes(c))) continue;
    rows.push({
      name: res.name,
      shortNames: res.shortNames ?? [],
      apiVersion: groupVersionString(group, version),
      group,
      version,
      namespaced: Boolean(res.namespaced),
      kind: res.kind,
      verbs,
      categories: res.categories ?? [],
    });
  }
  // kubectl: sort.Stable by group (or name/kind), ties by name; Go compares strings bytewise.
  const key = (r: ApiResourceRow) => (opts.sortBy === 'name' ? r.name : opts.sortBy === 'kind' ? r.kind : r.group);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => cmp(key(a.r), key(b.r)) || cmp(a.r.name, b.r.name) || a.i - b.i)
    .map(({ r }) => r);
}

export async function listApiResources(conn: Connection, opts: ApiResourcesOptions = {}): Promise<ApiResourcesResult> {
  const discovery = opts.discovery ?? new DiscoveryClient(conn, opts);
  // kubectl api-resources always asks the server unless --cached
  if (!opts.cached) discovery.invalidate('api-resources always asks the server (use --cached to read the cache)');
  const snap = await discovery.discover();
  return { rows: apiResourceRows(snap, opts), failed: Object.fromEntries(snap.failed), discovery };
}

/** The table kubectl prints: headers (none for -o name) and cells per row. */
export function apiResourcesTable(rows: ApiResourceRow[], output: 'table' | 'wide' | 'name'): { headers: string[] | null; cells: string[][] } {
  if (output === 'name') return { headers: null, cells: rows.map((r) => [r.group ? `${r.name}.${r.group}` : r.name]) };
  const headers = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'];
  const base = (r: ApiResourceRow) => [r.name, r.shortNames.join(','), r.apiVersion, String(r.namespaced), r.kind];
  if (output === 'wide') return { headers: [...headers, 'VERBS', 'CATEGORIES'], cells: rows.map((r) => [...base(r), r.verbs.join(','), r.categories.join(',')]) };
  return { headers, cells: rows.map(base) };
}
