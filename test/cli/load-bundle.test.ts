// dist/cli/load-bundle.js, which bin/ uses to load dist/kwatch.cjs: the bundle's exports as require() gives them,
// and V8's code kept in the user's cache folder between runs, on every Node (CI runs the suite on 20 and 24; on 20
// the bundle's import() calls go through the loader's importer, scripts/bundle/dynamic-imports.js, as they do here).
// Each run is a fresh Node process, as each CLI start is: the cache is written when the process exits.
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { routeDynamicImports } from '../../scripts/bundle/dynamic-imports.js';
import { tempDir } from '../temp-dir.js';

const run = promisify(execFile);
const LOADER = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'load-bundle.js')).href;

const dir = tempDir('kwatch-load-bundle-');
const bundle = join(dir, 'bundle.cjs');
writeFileSync(join(dir, 'sibling.mjs'), 'export const sibling = "beside the bundle";\n');
// A CommonJS file like the bundle, its import() calls routed as scripts/bundle routes dist/kwatch.cjs's:
// module.exports reassigned, __dirname, require() of a built-in, import() of a built-in and of a file relative to
// the bundle's URL, and a non-ASCII character (read as UTF-8 then). import() of a package (ink, esbuild) from the
// real bundle in dist/ is e2e/code-cache-imports.test.ts's.
writeFileSync(bundle, routeDynamicImports(`const { basename } = require('node:path');
module.exports = { where: basename(__dirname), unit: 'µs', later: () => Promise.all([import('node:os'), import('./sibling.mjs')]).then(([os, s]) => [typeof os.tmpdir, s.sibling].join()) };
`));
const IMPORTED = 'function,beside the bundle';

async function load(env: Record<string, string>, ownCodeCache?: boolean, exitCode = 0): Promise<string> {
  const script = `const { loadBundle } = await import(${JSON.stringify(LOADER)});
const b = loadBundle(new URL(${JSON.stringify(pathToFileURL(bundle).href)})${ownCodeCache === undefined ? '' : `, ${ownCodeCache}`});
console.log(JSON.stringify([b.where, b.unit, await b.later()]));
process.exitCode = ${exitCode};`;
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '', ...env } });
    return stdout.trim();
  } catch (err) {
    if ((err as { code?: unknown }).code !== exitCode) throw err;
    return (err as { stdout: string }).stdout.trim();
  }
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
    const expected = JSON.stringify([dir.split('/').pop(), 'µs', IMPORTED]);
    expect(await load({ XDG_CACHE_HOME: join(dir, 'a') })).toBe(expected);
    // Through Node's own loader (no importer handed in): the bundle's fallback is its own import().
    expect(await load({ XDG_CACHE_HOME: join(dir, 'b') }, false)).toBe(expected);
    expect(cacheFiles(join(dir, 'b'))).toEqual([]);
  });

  it('keeps the code in a folder only the user can write, reuses it with import() working, and replaces a damaged one', async () => {
    const home = join(dir, 'cache-home');
    await load({ XDG_CACHE_HOME: home });
    const [file] = cacheFiles(home);
    expect(file).toMatch(/^bundle\.cjs-[0-9a-f]{32}-v8-.*\.code$/);
    expect(statSync(join(home, 'kwatch')).mode & 0o777).toBe(0o700);
    const path = join(home, 'kwatch', file);
    const written = statSync(path).mtimeMs;
    // Accepted by V8 (a rejected one is written again at exit), and import() works from the cached code: on
    // Node 20 an import() written in the script would fail there (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING).
    expect(await load({ XDG_CACHE_HOME: home })).toContain(IMPORTED);
    expect(statSync(path).mtimeMs).toBe(written);
    writeFileSync(path, 'not V8 code');
    await load({ XDG_CACHE_HOME: home });
    expect(readFileSync(path).toString('latin1')).not.toBe('not V8 code');
  });

  // The first run to write the file sets what every later run starts from: a run that failed (on its flags, say)
  // compiled little, so it leaves the writing to the next run that ends well.
  it('is written only by a run that exits 0', async () => {
    const home = join(dir, 'failed-first');
    expect(await load({ XDG_CACHE_HOME: home }, undefined, 1)).toContain(IMPORTED);
    expect(cacheFiles(home)).toEqual([]);
    await load({ XDG_CACHE_HOME: home });
    expect(cacheFiles(home)).toHaveLength(1);
  });

  it('starts cold and rewrites the file when 300 bytes of its code are damaged (V8 aborted on it: exit 133)', async () => {
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
    expect(await load({ XDG_CACHE_HOME: home })).toContain(IMPORTED);
    expect(readFileSync(path).equals(damaged)).toBe(false);
    // The rewritten file is accepted as it stands.
    expect(await load({ XDG_CACHE_HOME: home })).toContain(IMPORTED);
  });

  it('never offers the code of another text of the same length (npm and the archives give files one fixed time)', async () => {
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

  it('runs code planted for another text of the same length from a private folder (what the checks guard against), never from a folder or file others can write', async () => {
    // V8 checks cached code against the source's length, its version and flags only: a file holding code made from
    // another text is run as this one. Here B's code under A's name.
    const plant = join(dir, 'plant');
    mkdirSync(plant);
    const file = join(plant, 'planted.cjs');
    const answer = async (home: string) => JSON.parse((await run(process.execPath, ['--input-type=module', '-e', `const { loadBundle } = await import(${JSON.stringify(LOADER)}); console.log(JSON.stringify(loadBundle(new URL(${JSON.stringify(pathToFileURL(file).href)}))));`], { env: { ...process.env, XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '' } })).stdout).answer;
    writeFileSync(file, "module.exports = { answer: 'B' };\n");
    expect(await answer(join(dir, 'made-b'))).toBe('B');
    const [codeOfB] = cacheFiles(join(dir, 'made-b'));
    writeFileSync(file, "module.exports = { answer: 'A' };\n");
    const home = join(dir, 'planted');
    expect(await answer(home)).toBe('A');
    const [nameOfA] = cacheFiles(home);
    const planted = join(home, 'kwatch', nameOfA);
    const plantB = () => {
      rmSync(planted);
      copyFileSync(join(dir, 'made-b', 'kwatch', codeOfB), planted);
      chmodSync(planted, 0o600);
    };
    plantB();
    // In the user's own folder, the planted code runs: the test can tell whether a planted file was used.
    expect(await answer(home)).toBe('B');
    // The folder writable by the group, then by anyone: not read (nor written).
    for (const mode of [0o770, 0o777]) {
      chmodSync(join(home, 'kwatch'), mode);
      expect(await answer(home), mode.toString(8)).toBe('A');
    }
    chmodSync(join(home, 'kwatch'), 0o700);
    // The file itself writable by the group: not read (a cold start, and the file replaced by A's code at exit).
    plantB();
    chmodSync(planted, 0o620);
    expect(await answer(home)).toBe('A');
    expect(await answer(home)).toBe('A');
    // A link to B's code, as a file of the folder: not followed.
    rmSync(planted);
    renameSync(join(dir, 'made-b', 'kwatch', codeOfB), join(dir, 'made-b', 'code-of-b'));
    symlinkSync(join(dir, 'made-b', 'code-of-b'), planted);
    expect(await answer(home)).toBe('A');
  });

  it('uses no cache in a folder others can write into, nor with NODE_DISABLE_COMPILE_CACHE', async () => {
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
