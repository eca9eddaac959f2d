// The per-user folder kwatch keeps compiled code in: $XDG_CACHE_HOME/kwatch, else ~/.cache/kwatch. Compiled code
// is checked by V8 against the source's length and its own version and flags, never against tampering: whoever
// can write into the folder chooses code that runs as the user. So the folder is used only when it is this user's
// and nobody else can write into it (group or others). Both kwatch's own code cache (bundle-code-cache.ts) and
// Node's compile cache (compile-cache.ts) live under it.
import { mkdirSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Where the folder is; XDG's rule: a relative XDG_CACHE_HOME is ignored. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache'), 'kwatch');
}

/** Owned by this user (where a platform has users) and writable by no one else. */
export function ownedByUserOnly(stats: Pick<Stats, 'uid' | 'mode'>, uid: number | undefined = process.getuid?.()): boolean {
  return (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0;
}

/** `dir` made (0700, with its parents) if missing, and returned if it is a folder only this user can write; else undefined. */
export function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = statSync(dir);
    return stats.isDirectory() && ownedByUserOnly(stats) ? dir : undefined;
  } catch {
    return undefined;
  }
}
