// What Node itself does with the CLI's compile cache (Node >= 22: CI's Node 24 pass; Node 20 has no compile
// cache, and test/cli/compile-cache.test.ts covers the choice of folder on every version): a
// os.tmpdir()/node-compile-cache that someone else made first is never used (issue 36: an entry planted there
// is code run as the user), the private per-user folder is, and NODE_COMPILE_CACHE stays the user's choice.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

/** Node's module.enableCompileCache (22.1+). */
const NODE_HAS_COMPILE_CACHE = typeof ((await import('node:module')).default as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const isRoot = process.getuid?.() === 0;
const execFileAsync = promisify(execFile);

const dir = tempDir('kwatch-node-compile-cache-');
let cases = 0;

/** Every file under `folder`, recursively ([] when there is no such folder). */
function filesUnder(folder: string): string[] {
  try {
    return readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

/** A case's folders: a TMPDIR with node-compile-cache made first (mode `mode`), and a HOME. */
function planted(mode: number, owner?: number): { tmp: string; shared: string; home: string } {
  const root = join(dir, `case-${++cases}`);
  const tmp = join(root, 'tmp');
  const shared = join(tmp, 'node-compile-cache');
  mkdirSync(shared, { recursive: true });
  chmodSync(shared, mode);
  if (owner !== undefined) chownSync(shared, owner, owner);
  const home = join(root, 'home');
  mkdirSync(home);
  return { tmp, shared, home };
}

/** `kwatch --version` under `env`, with none of the compile-cache settings of the test's own environment. */
async function version(env: Record<string, string>, bin = BIN): Promise<void> {
  const inherited = { ...process.env };
  // Node counts NODE_DISABLE_COMPILE_CACHE as set even when empty: unset, not blanked.
  for (const name of ['NODE_DISABLE_COMPILE_CACHE', 'NODE_COMPILE_CACHE', 'XDG_CACHE_HOME']) delete inherited[name];
  const { stdout } = await execFileAsync(process.execPath, [bin, '--version'], { env: { ...inherited, ...env } });
  expect(stdout).toMatch(/^kwatch\//);
}

it('the CLI runs whether or not this Node has a compile cache, and leaves tmpdir/node-compile-cache alone', { timeout: 60_000 }, async () => {
  const { tmp, shared, home } = planted(0o1777);
  await version({ TMPDIR: tmp, HOME: home });
  expect(filesUnder(shared)).toEqual([]);
});

describe.runIf(NODE_HAS_COMPILE_CACHE)('Node\'s compile cache under the CLI (Node >= 22 only)', () => {
  it('a world-writable tmpdir/node-compile-cache made by someone else is not used; ~/.cache/kwatch/node-compile-cache is', { timeout: 60_000 }, async () => {
    // bin/run.js (npm's kwatch), bin/kwatch and bin/kubectl-kwatch (bin/ put on PATH, the archives).
    for (const bin of [BIN, join(BIN, '..', 'kwatch'), join(BIN, '..', 'kubectl-kwatch')]) {
      const { tmp, shared, home } = planted(0o1777);
      await version({ TMPDIR: tmp, HOME: home }, bin);
      expect(filesUnder(shared), bin).toEqual([]);
      expect(filesUnder(join(home, '.cache', 'kwatch', 'node-compile-cache')).length, bin).toBeGreaterThan(0);
    }
  });

  it.runIf(isRoot)('a tmpdir/node-compile-cache owned by another user is not used (root only: chown)', { timeout: 60_000 }, async () => {
    const { tmp, shared, home } = planted(0o755, 12345);
    await version({ TMPDIR: tmp, HOME: home });
    expect(filesUnder(shared)).toEqual([]);
  });

  it('with no private folder to be had, the run goes without the cache rather than into tmpdir', { timeout: 60_000 }, async () => {
    const { tmp, shared, home } = planted(0o1777);
    mkdirSync(join(home, '.cache', 'kwatch'), { recursive: true });
    chmodSync(join(home, '.cache', 'kwatch'), 0o777);
    await version({ TMPDIR: tmp, HOME: home });
    expect(filesUnder(shared)).toEqual([]);
    expect(filesUnder(join(home, '.cache', 'kwatch'))).toEqual([]);
  });

  it('NODE_COMPILE_CACHE set by the user is where Node keeps it', { timeout: 60_000 }, async () => {
    const { tmp, home } = planted(0o700);
    const chosen = join(dir, 'chosen');
    await version({ TMPDIR: tmp, HOME: home, NODE_COMPILE_CACHE: chosen });
    expect(filesUnder(chosen).length).toBeGreaterThan(0);
    expect(filesUnder(join(home, '.cache', 'kwatch'))).toEqual([]);
  });
});
