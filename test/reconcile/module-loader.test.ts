// kwatch reconcile --with FILE: each form of controller module loads the way the built CLI loads it
// (a child node running dist's loader: run `npm run build` first), from folders outside the repo,
// and each way a module can fail gives one line naming the file and the line.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorLine, loadCasesInNode, loadError, type LoadCase, type Loaded } from './load-in-node.js';
import { tempDir } from '../temp-dir.js';

const folders: string[] = [];
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

/** A fresh folder under the OS temp dir (outside the repo: no node_modules holds kwatch) holding files. */
function folder(files: Record<string, string>): string {
  const dir = tempDir('kwatch-module-');
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** Loads every case in one child node, one after the other (a node start and dist's loader cost ~0.2 s of CPU each);
 * `early(files, resource)` is that case's loadError. */
function loadErrorsInOneNode(dir: string, cases: LoadCase[]): (files: string[], resource?: string) => Promise<string> {
  const id = (files: string[], resource?: string) => `${files.join(',')}|${resource ?? ''}`;
  const all = loadCasesInNode(dir, cases);
  all.catch(() => undefined); // awaited below, per case
  const index = new Map(cases.map(([files, resource], i) => [id(files, resource), i]));
  return async (files, resource) => {
    const i = index.get(id(files, resource));
    if (i === undefined) throw new Error(`${id(files, resource)} was not started`);
    return errorLine((await all).results[i], files);
  };
}

/**
 * Cases that must load, all loaded in turn in one child node when the first test asks for its own (a node start and
 * dist's loader cost ~0.2 s of CPU each time). `add` returns the case's results: each must have loaded, and nothing
 * may be on the child's stderr: no warning of Node's (loader hooks, source maps) reaches the user's terminal.
 */
function loadsInOneNode(): { add(cwd: string, files: string[], resource?: string): () => Promise<Loaded[]> } {
  const cases: LoadCase[] = [];
  let all: ReturnType<typeof loadCasesInNode> | undefined;
  return {
    add(cwd, files, resource) {
      const i = cases.push([files, resource, cwd]) - 1;
      return async () => {
        all ??= loadCasesInNode(cases[0][2]!, cases);
        const { results, stderr } = await all;
        for (const r of results[i]) if (!r.ok) throw new Error(`did not load: ${r.error}`);
        expect(stderr).toBe('');
        return results[i] as Loaded[];
      };
    },
  };
}

describe('module forms', () => {
  // Each test's folder is written as the file is collected; the first test to run loads every one.
  const forms = loadsInOneNode();

  const jsDir = folder({
    'package.json': '{ "type": "module" }',
    'scale.js': `export async function reconcile(req, ctx) { return { requeueAfter: req.name + '-1s' }; }\nexport function errorPolicy(err) { return { requeue: true }; }\n`,
  });
  const loadJs = forms.add(jsDir, ['scale.js'], 'deployments.apps');
  test('.js ES module with a named reconcile and errorPolicy: RESOURCE from the command line is its primary resource', async () => {
    const [c] = await loadJs();
    expect(c).toMatchObject({ file: join(jsDir, 'scale.js'), name: 'scale', for: 'deployments.apps', cliResource: 'deployments.apps', reconciled: { requeueAfter: 'web-1s' }, errorPolicy: { requeue: true } });
    expect(c.moduleFor).toBeUndefined();
  });

  const mjsDir = folder({
    'ctrl.mjs': `import { defineController } from 'kwatch';
export default defineController({
  name: 'deploy-scaler',
  for: 'deployments.apps',
  owns: ['replicasets.apps'],
  watches: [{ resource: 'configmaps', map: (obj) => [{ namespace: obj.metadata.namespace, name: 'web' }] }],
  async reconcile(req, ctx) { return { requeue: req.name === 'web' }; },
});
`,
  });
  const loadMjs = forms.add(mjsDir, ['ctrl.mjs']);
  test(".mjs default export built with defineController imported from 'kwatch', in a folder no node_modules holds kwatch in", async () => {
    const [c] = await loadMjs();
    expect(c).toMatchObject({
      name: 'deploy-scaler',
      for: 'deployments.apps',
      moduleFor: 'deployments.apps',
      owns: ['replicasets.apps'],
      watches: [{ resource: 'configmaps', mapped: [{ namespace: 'default', name: 'web' }] }],
      reconciled: { requeue: true },
    });
  });

  const cjsDir = folder({
    'object.cjs': `module.exports = { for: 'pods', helper() { return 'via this'; }, reconcile(req) { return this.helper(); } };\n`,
    'function.cjs': `module.exports = async function reconcile(req) { return 'function ' + req.name; };\n`,
    'named.cjs': `exports.reconcile = function () { return 'named'; };\nexports.errorPolicy = function () { return 'policy'; };\n`,
  });
  const loadCjs = forms.add(cjsDir, ['object.cjs', 'function.cjs', 'named.cjs'], 'pods');
  test('.cjs: module.exports = { for, reconcile }, module.exports = function, and exports.reconcile with exports.errorPolicy', async () => {
    const [object, fn, named] = await loadCjs();
    expect(object).toMatchObject({ name: 'object', for: 'pods', moduleFor: 'pods', reconciled: 'via this' });
    expect(fn).toMatchObject({ name: 'function', for: 'pods', reconciled: 'function web' });
    expect(named).toMatchObject({ name: 'named', for: 'pods', reconciled: 'named', errorPolicy: 'policy' });
  });

  const tsDir = folder({
    'controller.ts': `import type { ReconcileContext, ReconcileRequest, ReconcileAction } from 'kwatch';
import { defineController } from 'kwatch';
import { Phase, phaseOf } from './lib/phase';

export default defineController({
  for: 'deployments.apps',
  async reconcile(req: ReconcileRequest, _ctx: ReconcileContext): Promise<ReconcileAction> {
    return { requeue: phaseOf(req.name) === Phase.Ready };
  },
});
`,
    'lib/phase.ts': `export enum Phase { Pending = 'Pending', Ready = 'Ready' }\nexport function phaseOf(name: string): Phase { return name === 'web' ? Phase.Ready : Phase.Pending; }\n`,
  });
  const loadTs = forms.add(tsDir, ['controller.ts']);
  test(".ts with a type import from 'kwatch', an enum and an extensionless relative import of another .ts file", async () => {
    const [c] = await loadTs();
    expect(c).toMatchObject({ file: join(tsDir, 'controller.ts'), name: 'controller', for: 'deployments.apps', reconciled: { requeue: true } });
    expect(readdirSync(tsDir).sort()).toEqual(['controller.ts', 'lib']);
  });

  const mtsCtsDir = folder({
    'a.mts': `const enum Mode { Fast = 'fast' }\nexport async function reconcile(): Promise<string> { return Mode.Fast; }\n`,
    'b.cts': `import type { ReconcileContext } from 'kwatch';\nexport = { for: 'pods', reconcile(_r: unknown, _c: ReconcileContext): string { return 'cts'; } };\n`,
  });
  const loadMtsCts = forms.add(mtsCtsDir, ['a.mts', 'b.cts'], 'pods');
  test('.mts and .cts', async () => {
    const [a, b] = await loadMtsCts();
    expect(a).toMatchObject({ name: 'a', for: 'pods', reconciled: 'fast' });
    expect(b).toMatchObject({ name: 'b', for: 'pods', reconciled: 'cts' });
  });

  const packageDir = folder({
    'node_modules/greeting/package.json': '{ "name": "greeting", "type": "module", "exports": "./index.js" }',
    'node_modules/greeting/index.js': `export const greet = (n) => 'hello ' + n;\n`,
    'ctrl/c.ts': `import { greet } from 'greeting';\nexport function reconcile(req: { name: string }): string { return greet(req.name); }\n`,
    'ctrl/d.mjs': `import { greet } from 'greeting';\nexport function reconcile(req) { return greet(req.name) + '!'; }\n`,
  });
  const loadPackageImports = forms.add(join(packageDir, 'ctrl'), ['c.ts', 'd.mjs'].map((f) => join(packageDir, 'ctrl', f)), 'pods');
  test("a package import resolves from the module's own folder, for TypeScript (bundled beside it) as for JavaScript", async () => {
    const [ts, js] = await loadPackageImports();
    expect(ts.reconciled).toBe('hello web');
    expect(js.reconciled).toBe('hello web!');
  });

  const forDir = folder({ 'c.mjs': `export default { for: 'deploy', reconcile() {} };\n` });
  const loadFor = forms.add(forDir, ['c.mjs'], 'deployments.apps');
  test("the module's `for` and the command line's RESOURCE are both passed on: definition.for is the module's", async () => {
    const [c] = await loadFor();
    expect(c).toMatchObject({ for: 'deploy', moduleFor: 'deploy', cliResource: 'deployments.apps' });
  });
});

describe('a module that cannot be used: one line naming the file (and the line)', () => {
  test('no such file, an unsupported extension, a folder', async () => {
    const dir = folder({ 'ctrl.py': 'def reconcile(): pass\n', 'sub/x.ts': '' });
    const loadError = loadErrorsInOneNode(dir, [[['missing.ts']], [['ctrl.py']], [['sub']]]);
    expect(await loadError(['missing.ts'])).toBe('cannot load missing.ts: no such file');
    expect(await loadError(['ctrl.py'])).toBe("cannot load ctrl.py: unsupported extension '.py' (kwatch loads .js, .mjs, .cjs, .ts, .mts, .cts)");
    expect(await loadError(['sub'])).toBe('cannot load sub: it is a directory, not a module file');
  });

  test('a syntax error: FILE:LINE:COL in TypeScript, in an ES module (where Node 20 names no place) and in CommonJS', async () => {
    const dir = folder({
      'bad.ts': `const a: number = 1;\nexport function reconcile(req {\n}\n`,
      'bad.mjs': `const a = 1;\n\nexport function reconcile() { return a + ; }\n`,
      'bad.cjs': `const a = 1;\nmodule.exports = { reconcile( };\n`,
    });
    const loadError = loadErrorsInOneNode(dir, [[['bad.ts']], [['bad.mjs']], [['bad.cjs']]]);
    expect(await loadError(['bad.ts'])).toBe('bad.ts:2:31: SyntaxError: Expected ")" but found "{"');
    expect(await loadError(['bad.mjs'])).toBe('bad.mjs:3:42: SyntaxError: Unexpected ";"');
    expect(await loadError(['bad.cjs'])).toBe("bad.cjs:2:31: SyntaxError: Unexpected token '}'");
  });

  test('an ES module .js file in a CommonJS package says how to fix it', async () => {
    const dir = folder({ 'package.json': '{ "type": "commonjs" }', 'c.js': `import { x } from './x.mjs';\nexport function reconcile() {}\n` });
    expect(await loadError(dir, ['c.js'])).toBe(
      'c.js:1:1: SyntaxError: Cannot use import statement outside a module (Node loads this .js file as CommonJS: rename it .mjs, or set "type": "module" in its package.json)',
    );
  });

  test('a throw at import names the line it was thrown from: JavaScript, CommonJS, and TypeScript through its source map', async () => {
    const dir = folder({
      'throws.mjs': `const config = {};\nfunction check() {\n  throw new Error('config has no cluster');\n}\ncheck();\nexport function reconcile() {}\n`,
      'throws.cjs': `const a = 1;\nthrow new Error('cjs says no');\n`,
      'throws.ts': `import type { ReconcileContext } from 'kwatch';\ninterface Config { cluster?: string }\nconst config: Config = {};\n\nif (!config.cluster) {\n  throw new Error('ts config has no cluster');\n}\nexport function reconcile(_r: unknown, _c: ReconcileContext) {}\n`,
      'typeerror.mjs': `const o = {};\nexport const x = o.spec.replicas;\n`,
      'string.mjs': `throw 'just a string';\n`,
    });
    const early = loadErrorsInOneNode(dir, [[['throws.mjs']], [['throws.cjs']], [['throws.ts']], [['typeerror.mjs']], [['string.mjs']]]);
    expect(await early(['throws.mjs'])).toBe('throws.mjs:3: config has no cluster (thrown while loading the module)');
    expect(await early(['throws.cjs'])).toBe('throws.cjs:2: cjs says no (thrown while loading the module)');
    expect(await early(['throws.ts'])).toBe('throws.ts:6: ts config has no cluster (thrown while loading the module)');
    expect(await early(['typeerror.mjs'])).toBe("typeerror.mjs:2: TypeError: Cannot read properties of undefined (reading 'replicas') (thrown while loading the module)");
    expect(await early(['string.mjs'])).toBe('string.mjs: just a string (thrown while loading the module)');
  });

  test('a throw in a file the module imports names that file and line', async () => {
    const dir = folder({
      'main.ts': `import { limit } from './lib/limits';\nexport function reconcile() { return limit; }\n`,
      'lib/limits.ts': `type N = number;\nexport const limit: N = 3;\nthrow new RangeError('limit too low: ' + limit);\n`,
    });
    expect(await loadError(dir, ['main.ts'])).toBe('lib/limits.ts:3: RangeError: limit too low: 3 (thrown while loading main.ts)');
  });

  test('an import that does not resolve names the line of the import', async () => {
    const dir = folder({
      'pkg.ts': `// uses a package that is not installed\nimport { x } from 'not-installed';\nexport function reconcile() { return x; }\n`,
      'node_modules/greeting/package.json': '{ "name": "greeting", "type": "module", "exports": "./index.js" }',
      'node_modules/greeting/index.js': `export const greet = (n) => 'hello ' + n;\n`,
      'export.ts': `import type { ReconcileContext } from 'kwatch';\ntype Greeting = string;\nimport { farewell } from 'greeting';\nexport function reconcile(_r: unknown, _c: ReconcileContext): Greeting { return farewell; }\n`,
      'rel.mjs': `import { x } from './nope.mjs';\nexport function reconcile() { return x; }\n`,
      'req.cjs': `const { defineController } = require('kwatch');\nmodule.exports = defineController({ for: 'pods', reconcile() {} });\n`,
    });
    const early = loadErrorsInOneNode(dir, [[['pkg.ts']], [['rel.mjs']], [['export.ts']], [['req.cjs']]]);
    expect(await early(['pkg.ts'])).toBe(`pkg.ts:2: Cannot find package 'not-installed' imported from ${join(dir, 'pkg.ts')}`);
    expect(await early(['rel.mjs'])).toBe('rel.mjs:1:19: Could not resolve "./nope.mjs"');
    expect(await early(['export.ts'])).toBe("export.ts:3:10: SyntaxError: The requested module 'greeting' does not provide an export named 'farewell'");
    expect(await early(['req.cjs'])).toBe(
      "req.cjs:1: Cannot find module 'kwatch' (require() cannot see the running kwatch: use import { defineController } from 'kwatch' in an ES module (.mjs), or export a plain object) (thrown while loading the module)",
    );
  });

  test('no reconcile function, wrong owns or watches, no primary resource, two controllers with one name', async () => {
    const dir = folder({
      'none.mjs': `export const reconciler = () => {};\n`,
      'owns.mjs': `export default { for: 'deployments.apps', owns: 'replicasets.apps', reconcile() {} };\n`,
      'watches.ts': `export default { for: 'deployments.apps', watches: [{ resource: 'configmaps' }], reconcile() {} };\n`,
      'nofor.mjs': `export function reconcile() {}\n`,
      'a/ctrl.mjs': `export function reconcile() {}\n`,
      'b/ctrl.mjs': `export function reconcile() {}\n`,
    });
    const early = loadErrorsInOneNode(dir, [[['none.mjs'], 'pods'], [['owns.mjs']], [['watches.ts']], [['nofor.mjs']], [['a/ctrl.mjs', 'b/ctrl.mjs'], 'pods']]);
    expect(await early(['none.mjs'], 'pods')).toBe(
      'none.mjs: exports no reconcile function (export async function reconcile(req, ctx), or export default defineController({ for, reconcile }))',
    );
    expect(await early(['owns.mjs'])).toBe(`owns.mjs: owns must be an array of resource names such as ['replicasets.apps'], got the string "replicasets.apps"`);
    expect(await early(['watches.ts'])).toBe('watches.ts: watches[0].map must be a function from the watched object to the primary objects to reconcile, got undefined');
    expect(await early(['nofor.mjs'])).toBe('nofor.mjs: names no primary resource: give RESOURCE on the command line or `for` in the module');
    expect(await early(['a/ctrl.mjs', 'b/ctrl.mjs'], 'pods')).toBe(
      "b/ctrl.mjs: its controller is named 'ctrl', like the one in a/ctrl.mjs; give one of them another name (name: '…' in its definition)",
    );
  });

  test('no transpiled file is left beside a TypeScript module: after loading, after a throw, after a syntax error', async () => {
    const dir = folder({
      'ok.ts': `export function reconcile(): void {}\n`,
      'throws.ts': `throw new Error('no');\n`,
      'bad.ts': `export function reconcile( {\n`,
    });
    const before = readdirSync(dir).sort();
    // The three in turn in one process, as the CLI would load them.
    const { results: [ok, throws, bad], stderr } = await loadCasesInNode(dir, [[['ok.ts'], 'pods'], [['throws.ts'], 'pods'], [['bad.ts'], 'pods']]);
    expect(ok).toEqual([expect.objectContaining({ ok: true, name: 'ok' })]);
    expect(stderr).toBe('');
    expect(errorLine(throws, ['throws.ts'])).toMatch(/^throws\.ts:1: no/);
    expect(errorLine(bad, ['bad.ts'])).toMatch(/^bad\.ts:\d+:\d+: SyntaxError/);
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
