// Node's compile cache (Node >= 22.1: V8's code for the modules a run loads, kept on disk, ~15% of a short run on
// Node 24), turned on by bin/ before the CLI loads. Left to itself, module.enableCompileCache() uses
// os.tmpdir()/node-compile-cache, a folder any local user can create first and fill: Node checks an entry only
// against its header's checksum and the source's length, so an entry planted there is code run as whoever next
// runs kwatch (issue 36). kwatch gives Node a folder under its private per-user cache folder instead, and goes
// without the cache when it has none. Node 20 has no compile cache; the CLI's bundle, most of a run's code, keeps
// V8's code in its own cache on every Node (load-bundle.ts).
import module from 'node:module';
import { join } from 'node:path';
import { privateDir, userCacheDir } from './user-cache-dir.js';

/** The part of node:module this uses (absent on Node 20). */
export interface CompileCacheModule {
  enableCompileCache?: (directory?: string) => unknown;
}

/** What was done: Node's cache in `folder`, the user's own NODE_COMPILE_CACHE, or none. */
export type CompileCacheChoice = { folder: string } | 'user-setting' | 'off';

/** Turns Node's compile cache on in a folder only this user can write; never fails a run. */
export function enableCompileCache(node: CompileCacheModule = module as CompileCacheModule, env: NodeJS.ProcessEnv = process.env): CompileCacheChoice {
  if (node.enableCompileCache === undefined || env.NODE_DISABLE_COMPILE_CACHE) return 'off';
  try {
    // A folder the user named is the user's choice (Node has turned the cache on there already at start-up).
    if (env.NODE_COMPILE_CACHE) {
      node.enableCompileCache();
      return 'user-setting';
    }
    const parent = privateDir(userCacheDir(env));
    // Checked in its own right too: the parent's check says only who could have made it.
    const folder = parent === undefined ? undefined : privateDir(join(parent, 'node-compile-cache'));
    if (folder === undefined) return 'off';
    node.enableCompileCache(folder);
    return { folder };
  } catch {
    return 'off';
  }
}
