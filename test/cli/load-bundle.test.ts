// dist/cli/load-bundle.js, which bin/ uses to load dist/kwatch.cjs: the bundle's exports as require() gives them,
// and on Node >= 22 V8's code kept in the user's cache folder between runs (CI runs the suite on 20 and 24). Each
// run is a fresh Node process, as each CLI start is: the cache is written when the process exits.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CODE_CACHE_WORKS } from '../../src/cli/load-bundle.js';
import { tempDir } from '../temp-dir.js';

const run = promisify(execFile);
const LOADER = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'load-bundle.js')).href;

const dir = tempDir('kwatch-load-bundle-');
const bundle = join(dir, 'bundle.cjs');
// A CommonJS file like the bundle: module.exports reassigned, __dirname, require() of a built-in, import(), and a
// non-ASCII character (read as UTF-8 then).
writeFileSync(bundle, `const { basename } = require('node:path');
module.exports = { where: basename(__dirname), unit: 'µs', later: () => import('node:os').then((os) => typeof os.tmpdir) };
`);


async function load(env: Record<string, string>, ownCodeCache?: boolean): Promise<string> {
  const script = `const { loadBundle } = await import(${JSON.stringify(LOADER)});
const b = loadBundle(new URL(${JSON.stringify(pathToFileURL(bundle).href)})${ownCodeCache === undefined ? '' : `, ${ownCodeCache}`});
console.log(JSON.stringify([b.where, b.unit, await b.later()]));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '', ...env } });
  return stdout.trim();
}

const cacheFiles = (cacheHome: string) => {
  try {
    return readdirSync(join(cacheHome, 'kwatch')).filter((f) => f.endsWith('.code'));
  } catch {
    return [];
  }
};

describe('loadBundle', () => {
  it('gives the exports require() would, with __dirname, require() and import() working', async () => {
    const expected = JSON.stringify([dir.split('/').pop(), 'µs', 'function']);
    expect(await load({ XDG_CACHE_HOME: join(dir, 'a') })).toBe(expected);
    expect(await load({ XDG_CACHE_HOME: join(dir, 'b') }, false)).toBe(expected);
    expect(cacheFiles(join(dir, 'b'))).toEqual([]);
  });

  it.runIf(!CODE_CACHE_WORKS)('keeps no code cache on Node 20 (import() from a cached script fails there)', async () => {
    await load({ XDG_CACHE_HOME: join(dir, 'node20') });
    expect(cacheFiles(join(dir, 'node20'))).toEqual([]);
  });

  it.runIf(CODE_CACHE_WORKS)('keeps the code in a folder only the user can write, reuses it, and replaces a damaged one', async () => {
    const home = join(dir, 'cache-home');
    await load({ XDG_CACHE_HOME: home });
    const [file] = cacheFiles(home);
    expect(file).toMatch(/^bundle\.cjs-[0-9a-f]{32}-v8-.*\.code$/);
    expect(statSync(join(home, 'kwatch')).mode & 0o777).toBe(0o700);
    const path = join(home, 'kwatch', file);
    const written = statSync(path).mtimeMs;
    // Accepted by V8 (import() still works from the cached code): not written again.
    expect(await load({ XDG_CACHE_HOME: home })).toContain('"function"');
    expect(statSync(path).mtimeMs).toBe(written);
    writeFileSync(path, 'not V8 code');
    await load({ XDG_CACHE_HOME: home });
    expect(readFileSync(path).toString('latin1')).not.toBe('not V8 code');
  });

  it.runIf(CODE_CACHE_WORKS)('starts cold and rewrites the file when 300 bytes of its code are damaged (V8 aborted on it: exit 133)', async () => {
    const home = join(dir, 'damaged');
    await load({ XDG_CACHE_HOME: home });
    const [file] = cacheFiles(home);
    const path = join(home, 'kwatch', file);
    const good = readFileSync(path);
    expect(good.length).toBeGreaterThan(1000);
    // Every header left as it was (kwatch's and V8's): the bytes are overwritten in the middle of the code.
    const damaged = Buffer.from(good);
    const at = Math.floor(damaged.length / 2);
    damaged.fill(0xa5, at, at + 300);
    writeFileSync(path, damaged);
    expect(await load({ XDG_CACHE_HOME: home })).toContain('"function"');
    expect(readFileSync(path).equals(damaged)).toBe(false);
    // The rewritten file is accepted as it stands.
    expect(await load({ XDG_CACHE_HOME: home })).toContain('"function"');
  });

  it.runIf(CODE_CACHE_WORKS)('never offers the code of another text of the same length (npm and the archives give files one fixed time)', async () => {
    const home = join(dir, 'same-length');
    const other = join(dir, 'other.cjs');
    writeFileSync(other, 'module.exports = { answer: 41 };\n');
    const answer = async () => JSON.parse((await run(process.execPath, ['--input-type=module', '-e', `const { loadBundle } = await import(${JSON.stringify(LOADER)}); console.log(JSON.stringify(loadBundle(new URL(${JSON.stringify(pathToFileURL(other).href)}))));`], { env: { ...process.env, XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '' } })).stdout).answer;
    expect(await answer()).toBe(41);
    writeFileSync(other, 'module.exports = { answer: 42 };\n');
    expect(await answer()).toBe(42);
    expect(cacheFiles(home)).toHaveLength(2);
    // Older builds' files are pruned: the newest and three others stay.
    for (const n of [43, 44, 45, 46]) {
      writeFileSync(other, `module.exports = { answer: ${n} };\n`);
      expect(await answer()).toBe(n);
    }
    expect(cacheFiles(home)).toHaveLength(4);
  });

  it.runIf(CODE_CACHE_WORKS)('uses no cache in a folder others can write into, nor with NODE_DISABLE_COMPILE_CACHE', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(join(shared, 'kwatch'), { recursive: true });
    chmodSync(join(shared, 'kwatch'), 0o777);
    await load({ XDG_CACHE_HOME: shared });
    expect(cacheFiles(shared)).toEqual([]);
    const off = join(dir, 'off');
    await load({ XDG_CACHE_HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(cacheFiles(off)).toEqual([]);
  });
});
