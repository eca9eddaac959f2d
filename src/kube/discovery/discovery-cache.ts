// kubectl's discovery disk cache (client-go discovery/cached/disk): same directory layout, file
// format, TTL from mtime and atomic writes, so kubectl and kwatch share one cache.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { shownFolderName } from '../http/server-url.js';

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

  constructor(server: string, opts: DiscoveryCacheOptions = {}) {
    this.dir = join(cacheRoot(opts.cacheDir), 'discovery', safeHostDir(server));
    this.shownDir = join(cacheRoot(opts.cacheDir), 'discovery', shownFolderName(server, safeHostDir(server), safeHostDir));
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
    let text: string;
    let ageMs: number;
    try {
      const st = statSync(this.path(file));
      ageMs = this.now() - st.mtimeMs;
      if (ageMs > this.ttlMs) return { file, state: 'expired', ageMs, ours };
      text = readFileSync(this.path(file), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { file, state: 'miss', ours };
      return { file, state: 'unreadable', ours, error: this.shown((err as Error).message) };
    }
    this.fresh = this.fresh && ours;
    return { file, state: 'hit', ageMs, ours, text };
  }

  /** Atomic write: temp file beside the target, mode 0660, then rename (dirs 0750). */
  write(file: string, text: string): void {
    const target = this.path(file);
    mkdirSync(dirname(target), { recursive: true, mode: 0o750 });
    const tmp = `${target}.${randomBytes(4).readUInt32BE(0)}`;
    const fd = openSync(tmp, 'wx', 0o660);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    try {
      chmodSync(tmp, 0o660);
      renameSync(tmp, target);
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
      throw err;
    }
    this.ourFiles.add(file);
  }

  private ageOf(file: string): number | undefined {
    try {
      return this.now() - statSync(this.path(file)).mtimeMs;
    } catch {
      return undefined;
    }
  }
}
