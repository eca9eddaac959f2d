// Where load-bundle.ts keeps V8's compiled code for the CLI's bundles (dist/kwatch.cjs, dist/kwatch-sim.cjs, the
// executable's assets) between runs, on every Node: the per-user cache folder (user-cache-dir.ts), one file per bundle
// text and V8 version, used only while nobody but the user can write into the folder or the file (V8 checks the code
// against the source's length and its own version and flags, not against tampering: a file anyone could plant would be
// code run as the user). Each file carries a hash of its code, checked before V8 sees a byte: V8 aborts the process on
// some damaged code (issue 36: 300 bytes overwritten gave "unreachable code", exit 133, on every start). Nothing here
// ever fails a run: a cache that cannot be read or written, or that does not match its hash, is a cold start (and
// rewritten at exit). NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it turns off Node's own.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ownedByUserOnly, privateDir, userCacheDir } from './user-cache-dir.js';

export interface CodeCache {
  /** The cached code, or undefined (none yet, turned off, unreadable, damaged, or a folder or file others can write). */
  read(): Buffer | undefined;
  /** Stores what `produce` gives, atomically (two runs at once each write a whole file). */
  write(produce: () => Buffer): void;
}

const OFF: CodeCache = { read: () => undefined, write: () => undefined };

/** The cache for `source`, the text of the file `bundle`. */
export function codeCacheFor(bundle: string, source: Uint8Array, env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): CodeCache {
  if (env.NODE_DISABLE_COMPILE_CACHE) return OFF;
  const dir = userCacheDir(env);
  const file = join(dir, codeCacheName(bundle, source, env, execArgv));
  return {
    read() {
      try {
        if (privateDir(dir) === undefined) return undefined;
        return unsealCode(readOwnFile(file));
      } catch {
        return undefined;
      }
    },
    write(produce) {
      try {
        if (privateDir(dir) === undefined) return;
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        try {
          // 'wx': a new file, never one (or a link) already there.
          writeFileSync(tmp, sealCode(produce()), { mode: 0o600, flag: 'wx' });
          renameSync(tmp, file);
          pruneOlder(dir, `${basename(bundle)}-`, file);
        } catch {
          try {
            unlinkSync(tmp);
          } catch {
            // never written
          }
        }
      } catch {
        // no cache folder: the next run starts cold too
      }
    },
  };
}

/**
 * The file's name: another bundle, or another V8, is another file, as V8 checks cached code only against the
 * source's length, so stale code is never offered to it. The key is the text's hash (2 ms), not the file's size
 * and time: npm and the release archives give every file one fixed time. Node's options too: V8 rejects code made
 * under other flags, and two ways of starting would overwrite each other.
 */
export function codeCacheName(bundle: string, source: Uint8Array, env: NodeJS.ProcessEnv, execArgv: readonly string[]): string {
  const hash = createHash('sha256').update(source).update(`\0${execArgv.join(' ')}\0${env.NODE_OPTIONS ?? ''}`).digest('hex').slice(0, 32);
  return `${basename(bundle)}-${hash}-v8-${process.versions.v8}-${process.arch}.code`;
}

/** The file's bytes, read through a descriptor that is the file itself (no symlink followed) and checked as such. */
function readOwnFile(file: string): Buffer | undefined {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    // On the open descriptor, not the path: what is read is what was checked.
    const stats = fstatSync(fd);
    return stats.isFile() && ownedByUserOnly(stats) ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The file's layout: this tag (its format's version), the SHA-256 of the code, the code. */
const TAG = Buffer.from('kwatch-v8-code-1\n', 'latin1');
const HASH_BYTES = 32;

/** The code as the file holds it: tag, hash, code. */
export function sealCode(code: Uint8Array): Buffer {
  return Buffer.concat([TAG, createHash('sha256').update(code).digest(), code]);
}

/** The code of a file `sealCode` wrote, or undefined when it is not one or does not match its hash. */
export function unsealCode(file: Buffer | undefined): Buffer | undefined {
  if (file === undefined || file.length <= TAG.length + HASH_BYTES || !file.subarray(0, TAG.length).equals(TAG)) return undefined;
  const code = file.subarray(TAG.length + HASH_BYTES);
  const hash = createHash('sha256').update(code).digest();
  return hash.equals(file.subarray(TAG.length, TAG.length + HASH_BYTES)) ? code : undefined;
}

/** Files of other builds of the same bundle kept beside the newest (an upgrade leaves the old version's behind). */
const KEEP = 3;

function pruneOlder(dir: string, prefix: string, newest: string): void {
  const others = readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.code') && join(dir, f) !== newest)
    .map((f) => ({ path: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of others.slice(KEEP)) unlinkSync(old.path);
}
