// kubectl's discovery disk cache (client-go discovery/cached/disk): same directory layout, file
// format, TTL from mtime and atomic writes, so kubectl and kwatch share one cache. Its files are kept
// by a DiscoveryStore: on disk, or in memory for a server that lives only as long as the run.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { shownFolderName } from '../http/server-url.js';
import type { DiscoveryStore } from './discovery-store.js';

/** kubectl's default TTL since 1.24 (it was 10 minutes before). */
export const DEFAULT_DISCOVERY_TTL_MS = 6 * 60 * 60 * 1000;

/** `--cache-dir`, else $KUBECACHEDIR, else ~/.kube/cache (cli-runtime getDefaultCacheDir). */
export function cacheRoot(cacheDir?: string): string {
  if (cacheDir) return cacheDir;
  if (process.env.KUBECACHEDIR) return process.env.KUBECACHEDIR;
  return join(process.env.HOME || homedir(), '.kube', 'cache');
}

/** cli-runtime's computeDiscoverCacheDir: strip one https:// then one http://, then replace [^(\w/.)] with _. */
export function safeHostDir(host: string): string {
  return host.replace('https://', '').replace('http://', '').replace(/[^(\w/.)]/g, '_');
}

export type CacheState = 'hit' | 'miss' | 'expired' | 'invalidated' | 'unreadable';

export interface CacheRead {
  /** Path relative to the host directory, e.g. apps/v1/serverresources.json. */
  file: string;
  state: CacheState;
  /** Age from mtime, when the file exists. */
  ageMs?: number;
  /** Written by this process. */
  ours: boolean;
  text?: string;
  error?: string;
}

export interface DiscoveryCacheOptions {
  /** Cache root (the --cache-dir value); defaults as kubectl. */
  cacheDir?: string;
  ttlMs?: number;
  now?: () => number;
}

export class DiscoveryCache {
  /** <root>/discovery/<safe host> */
  readonly dir: string;
  /** `dir` as it may be printed: a password in the server URL's userinfo masked (kubectl's folder name holds it). */
  readonly shownDir: string;
  readonly ttlMs: number;
  private readonly now: () => number;
  private readonly ourFiles = new Set<string>();
  private invalidated = false;
  /** client-go's Fresh(): true until a file not written by this process is used. */
  fresh = true;

  constructor(
    server: string,
    private readonly store: DiscoveryStore,
    opts: Omit<DiscoveryCacheOptions, 'cacheDir'> = {},
  ) {
    this.dir = join(store.root, 'discovery', safeHostDir(server));
    this.shownDir = join(store.root, 'discovery', shownFolderName(server, safeHostDir(server), safeHostDir));
    this.ttlMs = opts.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** client-go's Invalidate(): from now on only files written by this process count. */
  invalidate(): void {
    this.invalidated = true;
    this.fresh = true;
  }

  /** `text` (a message naming cache files) with `dir` replaced by `shownDir`. */
  shown(text: string): string {
    return this.dir === this.shownDir ? text : text.split(this.dir).join(this.shownDir);
  }

  path(file: string): string {
    return join(this.dir, file);
  }

  read(file: string): CacheRead {
    const ours = this.ourFiles.has(file);
    if (this.invalidated && !ours) {
      const age = this.ageOf(file);
      return { file, state: 'invalidated', ours, ...(age !== undefined ? { ageMs: age } : {}) };
    }
    let text: string | undefined;
    let ageMs: number;
    try {
      const modifiedMs = this.store.modifiedMs(this.path(file));
      if (modifiedMs === undefined) return { file, state: 'miss', ours };
      ageMs = this.now() - modifiedMs;
      if (ageMs > this.ttlMs) return { file, state: 'expired', ageMs, ours };
      text = this.store.read(this.path(file));
    } catch (err) {
      return { file, state: 'unreadable', ours, error: this.shown((err as Error).message) };
    }
    if (text === undefined) return { file, state: 'miss', ours };
    this.fresh = this.fresh && ours;
    return { file, state: 'hit', ageMs, ours, text };
  }

  /** Atomic write (the store's). */
  write(file: string, text: string): void {
    this.store.write(this.path(file), text);
    this.ourFiles.add(file);
  }

  private ageOf(file: string): number | undefined {
    try {
      const modifiedMs = this.store.modifiedMs(this.path(file));
      return modifiedMs === undefined ? undefined : this.now() - modifiedMs;
    } catch {
      return undefined;
    }
  }
}
