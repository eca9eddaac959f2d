// Node's compile cache (src/cli/compile-cache.ts) goes to a folder only the user can write, never to the shared
// os.tmpdir()/node-compile-cache that Node picks by itself (issue 36). These run on every Node version: Node's
// module is stood in for by a recorder (Node 20 has no enableCompileCache); test/e2e/compile-cache.test.ts checks
// what Node >= 22 itself does with the CLI.
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enableCompileCache, type CompileCacheModule } from '../../src/cli/compile-cache.js';
import { ownedByUserOnly, privateDir, userCacheDir } from '../../src/cli/user-cache-dir.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-compile-cache-');
let homes = 0;
/** A cache home of its own for each case. */
const freshHome = (): string => join(dir, `home-${++homes}`);

/** A stand-in for node:module that records the folders it was given (undefined: none, Node's own choice). */
function recorder(): CompileCacheModule & { calls: (string | undefined)[] } {
  const calls: (string | undefined)[] = [];
  return { calls, enableCompileCache: (folder?: string) => calls.push(folder) };
}

const isRoot = process.getuid?.() === 0;

describe('enableCompileCache', () => {
  it('gives Node a folder under the per-user cache folder, made 0700', () => {
    const home = freshHome();
    const node = recorder();
    const folder = join(home, 'kwatch', 'node-compile-cache');
    expect(enableCompileCache(node, { XDG_CACHE_HOME: home })).toEqual({ folder });
    expect(node.calls).toEqual([folder]);
    expect(statSync(join(home, 'kwatch')).mode & 0o777).toBe(0o700);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  it('without XDG_CACHE_HOME (or with a relative one) uses ~/.cache/kwatch', () => {
    const home = freshHome();
    const folder = join(home, '.cache', 'kwatch', 'node-compile-cache');
    expect(enableCompileCache(recorder(), { HOME: home })).toEqual({ folder });
    expect(enableCompileCache(recorder(), { HOME: home, XDG_CACHE_HOME: 'relative/cache' })).toEqual({ folder });
  });

  for (const mode of [0o777, 0o775, 0o770, 0o707]) {
    it(`goes without the cache when the kwatch folder is mode ${mode.toString(8)} (others can write into it), never to tmpdir`, () => {
      const home = freshHome();
      mkdirSync(join(home, 'kwatch'), { recursive: true });
      chmodSync(join(home, 'kwatch'), mode);
      const node = recorder();
      expect(enableCompileCache(node, { XDG_CACHE_HOME: home })).toBe('off');
      expect(node.calls).toEqual([]);
    });
  }

  it('goes without the cache when node-compile-cache inside it is open to others', () => {
    const home = freshHome();
    mkdirSync(join(home, 'kwatch', 'node-compile-cache'), { recursive: true, mode: 0o700 });
    chmodSync(join(home, 'kwatch'), 0o700);
    chmodSync(join(home, 'kwatch', 'node-compile-cache'), 0o777);
    const node = recorder();
    expect(enableCompileCache(node, { XDG_CACHE_HOME: home })).toBe('off');
    expect(node.calls).toEqual([]);
  });

  it('goes without the cache when the cache folder cannot be made (a file is in the way)', () => {
    const node = recorder();
    expect(enableCompileCache(node, { XDG_CACHE_HOME: join(import.meta.filename) })).toBe('off');
    expect(node.calls).toEqual([]);
  });

  it.runIf(isRoot)('goes without the cache when the folder belongs to another user (root only: chown)', () => {
    const home = freshHome();
    mkdirSync(join(home, 'kwatch'), { recursive: true, mode: 0o700 });
    chownSync(join(home, 'kwatch'), 12345, 12345);
    const node = recorder();
    expect(enableCompileCache(node, { XDG_CACHE_HOME: home })).toBe('off');
    expect(node.calls).toEqual([]);
  });

  it('leaves an explicit NODE_COMPILE_CACHE to Node (the user\'s choice), and NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    const node = recorder();
    expect(enableCompileCache(node, { XDG_CACHE_HOME: freshHome(), NODE_COMPILE_CACHE: join(dir, 'chosen') })).toBe('user-setting');
    expect(node.calls).toEqual([undefined]);
    const off = recorder();
    expect(enableCompileCache(off, { XDG_CACHE_HOME: freshHome(), NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('off');
    expect(off.calls).toEqual([]);
  });

  it('does nothing on a Node without a compile cache (Node 20): no folder is made either', () => {
    const home = freshHome();
    expect(enableCompileCache({}, { XDG_CACHE_HOME: home })).toBe('off');
    expect(existsSync(home)).toBe(false);
  });

  it('never fails a run: a Node whose enableCompileCache throws means no cache', () => {
    const node: CompileCacheModule = { enableCompileCache: () => { throw new Error('EACCES'); } };
    expect(enableCompileCache(node, { XDG_CACHE_HOME: freshHome() })).toBe('off');
    expect(enableCompileCache(node, { XDG_CACHE_HOME: freshHome(), NODE_COMPILE_CACHE: join(dir, 'chosen') })).toBe('off');
  });
});

describe('the per-user cache folder', () => {
  it('is $XDG_CACHE_HOME/kwatch when absolute, else $HOME/.cache/kwatch', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe('/x/cache/kwatch');
    expect(userCacheDir({ XDG_CACHE_HOME: 'x/cache', HOME: '/h' })).toBe('/h/.cache/kwatch');
    expect(userCacheDir({ HOME: '/h' })).toBe('/h/.cache/kwatch');
  });

  it('is trusted only when owned by the user and writable by neither group nor others', () => {
    const me = 1000;
    expect(ownedByUserOnly({ uid: me, mode: 0o40700 }, me)).toBe(true);
    expect(ownedByUserOnly({ uid: me, mode: 0o40755 }, me)).toBe(true);
    for (const mode of [0o40775, 0o40770, 0o40720, 0o40777, 0o40702, 0o41777]) expect(ownedByUserOnly({ uid: me, mode }, me), mode.toString(8)).toBe(false);
    expect(ownedByUserOnly({ uid: 1001, mode: 0o40700 }, me)).toBe(false);
  });

  it('on a platform without user ids (Windows: no process.getuid) judges the mode only', () => {
    const getuid = Object.getOwnPropertyDescriptor(process, 'getuid')!;
    Object.defineProperty(process, 'getuid', { value: undefined, configurable: true, writable: true });
    try {
      expect(ownedByUserOnly({ uid: 4242, mode: 0o40700 })).toBe(true);
      expect(ownedByUserOnly({ uid: 4242, mode: 0o40770 })).toBe(false);
    } finally {
      Object.defineProperty(process, 'getuid', getuid);
    }
  });

  it('follows a symlink to the user\'s own folder but judges what it points at', () => {
    const own = join(dir, 'own-target');
    mkdirSync(own, { mode: 0o700 });
    chmodSync(own, 0o700);
    symlinkSync(own, join(dir, 'link-to-own'));
    expect(privateDir(join(dir, 'link-to-own'))).toBe(join(dir, 'link-to-own'));
    const shared = join(dir, 'shared-target');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    symlinkSync(shared, join(dir, 'link-to-shared'));
    expect(privateDir(join(dir, 'link-to-shared'))).toBeUndefined();
  });
});
