// scripts/bundle/dynamic-imports.js: every import() of the npm bundle becomes a call of the importer its loader
// hands in (so Node 20 can run the bundle from V8's cached code), and nothing else changes: the same letters in
// strings, templates, regular expressions, comments and method names stay as they are.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { IMPORTER, routeDynamicImports } from '../../scripts/bundle/dynamic-imports.js';
import { tempDir } from '../temp-dir.js';

/** The routed text without its first line (the fallback). */
const body = (text: string) => text.slice(text.indexOf('\n') + 1);

describe('routeDynamicImports', () => {
  it('routes each import(), whatever its argument, spacing or attributes', () => {
    const source = 'a=import("ink");async()=>{b=await import (x)};c=Promise.all([import(`./${n}.js`),import("./j.json",{with:{type:"json"}})]);import(/* c */ "y");';
    expect(body(routeDynamicImports(source))).toBe(
      `a=${IMPORTER}("ink");async()=>{b=await ${IMPORTER} (x)};c=Promise.all([${IMPORTER}(\`./\${n}.js\`),${IMPORTER}("./j.json",{with:{type:"json"}})]);${IMPORTER}(/* c */ "y");`,
    );
  });

  it('leaves the letters alone where they are not an import(): strings, templates, regular expressions, comments, methods', () => {
    const source = [
      'const s = "import(x)", t = \'import("y")\';',
      'const u = `import(${1}) and import(z)`;',
      'const r = /import\\(x\\)/g;',
      '// import(in a comment)',
      '/* import("block") */',
      'obj.import(x); obj?.import(y); ({ import(a) { return a; } });',
      'new vm.Script("(url) => import(url)");',
    ].join('\n');
    expect(body(routeDynamicImports(source))).toBe(source);
  });

  it('runs where no importer is handed in (require() of the file): the first line falls back to the file\'s own import()', async () => {
    const file = join(tempDir('kwatch-dynamic-imports-'), 'routed.cjs');
    writeFileSync(file, routeDynamicImports('module.exports = () => import("node:path").then((p) => typeof p.join);'));
    expect(await (createRequire(import.meta.url)(file) as () => Promise<string>)()).toBe('function');
  });

  it('calls the importer handed in as the 6th wrapper argument', async () => {
    const routed = routeDynamicImports('module.exports = () => import("./x.mjs", { with: { type: "json" } });');
    const module = { exports: undefined as unknown };
    const wrapper = runInThisContext(`(function (exports, require, module, __filename, __dirname, ${IMPORTER}) { ${routed}\n})`) as (...a: unknown[]) => void;
    const calls: unknown[][] = [];
    wrapper({}, undefined, module, 'f.cjs', '.', (...args: unknown[]) => (calls.push(args), Promise.resolve('imported')));
    expect(await (module.exports as () => Promise<string>)()).toBe('imported');
    expect(calls).toEqual([['./x.mjs', { with: { type: 'json' } }]]);
  });
});
