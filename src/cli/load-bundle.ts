// Loads the CLI's bundle (scripts/bundle): dist/kwatch.cjs, the npm CLI's commands in one CommonJS file, as
// require() would, and in the single executable the SEA asset that holds them. Two savings, measured on the
// 2.6 MB the bundle was before the sim became a file of its own:
//  - It reads the bytes, not UTF-8. Node's loader decodes a module as UTF-8: 24–30 ms (Node 24, Node 20) where
//    taking the bytes as latin1 takes 1–3. The bundle is ASCII (scripts/bundle escapes any other character),
//    for which both decodings give the same text.
//  - It keeps V8's code for the bundle on disk (bundle-code-cache.ts), written when the run ends, so that it
//    holds every function the run compiled: 35 ms less per start on Node 24 than Node's own compile cache, which
//    holds the code compiled before the module ran; on Node 20, which has no compile cache, 0.05–0.09 s of CPU
//    of the 0.24–0.44 s a short run takes (with the sim's file, which bundleRequire loads the same way). On Node
//    20 an import() written in a script V8 compiled from cached code fails
//    (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING: the script's import callback is lost), so the npm bundle's import()
//    calls (ink, esbuild, @kubernetes/client-node, the user's controllers) go through `importerFor`, a function of
//    this real module, handed to the bundle as a 6th wrapper argument (scripts/bundle/dynamic-imports.js).
import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script, constants as vmConstants } from 'node:vm';
import { hideExperimentalWarning } from '../reconcile/experimental-warnings.js';
import { codeCacheFor } from './bundle-code-cache.js';

/** Module's loader internals this uses (stable since Node's early days, but not in its type declarations). */
interface LoaderModule {
  filename: string;
  paths: string[];
  exports: unknown;
  _compile(source: string, filename: string): void;
}
interface ModuleConstructor {
  new (id: string): LoaderModule;
  _nodeModulePaths(dir: string): string[];
}
const Loader = Module as unknown as ModuleConstructor;

/** import() as the bundle calls it (scripts/bundle/dynamic-imports.js): specifier, then import attributes if any. */
export type BundleImporter = (specifier: unknown, options?: ImportCallOptions) => Promise<unknown>;

type ModuleWrapper = (exports: unknown, require: NodeJS.Require, module: LoaderModule, filename: string, dirname: string, importer: BundleImporter | undefined) => void;

/** require() of `url`, read as bytes; `ownCodeCache`: keep V8's code for it on disk between runs. */
export function loadBundle(url: URL, ownCodeCache = true): unknown {
  const filename = fileURLToPath(url);
  const bytes = readFileSync(filename);
  // A bundle built by something else than scripts/bundle may hold other characters: read it as UTF-8 then.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  if (ownCodeCache) {
    const module = { exports: {} as unknown };
    runWithCodeCache(source, bytes, filename, { exports: module.exports, require: bundleRequire(filename), module, importer: importerFor(url) });
    return module.exports;
  }
  const module = new Loader(filename);
  module.filename = filename;
  module.paths = Loader._nodeModulePaths(dirname(filename));
  module._compile(source, filename);
  return module.exports;
}

/**
 * require() for the bundle `filename`: the packages it leaves to node_modules resolve from its folder (dist/), as
 * for a required file; a .cjs file beside it (the sim's, dist/kwatch-sim.cjs) is a bundle too, loaded the same
 * way, with its own code cache, once.
 */
function bundleRequire(filename: string): NodeJS.Require {
  const require = createRequire(filename);
  const folder = dirname(filename);
  const siblings = new Map<string, unknown>();
  const load = (id: string): unknown => {
    if (!(isAbsolute(id) && id.endsWith('.cjs') && dirname(id) === folder && id !== filename)) return require(id);
    if (!siblings.has(id)) siblings.set(id, loadBundle(pathToFileURL(id)));
    return siblings.get(id);
  };
  return Object.assign(load, require) as NodeJS.Require;
}

/**
 * import() for the bundle at `url`: a relative specifier against the bundle's URL, as the bundle's own import()
 * would; a URL or a built-in as it is; a package from this file's folder, dist/cli/, which finds the node_modules
 * dist/kwatch.cjs's own import() found (dist/cli/ holds none). Node 20 cannot resolve a package from another
 * module's URL (import.meta.resolve's parent needs a flag there).
 */
export function importerFor(url: URL): BundleImporter {
  return (specifier, options) => {
    const target = typeof specifier === 'string' && /^\.{0,2}\//.test(specifier) ? new URL(specifier, url).href : (specifier as string);
    return options === undefined ? import(target) : import(target, options);
  };
}

/**
 * The single executable's start: its main script is only this (scripts/package/sea-loader.js), and the CLI's
 * bundle is the SEA asset `asset`, run with V8's code for it kept on disk like the npm CLI's. The executable's
 * own code cache (SEA useCodeCache) holds only what compiles before the bundle runs. The bundle asks for the
 * sim, a second asset, as require(`sim.specifier`), the first time a run starts it.
 */
export function runSeaBundle(asset: string, sim: { specifier: string; asset: string }, require: NodeJS.Require): void {
  const { getRawAsset } = require('node:sea') as typeof import('node:sea');
  const run = (name: string, moduleRequire: NodeJS.Require): unknown => {
    // The bytes as they lie in the executable (no copy); ASCII, as scripts/bundle makes the bundles.
    const bytes = Buffer.from(getRawAsset(name) as ArrayBuffer);
    const module = { exports: {} as unknown };
    // Named as the executable, as stack frames in its main script always were (src/reconcile/module-loader.ts).
    runWithCodeCache(bytes.toString('latin1'), bytes, process.execPath, { exports: module.exports, require: moduleRequire, module });
    return module.exports;
  };
  let simExports: unknown;
  const withSim = Object.assign((id: string): unknown => (id === sim.specifier ? (simExports ??= run(sim.asset, require)) : require(id)), require) as NodeJS.Require;
  run(asset, withSim);
}

interface CommonJsScope {
  exports: unknown;
  require: NodeJS.Require;
  module: { exports: unknown };
  /** The bundle's import() (only the npm form's calls it; the executable's runs on Node 24, see below). */
  importer?: BundleImporter;
}

/**
 * Runs `source` as a CommonJS module of `filename`, with V8's code for it read from and written to the cache.
 * V8 accepts cached code only under the flags it was made with: set them (startup.ts) before this.
 */
function runWithCodeCache(source: string, bytes: Uint8Array, filename: string, scope: CommonJsScope): void {
  const cache = codeCacheFor(filename, bytes);
  // What follows is how Node loads a CommonJS file itself; an import() written in the script goes through this vm
  // option, which Node calls experimental (a warning the user can do nothing about).
  hideExperimentalWarning(/^vm\.USE_MAIN_CONTEXT_DEFAULT_LOADER is an experimental feature/);
  // The wrapper Node's loader puts around a CommonJS file, on the first line so that line numbers stay the file's,
  // with the importer the npm bundle calls instead of import().
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __kwatchImport) { ${source}\n})`, {
    filename,
    cachedData: cache.read(),
    // An import() left in the script (the executable's, on Node 24) as in any CommonJS file. On Node 20 this
    // works only while V8 compiles the script itself, not from cached code: hence the importer.
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // Written at exit, once the run has compiled the functions it called, so that the next run finds those too; and only
  // by a run that ended well. The first run to write it sets what every later one starts from: after a flag error
  // (oclif's parser and little else) the file held half the code, and each later `events` run took 9% more CPU
  // (Node 20). A failed run leaves the writing to the next one.
  if (script.cachedDataRejected !== false) process.once('exit', (code) => code === 0 && cache.write(() => script.createCachedData()));
  (script.runInThisContext() as ModuleWrapper)(scope.exports, scope.require, scope.module as LoaderModule, filename, dirname(filename), scope.importer);
}
