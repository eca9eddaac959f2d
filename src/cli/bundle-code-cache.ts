// Where load-bundle.ts keeps V8's compiled code for dist/kwatch.cjs between runs (Node >= 22):
// $XDG_CACHE_HOME/kwatch (else ~/.cache/kwatch), one file per bundle text and V8 version, in a folder only
// its user can write (V8 checks the code against the source's length and its own version and flags, not
// against tampering: a file anyone could plant would be code run as the user). Nothing here ever fails a run:
// a cache that cannot be read or written is a cold start. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it
// turns off Node's own.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';

export interface CodeCache {
  /** The cached code, or undefined (none yet, turned off, unreadable, or a folder others can write). */
  read(): Buffer | undefined;
  /** Stores what `produce` gives, atomically (two runs at once each write a whole file). */
  write(produce: () => Buffer): void;
}

const OFF: CodeCache = { read: () => undefined, write: () => undefined };

/** The cache for `source`, the text of the file `bundle`. */
export function codeCacheFor(bundle: string, source: Uint8Array, env: NodeJS.ProcessEnv = process.env): CodeCache {
  if (env.NODE_DISABLE_COMPILE_CACHE) return OFF;
  const dir = join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kwatch');
  // Another bundle, or another V8, is another file: V8 checks cached code only against the source's length, so
  // stale code is never offered to it. The key is the text's hash (2 ms), not the file's size and time: npm and
  // the release archives give every file one fixed time.
  // Node's options too: V8 rejects code made under other flags, and two ways of starting would overwrite each other.
  const hash = createHash('sha256').update(source).update(`\0${process.execArgv.join(' ')}\0${env.NODE_OPTIONS ?? ''}`).digest('hex').slice(0, 32);
  const file = join(dir, `${basename(bundle)}-${hash}-v8-${process.versions.v8}-${process.arch}.code`);
  return {
    read() {
      try {
        if (!ownedByUserOnly(dir)) return undefined;
        return readFileSync(file);
      } catch {
        return undefined;
      }
    },
    write(produce) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        if (!ownedByUserOnly(dir)) return;
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        try {
          writeFileSync(tmp, produce(), { mode: 0o600 });
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

/** The folder is this user's and nobody else can write into it. */
function ownedByUserOnly(dir: string): boolean {
  const s = statSync(dir);
  const uid = process.getuid?.();
  return (uid === undefined || s.uid === uid) && (s.mode & 0o022) === 0;
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
