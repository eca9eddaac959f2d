// src/cli/load-bundle.ts in this process (load-bundle.test.ts runs the built dist/cli/load-bundle.js in a fresh Node
// each time, as bin/ does, which mutation testing cannot see): both ways of loading give the exports require()
// would, with require() resolving from the bundle's own folder, and read a non-ASCII bundle as UTF-8.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadBundle } from '../../src/cli/load-bundle.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-load-bundle-in-process-');
mkdirSync(join(dir, 'node_modules', 'kwatch-test-package'), { recursive: true });
writeFileSync(join(dir, 'node_modules', 'kwatch-test-package', 'index.js'), 'module.exports = "from node_modules";\n');
writeFileSync(join(dir, 'beside.cjs'), 'module.exports = "beside";\n');

function bundle(name: string, text: string): URL {
  writeFileSync(join(dir, name), text);
  return pathToFileURL(join(dir, name));
}

// module.exports reassigned, exports as a parameter, __filename/__dirname, require() of a package and of a file,
// and stack frames named after the bundle's file.
const BODY = `const { basename } = require('node:path');
exports.lost = true;
module.exports = { where: basename(__dirname), file: basename(__filename), pkg: require('kwatch-test-package'), beside: require('./beside.cjs'), unit: UNIT, stackNamesFile: new Error().stack.includes(__filename) };
`;

describe('loadBundle in process', () => {
  for (const ownCodeCache of [false, true]) {
    it(`gives require()'s exports, resolving from the bundle's folder (own code cache: ${ownCodeCache})`, () => {
      const previous = process.env.NODE_DISABLE_COMPILE_CACHE;
      // No cache file from this process's exit: the code cache itself is bundle-code-cache.test.ts's.
      process.env.NODE_DISABLE_COMPILE_CACHE = '1';
      try {
        const exports = loadBundle(bundle(`ascii-${ownCodeCache}.cjs`, BODY.replace('UNIT', "'us'")), ownCodeCache);
        expect(exports).toEqual({ where: dir.split('/').pop(), file: `ascii-${ownCodeCache}.cjs`, pkg: 'from node_modules', beside: 'beside', unit: 'us', stackNamesFile: true });
        expect((loadBundle(bundle(`utf8-${ownCodeCache}.cjs`, BODY.replace('UNIT', "'µs'")), ownCodeCache) as { unit: string }).unit).toBe('µs');
      } finally {
        if (previous === undefined) delete process.env.NODE_DISABLE_COMPILE_CACHE;
        else process.env.NODE_DISABLE_COMPILE_CACHE = previous;
      }
    });
  }

  it('with its own code cache, writes V8\'s code for the bundle when the process exits, and not again once V8 took it', () => {
    const saved = { xdg: process.env.XDG_CACHE_HOME, off: process.env.NODE_DISABLE_COMPILE_CACHE };
    const cacheHome = join(dir, 'cache-home');
    process.env.XDG_CACHE_HOME = cacheHome;
    delete process.env.NODE_DISABLE_COMPILE_CACHE;
    const before = process.listeners('exit');
    const added = () => process.listeners('exit').filter((l) => !before.includes(l));
    try {
      loadBundle(bundle('plain.cjs', BODY.replace('UNIT', "'us'")), false);
      expect(added()).toEqual([]);
      loadBundle(bundle('cached.cjs', BODY.replace('UNIT', "'us'")), true);
      const [atExit] = added();
      expect(added()).toHaveLength(1);
      expect(readdirSync(cacheHome, { recursive: true }).filter((f) => String(f).endsWith('.code'))).toEqual([]);
      // A run that failed (exit code 1) leaves it to the next one; one that ended well writes it.
      (atExit as (code: number) => void)(1);
      expect(readdirSync(cacheHome, { recursive: true }).filter((f) => String(f).endsWith('.code'))).toEqual([]);
      (atExit as (code: number) => void)(0);
      expect(readdirSync(join(cacheHome, 'kwatch')).filter((f) => f.startsWith('cached.cjs-') && f.endsWith('.code'))).toHaveLength(1);
      // The next load is given that code, V8 takes it, and nothing is written again at exit.
      process.removeListener('exit', atExit as () => void);
      expect(loadBundle(bundle('cached.cjs', BODY.replace('UNIT', "'us'")), true)).toMatchObject({ unit: 'us' });
      expect(added()).toEqual([]);
    } finally {
      for (const l of added()) process.removeListener('exit', l);
      if (saved.xdg === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved.xdg;
      if (saved.off !== undefined) process.env.NODE_DISABLE_COMPILE_CACHE = saved.off;
    }
  });
});
