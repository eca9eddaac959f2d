// What `kwatch discovery` shows: the discovery pipeline of one run — cache location and files (hit,
// miss, expired), aggregated or legacy discovery, the HTTP requests made — and, with --explain, how
// a resource name resolved.
import type { Connection } from '../http/connection.js';
import { DiscoveryClient, type DiscoveryClientOptions, type DiscoveryEvent } from './discovery-client.js';
import { explainResource, type Resolution } from './resolve-resource.js';

export interface CacheFileReport {
  /** Relative to the cache's host directory. */
  file: string;
  /** The outcome of the (last) read: hit, miss, expired, invalidated, unreadable (corrupt). */
  state: string;
  /** Age from mtime when read, in seconds. */
  ageSeconds?: number;
  /** The file was (re)written during this run. */
  written: boolean;
}

export interface HttpRequestReport {
  method: string;
  path: string;
  status?: number;
  ms: number;
  bytes?: number;
  contentType?: string;
  /** Aggregated discovery version when the answer was aggregated (v2, v2beta1). */
  aggregated?: string;
  etag?: string;
  error?: string;
}

export interface DiscoveryReport {
  server: string;
  cacheRoot: string;
  cacheDir: string;
  ttlSeconds: number;
  /** Where the group list came from this run. */
  mode: 'aggregated' | 'legacy' | 'cache';
  /** False when data written by another process (kubectl, an earlier kwatch) was used. */
  fresh: boolean;
  groups: number;
  groupVersions: number;
  resources: number;
  files: CacheFileReport[];
  requests: HttpRequestReport[];
  invalidations: string[];
  failed: Record<string, string>;
  warnings: string[];
  explain?: Resolution;
}

export interface DiscoveryReportOptions extends DiscoveryClientOptions {
  /** Invalidate the cache first (re-fetch everything). */
  refresh?: boolean;
  /** Resolve this name and report how. */
  explain?: string;
}

export async function discoveryReport(conn: Connection, opts: DiscoveryReportOptions = {}): Promise<DiscoveryReport> {
  const client = new DiscoveryClient(conn, opts);
  if (opts.refresh) client.invalidate('--refresh');
  let explain: Resolution | undefined;
  if (opts.explain) explain = await explainResource(conn, opts.explain, { discovery: client });
  const snap = await client.discover();
  return {
    server: conn.server,
    cacheRoot: client.store.root,
    cacheDir: client.cache.shownDir,
    ttlSeconds: Math.round(client.cache.ttlMs / 1000),
    mode: snap.mode,
    fresh: client.fresh,
    groups: snap.groups.length,
    groupVersions: snap.resources.size,
    resources: [...snap.resources.values()].reduce((n, l) => n + (l.resources ?? []).filter((r) => !r.name.includes('/')).length, 0),
    files: fileReports(client.events),
    requests: client.events.filter((e): e is Extract<DiscoveryEvent, { type: 'http' }> => e.type === 'http').map(({ type: _t, ...r }) => r),
    invalidations: client.events.flatMap((e) => (e.type === 'invalidate' ? [e.reason] : [])),
    failed: Object.fromEntries(snap.failed),
    warnings: client.events.flatMap((e) => (e.type === 'warning' ? [e.message] : [])),
    ...(explain ? { explain } : {}),
  };
}

/** One row per cache file: the last read outcome and whether it was written this run. */
function fileReports(events: DiscoveryEvent[]): CacheFileReport[] {
  const byFile = new Map<string, CacheFileReport>();
  for (const e of events) {
    if (e.type === 'cache-read') {
      const prev = byFile.get(e.file);
      byFile.set(e.file, { file: e.file, state: e.state, ...(e.ageMs !== undefined ? { ageSeconds: Math.round(e.ageMs / 100) / 10 } : {}), written: prev?.written ?? false });
    } else if (e.type === 'cache-write' && !e.error) {
      const prev = byFile.get(e.file);
      byFile.set(e.file, { ...(prev ?? { file: e.file, state: 'miss' }), written: true });
    }
  }
  return [...byFile.values()];
}
