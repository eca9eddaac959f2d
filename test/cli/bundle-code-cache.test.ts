// kwatch's own code cache (src/cli/bundle-code-cache.ts) on every Node version: its key, the folder and file it
// trusts, and the hash that keeps damaged code away from V8. load-bundle.test.ts checks what V8 makes of the
// files on Node >= 22, where the CLI uses them.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFor, codeCacheName, sealCode, unsealCode } from '../../src/cli/bundle-code-cache.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-bundle-code-cache-');
let homes = 0;
const freshHome = (): string => join(dir, `home-${++homes}`);
const isRoot = process.getuid?.() === 0;

const BUNDLE = '/opt/kwatch/dist/kwatch.cjs';
const SOURCE = Buffer.from('module.exports = 1;\n');
const CODE = Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7) % 256));

const codeFiles = (home: string): string[] => {
  try {
    return readdirSync(join(home, 'kwatch')).filter((f) => f.endsWith('.code'));
  } catch {
    return [];
  }
};

/** A cache home whose kwatch folder holds one written entry; its path. */
function written(home: string, env: NodeJS.ProcessEnv = {}): string {
  codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home, ...env }, []).write(() => CODE);
  const [file] = codeFiles(home);
  expect(file).toBeDefined();
  return join(home, 'kwatch', file);
}

describe('the code cache key', () => {
  const name = (source: Uint8Array, env: NodeJS.ProcessEnv = {}, execArgv: string[] = []) => codeCacheName(BUNDLE, source, env, execArgv);

  it('names the bundle, a hash of its text and options, V8\'s version and the architecture', () => {
    expect(name(SOURCE)).toMatch(new RegExp(`^kwatch\\.cjs-[0-9a-f]{32}-v8-${process.versions.v8.replace(/\./g, '\\.')}-${process.arch}\\.code$`));
  });

  it('changes with the text even at the same length, with Node\'s flags and with NODE_OPTIONS; not with anything else', () => {
    const base = name(SOURCE);
    expect(name(Buffer.from('module.exports = 2;\n'))).not.toBe(base);
    expect(name(SOURCE, {}, ['--no-warnings'])).not.toBe(base);
    expect(name(SOURCE, { NODE_OPTIONS: '--max-old-space-size=100' })).not.toBe(base);
    expect(name(SOURCE, { HOME: '/elsewhere', XDG_CACHE_HOME: '/x' })).toBe(base);
    expect(name(Buffer.from(SOURCE))).toBe(base);
    // An empty NODE_OPTIONS starts Node as an unset one does; flags are told apart, not run together.
    expect(name(SOURCE, { NODE_OPTIONS: '' })).toBe(base);
    expect(name(SOURCE, {}, ['--stack-size', '900'])).not.toBe(name(SOURCE, {}, ['--stack-size900']));
  });

  it('an entry is read back by the same text and options only', () => {
    const home = freshHome();
    written(home);
    expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).read()?.equals(CODE)).toBe(true);
    expect(codeCacheFor(BUNDLE, Buffer.from('module.exports = 2;\n'), { XDG_CACHE_HOME: home }, []).read()).toBeUndefined();
    expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, ['--no-warnings']).read()).toBeUndefined();
  });
});

describe('the code cache folder and file', () => {
  it('is made 0700 and its file 0600', () => {
    const home = freshHome();
    const path = written(home);
    expect(statSync(join(home, 'kwatch')).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  for (const mode of [0o777, 0o775, 0o770, 0o730, 0o703]) {
    it(`is neither read nor written in a folder of mode ${mode.toString(8)} (group or others can write)`, () => {
      const home = freshHome();
      written(home);
      chmodSync(join(home, 'kwatch'), mode);
      const cache = codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []);
      expect(cache.read()).toBeUndefined();
      for (const f of codeFiles(home)) unlinkSync(join(home, 'kwatch', f));
      cache.write(() => CODE);
      expect(codeFiles(home)).toEqual([]);
    });
  }

  it('is read from a 0755 folder (others may read, not write)', () => {
    const home = freshHome();
    written(home);
    chmodSync(join(home, 'kwatch'), 0o755);
    expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).read()?.equals(CODE)).toBe(true);
  });

  for (const mode of [0o666, 0o660, 0o620, 0o602]) {
    it(`a file of mode ${mode.toString(8)} (group or others can write) is not read`, () => {
      const home = freshHome();
      chmodSync(written(home), mode);
      expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).read()).toBeUndefined();
    });
  }

  it('a symlink in the file\'s place is not followed, even to a good entry', () => {
    const home = freshHome();
    const path = written(home);
    const elsewhere = join(dir, `elsewhere-${homes}.code`);
    writeFileSync(elsewhere, readFileSync(path), { mode: 0o600 });
    unlinkSync(path);
    symlinkSync(elsewhere, path);
    expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).read()).toBeUndefined();
  });

  it.runIf(isRoot)('a file or folder owned by another user is not read (root only: chown)', () => {
    const home = freshHome();
    const path = written(home);
    chownSync(path, 12345, 12345);
    expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).read()).toBeUndefined();
    chownSync(path, 0, 0);
    chownSync(join(home, 'kwatch'), 12345, 12345);
    expect(codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).read()).toBeUndefined();
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    const home = freshHome();
    written(home);
    const off = codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' }, []);
    expect(off.read()).toBeUndefined();
    const other = freshHome();
    codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: other, NODE_DISABLE_COMPILE_CACHE: '1' }, []).write(() => CODE);
    expect(codeFiles(other)).toEqual([]);
  });
});

describe('the code cache\'s older files', () => {
  it('keeps the newest and the three before it of the same bundle; another bundle\'s files and other files stay', () => {
    const home = freshHome();
    const folder = join(home, 'kwatch');
    const sources = [1, 2, 3, 4, 5, 6].map((n) => Buffer.from(`module.exports = ${n};\n`));
    const fileOf = (source: Buffer) => codeCacheName(BUNDLE, source, { XDG_CACHE_HOME: home }, []);
    // Written a minute apart, in the past: the order pruning goes by is the files' times, not the names'.
    const past = Date.now() / 1000 - 3600;
    codeCacheFor(BUNDLE, sources[0], { XDG_CACHE_HOME: home }, []).write(() => CODE);
    const otherBundle = codeCacheName('/opt/kwatch/dist/sim.cjs', sources[0], {}, []);
    writeFileSync(join(folder, otherBundle), sealCode(CODE), { mode: 0o600 });
    writeFileSync(join(folder, 'kwatch.cjs-notes.txt'), 'not a code file');
    utimesSync(join(folder, otherBundle), past - 600, past - 600);
    sources.forEach((source, i) => {
      codeCacheFor(BUNDLE, source, { XDG_CACHE_HOME: home }, []).write(() => CODE);
      utimesSync(join(folder, fileOf(source)), past + 60 * i, past + 60 * i);
    });
    expect(readdirSync(folder).sort()).toEqual([...sources.slice(2).map(fileOf), otherBundle, 'kwatch.cjs-notes.txt'].sort());
  });

  it('a write that cannot be put in place leaves no temporary file behind', () => {
    const home = freshHome();
    const path = written(home);
    // A folder where the entry goes: the rename onto it fails.
    unlinkSync(path);
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), '');
    codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []).write(() => CODE);
    expect(readdirSync(join(home, 'kwatch'))).toEqual([path.split('/').pop()]);
  });

  it.runIf(existsSync('/proc/self/fd'))('reading closes the file it opened', () => {
    const home = freshHome();
    written(home);
    const cache = codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []);
    const open = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 20; i++) expect(cache.read()?.equals(CODE)).toBe(true);
    expect(readdirSync('/proc/self/fd').length).toBe(open);
  });
});

describe('the code cache hash', () => {
  it('writes its format\'s tag first, and takes no empty code for code', () => {
    expect(sealCode(CODE).subarray(0, 17).toString('latin1')).toBe('kwatch-v8-code-1\n');
    expect(unsealCode(sealCode(Buffer.alloc(0)))).toBeUndefined();
  });

  it('gives back the code it sealed', () => {
    expect(unsealCode(sealCode(CODE))?.equals(CODE)).toBe(true);
  });

  it('refuses code with 300 bytes overwritten, a flipped bit, a cut, or no header', () => {
    const sealed = sealCode(CODE);
    const overwritten = Buffer.from(sealed);
    overwritten.fill(0xa5, 1000, 1300);
    expect(unsealCode(overwritten)).toBeUndefined();
    const flipped = Buffer.from(sealed);
    flipped[sealed.length - 1] ^= 1;
    expect(unsealCode(flipped)).toBeUndefined();
    expect(unsealCode(sealed.subarray(0, sealed.length - 1))).toBeUndefined();
    expect(unsealCode(CODE)).toBeUndefined();
    expect(unsealCode(Buffer.alloc(0))).toBeUndefined();
    expect(unsealCode(undefined)).toBeUndefined();
  });

  it('a damaged file is a miss, and the next write replaces it', () => {
    const home = freshHome();
    const path = written(home);
    const damaged = readFileSync(path);
    damaged.fill(0xa5, 500, 800);
    writeFileSync(path, damaged);
    const cache = codeCacheFor(BUNDLE, SOURCE, { XDG_CACHE_HOME: home }, []);
    expect(cache.read()).toBeUndefined();
    cache.write(() => CODE);
    expect(cache.read()?.equals(CODE)).toBe(true);
  });
});
