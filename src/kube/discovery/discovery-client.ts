// The discovery client: groups and resources from the disk cache when fresh, else from the
// server (aggregated discovery when both /api and /apis offer it, else the legacy per-group-version
// documents in parallel), writing what it fetched back to the cache. Every step is recorded.
import { StatusError } from '../../informer/errors.js';
import type { Connection, HttpResponse } from '../http/connection.js';
import { AGGREGATED_ACCEPT, aggregatedVersion, splitAggregated } from './aggregated-discovery.js';
import { cacheRoot, DiscoveryCache, safeHostDir, type CacheRead, type DiscoveryCacheOptions } from './discovery-cache.js';
import { DiscoveryEtagCache } from './discovery-etag-cache.js';
import { DiskDiscoveryStore, type DiscoveryStore } from './discovery-store.js';
import { errorForAnswer, UnexpectedAnswerError } from '../http/unexpected-answer.js';
import { FirstContact, type FirstContactOptions } from '../http/first-contact.js';
import {
  encodeAPIGroupList,
  encodeAPIResourceList,
  splitGroupVersion,
  type APIGroup,
  type APIResource,
  type APIGroupDiscoveryList,
  type APIGroupList,
  type APIResourceList,
} from './discovery-types.js';

/** client-go's discovery request timeout, sent as ?timeout=32s like kubectl. */
const DISCOVERY_TIMEOUT = '32s';
/** The same 32 s bounds the wait on our side when --request-timeout is unset (client-go's discovery client timeout). */
export const DISCOVERY_TIMEOUT_MS = 32_000;
const LEGACY_ACCEPT = 'application/json, */*';
const SERVER_GROUPS = 'servergroups.json';

export function resourcesFile(groupVersion: string): string {
  return `${groupVersion}/serverresources.json`;
}

export type DiscoveryEvent =
  | ({ type: 'cache-read' } & Omit<CacheRead, 'text'>)
  | { type: 'cache-write'; file: string; bytes: number; error?: string }
  | { type: 'http'; method: string; path: string; status?: number; ms: number; bytes?: number; contentType?: string; aggregated?: string; etag?: string; error?: string }
  | { type: 'invalidate'; reason: string }
  | { type: 'warning'; message: string };

export type DiscoveryMode = 'aggregated' | 'legacy' | 'cache';

export interface DiscoverySnapshot {
  /** Groups in server order, the core group ("") first. */
  groups: APIGroup[];
  /** Resource lists by group-version. */
  resources: Map<string, APIResourceList>;
  /** Group-versions that could not be discovered (stale, or the request failed), with why. */
  failed: Map<string, string>;
  /** Where the group list came from: the cache, or the server (aggregated or legacy documents). */
  mode: DiscoveryMode;
  /** Where each group-version's resource list came from, e.g. "cache apps/v1/serverresources.json". */
  sources: Map<string, string>;
}

/** One top-level resource (subresources left out) of a snapshot, with where it sits. */
export interface SnapshotResource {
  group: APIGroup;
  groupVersion: string;
  version: string;
  res: APIResource;
}

/** Every top-level resource of a snapshot: groups in server order, each group's versions in order. */
export function* topLevelResources(snap: DiscoverySnapshot): Generator<SnapshotResource> {
  for (const group of snap.groups) {
    for (const v of group.versions ?? []) {
      const list = snap.resources.get(v.groupVersion);
      if (!list) continue;
      const { version } = splitGroupVersion(v.groupVersion);
      for (const res of list.resources ?? []) {
        if (!res.name.includes('/')) yield { group, groupVersion: v.groupVersion, version, res };
      }
    }
  }
}

export interface DiscoveryClientOptions extends DiscoveryCacheOptions {
  /** Warnings (corrupt cache files, failed group-versions) are reported here; default: collected only. */
  warn?: (message: string) => void;
  /** Retry a failing server's /api and /apis as first-contact.ts says; default: fail at once. */
  firstContact?: FirstContactOptions;
}

/**
 * Where a client's cache lives: under --cache-dir when one is given (the user asked to keep it there), else in the
 * connection's own store (an in-process server's memory), else in the disk cache kubectl shares.
 */
export function discoveryStoreFor(conn: Pick<Connection, 'discoveryStore'>, cacheDir?: string): DiscoveryStore {
  if (cacheDir) return new DiskDiscoveryStore(cacheDir);
  return conn.discoveryStore ?? new DiskDiscoveryStore(cacheRoot());
}

export class DiscoveryClient {
  readonly cache: DiscoveryCache;
  /** Where the cache's files live. */
  readonly store: DiscoveryStore;
  readonly events: DiscoveryEvent[] = [];
  private readonly etags: DiscoveryEtagCache;
  private snapshot?: Promise<DiscoverySnapshot>;

  constructor(
    private readonly conn: Connection,
    private readonly opts: DiscoveryClientOptions = {},
  ) {
    this.store = discoveryStoreFor(conn, opts.cacheDir);
    // Named after the URL as written, as kubectl names it, so both share one cache.
    this.cache = new DiscoveryCache(conn.cacheHost ?? conn.server, this.store, opts);
    // kwatch's own ETag store is named after the shown URL: no password in a folder name of ours.
    this.etags = new DiscoveryEtagCache(this.store, safeHostDir(conn.server));
  }

  /** True while nothing used came from a cache file written by another process. */
  get fresh(): boolean {
    return this.cache.fresh;
  }

  /** Drops what is known and refuses cache files not written by this process (client-go Invalidate). */
  invalidate(reason: string): void {
    this.events.push({ type: 'invalidate', reason });
    this.cache.invalidate();
    this.snapshot = undefined;
  }

  /** All groups and resources (client-go ServerGroupsAndResources through the disk cache), memoised. */
  discover(): Promise<DiscoverySnapshot> {
    this.snapshot ??= this.load();
    const p = this.snapshot;
    p.catch(() => {
      if (this.snapshot === p) this.snapshot = undefined;
    });
    return p;
  }

  private warn(message: string): void {
    this.events.push({ type: 'warning', message });
    this.opts.warn?.(message);
  }

  private readCache<T>(file: string): T | undefined {
    const r = this.cache.read(file);
    const { text, ...event } = r;
    this.events.push({ type: 'cache-read', ...event });
    if (r.state === 'unreadable') this.warn(this.cache.shown(`ignoring unreadable discovery cache file ${this.cache.path(file)}: ${r.error}`));
    if (r.state !== 'hit' || text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as T;
      if (!parsed || typeof parsed !== 'object') throw new Error('not a JSON object');
      return parsed;
    } catch (err) {
      this.warn(this.cache.shown(`ignoring corrupt discovery cache file ${this.cache.path(file)} (${(err as Error).message}); it will be rewritten`));
      const last = this.events.findLast((e) => e.type === 'cache-read' && e.file === file);
      if (last && last.type === 'cache-read') last.state = 'unreadable';
      return undefined;
    }
  }

  private writeCache(file: string, text: string): void {
    try {
      this.cache.write(file, text);
      this.events.push({ type: 'cache-write', file, bytes: Buffer.byteLength(text) });
    } catch (err) {
      this.events.push({ type: 'cache-write', file, bytes: 0, error: (err as Error).message });
      this.warn(this.cache.shown(`failed to write discovery cache ${this.cache.path(file)}: ${(err as Error).message}`));
    }
  }

  /** `revalidate`: send If-None-Match with a stored ETag and keep ETag'd answers (the aggregated documents). */
  private async get(path: string, accept: string, revalidate = false): Promise<{ res: HttpResponse; text: string; contentType?: string }> {
    const start = performance.now();
    const event: DiscoveryEvent & { type: 'http' } = { type: 'http', method: 'GET', path, ms: 0 };
    this.events.push(event);
    const stored = revalidate ? this.etags.get(path) : undefined;
    const headers: Record<string, string> = { Accept: accept };
    if (stored) headers['If-None-Match'] = stored.etag;
    try {
      let res = await this.conn.request({ path, query: { timeout: DISCOVERY_TIMEOUT }, headers, allowErrorStatus: true, fallbackTimeoutMs: DISCOVERY_TIMEOUT_MS });
      let text = await res.body.text();
      Object.assign(event, { status: res.status, ms: elapsed(start), bytes: Buffer.byteLength(text) });
      let contentType = header(res.headers['content-type']);
      let etag = header(res.headers.etag);
      if (res.status === 304 && stored) {
        // Not modified: the stored document is current.
        text = stored.body;
        contentType = stored.contentType;
        etag = stored.etag;
        res = { ...res, status: 200 };
      } else if (revalidate && res.status === 200 && etag) {
        this.etags.put(path, { etag, contentType, body: text });
      }
      event.contentType = contentType;
      if (etag) event.etag = etag;
      const agg = aggregatedVersion(contentType);
      if (agg) event.aggregated = agg;
      return { res, text, contentType };
    } catch (err) {
      Object.assign(event, { ms: elapsed(start), error: (err as Error).message });
      throw err;
    }
  }

  private async load(): Promise<DiscoverySnapshot> {
    const cachedGroups = this.readCache<APIGroupList>(SERVER_GROUPS);
    if (cachedGroups && Array.isArray(cachedGroups.groups)) return this.fromCachedGroups(cachedGroups.groups);
    return this.fromServer();
  }

  /** servergroups.json was a hit: each group-version from its own file, fetching the ones missing. */
  private async fromCachedGroups(groups: APIGroup[]): Promise<DiscoverySnapshot> {
    const snap: DiscoverySnapshot = { groups, resources: new Map(), failed: new Map(), mode: 'cache', sources: new Map() };
    const missing: string[] = [];
    for (const g of groups) {
      for (const v of g.versions ?? []) {
        const file = resourcesFile(v.groupVersion);
        const list = this.readCache<APIResourceList>(file);
        if (list && Array.isArray(list.resources)) {
          snap.resources.set(v.groupVersion, list);
          snap.sources.set(v.groupVersion, `cache ${file}`);
        } else {
          missing.push(v.groupVersion);
        }
      }
    }
    await this.fetchLegacyResources(missing, snap);
    return snap;
  }

  private async fromServer(): Promise<DiscoverySnapshot> {
    const roots = async () => {
      const answers = await Promise.all([this.get('/api', AGGREGATED_ACCEPT, true), this.get('/apis', AGGREGATED_ACCEPT, true)]);
      for (const [i, { res, text, contentType }] of answers.entries()) {
        if (res.status === 404 && i === 0) continue; // see below
        if (res.status < 200 || res.status >= 300) throw statusError(this.conn.server, res, text, contentType);
      }
      return answers;
    };
    // The first request of most commands: a failing server is retried (or not) as the first-contact policy says.
    const [core, apis] = this.opts.firstContact ? await new FirstContact(this.opts.firstContact).attempt('discovery', roots) : await roots();
    const snap: DiscoverySnapshot = { groups: [], resources: new Map(), failed: new Map(), mode: 'legacy', sources: new Map() };
    const aggregated: { resources: Map<string, APIResourceList>; path: string }[] = [];

    for (const [path, { res, text, contentType }] of [['/api', core], ['/apis', apis]] as const) {
      // /api may be missing (404 tolerated, as client-go does); /apis must answer.
      if (res.status === 404 && path === '/api') continue;
      if (res.status < 200 || res.status >= 300) throw statusError(this.conn.server, res, text, contentType);
      const body = parseJson(text, path, this.conn.server);
      const agg = aggregatedVersion(contentType);
      if (agg) {
        const split = splitAggregated(body as APIGroupDiscoveryList);
        snap.groups.push(...split.groups.groups);
        for (const [gv, why] of split.failed) snap.failed.set(gv, why);
        for (const d of split.dropped) this.warn(`discovery resource dropped: ${d}`);
        aggregated.push({ resources: split.resources, path });
      } else if (path === '/api') {
        const versions = ((body as { versions?: string[] }).versions ?? []).filter(Boolean);
        if (versions.length) snap.groups.push({ name: '', versions: versions.map((v) => ({ groupVersion: v, version: v })), preferredVersion: { groupVersion: versions[0], version: versions[0] } });
      } else {
        snap.groups.push(...((body as APIGroupList).groups ?? []));
      }
    }

    const coreAggregated = core.res.status === 404 || aggregated.some((a) => a.path === '/api');
    const apisAggregated = aggregated.some((a) => a.path === '/apis');
    if (coreAggregated && apisAggregated) {
      // "For safety, only return resources if both endpoints returned resources" (client-go)
      snap.mode = 'aggregated';
      for (const a of aggregated) {
        for (const [gv, list] of a.resources) {
          snap.resources.set(gv, list);
          snap.sources.set(gv, `aggregated ${a.path}`);
        }
      }
    } else {
      if (aggregated.length) this.warn('only one of /api and /apis offered aggregated discovery: falling back to per-group-version documents');
      const all = snap.groups.flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion));
      await this.fetchLegacyResources(all, snap, false);
    }

    this.writeCache(SERVER_GROUPS, encodeAPIGroupList({ groups: snap.groups }));
    if (snap.mode === 'aggregated') {
      // Empty lists are not cached (client-go).
      for (const [gv, list] of snap.resources) if (list.resources.length) this.writeCache(resourcesFile(gv), encodeAPIResourceList(list));
    }
    for (const [gv, why] of snap.failed) this.warn(`couldn't get resource list for ${gv}: ${why}`);
    return snap;
  }

  /** Legacy per-group-version documents, fetched in parallel; failures are recorded, not fatal. */
  private async fetchLegacyResources(groupVersions: string[], snap: DiscoverySnapshot, warn = true): Promise<void> {
    await Promise.all(
      groupVersions.map(async (gv) => {
        const { group } = splitGroupVersion(gv);
        const path = group ? `/apis/${gv}` : `/api/${gv}`;
        try {
          const { res, text, contentType } = await this.get(path, LEGACY_ACCEPT);
          if (res.status === 404 && gv === 'v1') {
            // client-go: a missing /api/v1 is an empty list
            snap.resources.set(gv, { groupVersion: gv, resources: [] });
            return;
          }
          if (res.status < 200 || res.status >= 300) throw statusError(this.conn.server, res, text, contentType);
          const list = parseJson(text, path, this.conn.server) as APIResourceList;
          list.resources ??= [];
          list.groupVersion ||= gv;
          snap.resources.set(gv, list);
          snap.sources.set(gv, `GET ${path}`);
          if (list.resources.length) this.writeCache(resourcesFile(gv), encodeAPIResourceList(list));
        } catch (err) {
          snap.failed.set(gv, (err as Error).message);
          if (warn) this.warn(`couldn't get resource list for ${gv}: ${(err as Error).message}`);
        }
      }),
    );
  }
}

/** The server's Status (credentials it echoes masked), or UnexpectedAnswerError for an HTML page. */
function statusError(server: string, res: HttpResponse, text: string, contentType: string | undefined): StatusError | UnexpectedAnswerError {
  return errorForAnswer({ server, status: res.status, contentType, text });
}

function parseJson(text: string, path: string, server: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UnexpectedAnswerError(`the server at ${server} sent an unreadable discovery document for ${path}: ${(err as Error).message} (not a Kubernetes API response)`, { cause: err });
  }
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function elapsed(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}

