// Bundles the CLI into one CommonJS file: every command (found the way oclif finds them, from src/commands),
// oclif, undici, yaml and the rest, so that a run resolves, reads and compiles one file instead of hundreds;
// the embedded API server (src/sim) goes to a second file, read only by the runs that start it.
// Two forms share it:
//  - 'npm': dist/kwatch.cjs, which bin/ loads (npm run build). Packages most runs never use (ink, react,
//    @kubernetes/client-node, esbuild) stay outside, imported from node_modules the first time a run asks.
//  - 'executable': the single executable's bundle (npm run package), a SEA asset its main script
//    (scripts/package/sea-loader.js) runs, with nothing left outside: those packages are SEA assets
//    (scripts/package/assets.js) or, for esbuild, missing.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { ASSET_PACKAGES, assetLoaderSource } from '../package/assets.js';
import { dependencyPatches } from './dependency-patches.js';
import { routeDynamicImports } from './dynamic-imports.js';
import { SHIPPED_BUNDLE } from './esbuild-options.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** Where the npm form's bundle lives: beside the folders tsc compiles src/ into. */
export const NPM_BUNDLE = join(ROOT, 'dist', 'kwatch.cjs');

/** The explicit command target the bundled oclif is told about (see oclif-module-loader.js). */
export const COMMANDS_TARGET = './kwatch-commands';

/** Packages the npm form leaves to node_modules: loaded only by the runs that need them. */
const NPM_EXTERNAL = ['ink', 'react', '@kubernetes/client-node', 'esbuild', 'typescript'];

/** Command ids as oclif's pattern strategy derives them: path segments joined by ':', `index` files name their folder. */
export function commandFiles(dir = join(ROOT, 'src', 'commands')) {
  const files = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(dir);
  return files.sort().map((path) => {
    const parts = relative(dir, path).replace(/\.tsx?$/, '').split(sep);
    if (parts.at(-1) === 'index') parts.pop();
    return { id: parts.join(':'), path };
  }).filter((c) => c.id !== '');
}

/**
 * The command map: a getter per command, so that a run evaluates only its own command's module graph (esbuild
 * wraps a module reached through require() in a function run on first use). `events` never evaluates the sim,
 * the endpoint or the reconcile runner. oclif reads the one id it runs (it has the manifest for the others).
 */
function commandMapSource() {
  const commands = commandFiles();
  // A command file's class is its default export (oclif also accepts the single class a module exports).
  const entries = commands.map((c) => `  get ${JSON.stringify(c.id)}() { return commandClass(require(${JSON.stringify(c.path)})); },`);
  return `const commandClass = (m) => m.default ?? Object.values(m).find((v) => typeof v === 'function' && 'run' in v);
export const COMMANDS = {
${entries.join('\n')}
};
`;
}

const manifestSource = (form) => (form === 'executable' ? `export default ${readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8').trim()};\n` : 'export default undefined;\n');

function entrySource(form, pjson) {
  if (form === 'npm') {
    // bin/ answers --version, help and completion from dist/cli/main.js, and loads this for everything else.
    return `
import { runOclif as run } from ${JSON.stringify(join(ROOT, 'src/cli/oclif-run.ts'))};
const pjson = ${JSON.stringify(pjson)};
export const runOclif = (argv, opts) => run(argv, { ...opts, pjson });
`;
  }
  return `
import { basename, dirname } from 'node:path';
import { runCli } from ${JSON.stringify(join(ROOT, 'src/cli/main.ts'))};
import manifest from 'kwatch:manifest';
// V8's flags are set by the main script that runs this (scripts/package/sea-loader.js), before it compiles it.
// Installed as kubectl-kwatch (krew, the archives), it is the kubectl plugin; renamed to kwatch, the plain CLI.
const name = basename(process.execPath).replace(/\\.exe$/i, '');
runCli({ bin: name === 'kwatch' ? 'kwatch' : 'kubectl kwatch', pjson: ${JSON.stringify(pjson)}, manifest, root: dirname(process.execPath) }).catch((err) => {
  process.stderr.write(\`error: \${process.env.KWATCH_DEBUG ? err?.stack : err instanceof Error ? err.message : String(err)}\\n\`);
  process.exitCode = 1;
});
`;
}

/** package.json as the bundled oclif sees it: commands come from the map, not a folder. */
export function bundledPjson() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    type: 'commonjs',
    oclif: { ...pkg.oclif, commands: { strategy: 'explicit', target: COMMANDS_TARGET, identifier: 'COMMANDS' } },
  };
}

/** What the single executable does not carry (nothing in it should reach these: a failure says so in one line). */
const MISSING = {
  // oclif reads tsconfig.json with it only when it runs a plugin from TypeScript sources, which the bundle never does.
  typescript: 'TypeScript is not part of the single executable',
  // TypeScript controllers are transpiled by Node itself there (src/reconcile/node-typescript-hooks.ts).
  esbuild: 'esbuild is not part of the single executable',
};
for (const specifier of Object.keys(ASSET_PACKAGES)) MISSING[specifier] = `${specifier} is loaded on demand in the single executable: a static import of it cannot be bundled`;

// A call, not a type (`typeof import('react')`, `import('react').ReactElement`).
const ASSET_IMPORT = new RegExp(`(?<!typeof\\s*)\\bimport\\((['"])(${Object.keys(ASSET_PACKAGES).map((s) => s.replace(/[/.]/g, '\\$&')).join('|')})\\1\\)(?!\\.)`, 'g');

/**
 * import.meta.url of a source file in the npm form: the URL of the file tsc compiles it to, beside the bundle in
 * dist/, so that paths the code derives from it (the package root, dist/index.js) are the unbundled build's.
 */
function npmModuleUrl(sourcePath) {
  const compiled = relative(join(ROOT, 'src'), sourcePath).replace(/\.tsx?$/, '.js').split(sep).join('/');
  return `__kwatchModuleUrl(${JSON.stringify(compiled)})`;
}

const virtualModules = (form, pjson) => ({
  name: 'kwatch-virtual-modules',
  setup(build) {
    build.onResolve({ filter: /^kwatch:(entry|commands|manifest)$/ }, (args) => ({ path: args.path, namespace: 'kwatch' }));
    build.onLoad({ filter: /^kwatch:entry$/, namespace: 'kwatch' }, () => ({ contents: entrySource(form, pjson), loader: 'ts', resolveDir: ROOT }));
    build.onLoad({ filter: /^kwatch:commands$/, namespace: 'kwatch' }, () => ({ contents: commandMapSource(), loader: 'ts', resolveDir: ROOT }));
    // oclif.manifest.json: the executable has no file beside it to read it from (oclif would otherwise load
    // every command to rebuild it at each start).
    build.onLoad({ filter: /^kwatch:manifest$/, namespace: 'kwatch' }, () => ({ contents: manifestSource(form), loader: 'js', resolveDir: ROOT }));
    if (form === 'executable') {
      // typescript: 6.5 MB that oclif only asks for (and does without) when it looks for a tsconfig.json.
      // ink (and yoga-layout under it) awaits at the top level, which a CommonJS bundle cannot hold; esbuild
      // compiles TypeScript controllers with a native binary of its own. Both stay out: what needs them fails in one line.
      build.onResolve({ filter: /^(ink|react|esbuild|typescript|@kubernetes\/client-node)$/ }, (args) => ({ path: args.path, namespace: 'kwatch-missing' }));
      build.onLoad({ filter: /.*/, namespace: 'kwatch-missing' }, (args) => ({
        contents: `import { UserError } from ${JSON.stringify(join(ROOT, 'src/cli/user-error.ts'))};\nthrow new UserError(${JSON.stringify(MISSING[args.path])});\n`,
        loader: 'ts',
        resolveDir: ROOT,
      }));
    }
    for (const patch of dependencyPatches()) {
      build.onLoad({ filter: patch.file }, (args) => ({ contents: patch.apply(readFileSync(args.path, 'utf8'), args.path), loader: 'js' }));
    }
    // oclif's module loader reads command files from disk; the bundle's answers from the command map.
    build.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/]module-loader\.js$/ }, () => ({
      contents: readFileSync(join(HERE, 'oclif-module-loader.js'), 'utf8'),
      loader: 'js',
      resolveDir: HERE,
    }));
    // Our lazy `createRequire(import.meta.url)('yaml')` loads become plain requires esbuild can bundle. In the
    // executable, `import('ink')` (and the other packages of assets.js) become loads of the asset that holds the
    // package; in the npm form, import.meta.url is the compiled file's.
    build.onLoad({ filter: /[\\/]src[\\/].*\.tsx?$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      let changed = source.replaceAll('createRequire(import.meta.url)(', 'require(');
      if (form === 'executable') changed = changed.replace(ASSET_IMPORT, (_, _q, specifier) => `__kwatchImportPackage(${JSON.stringify(specifier)})`);
      else changed = changed.replaceAll('import.meta.url', npmModuleUrl(args.path));
      if (changed === source) return undefined;
      return { contents: changed, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
});

const BANNERS = {
  // import.meta.url of the bundled ES modules: the executable itself (nothing is read beside it).
  executable: () => `var __kwatch_import_meta_url = require("node:url").pathToFileURL(process.execPath).href;\n${assetLoaderSource()}`,
  // import.meta.url of our sources: their compiled file's (npmModuleUrl); of a bundled package: the bundle's.
  npm: () => 'var __kwatchModuleUrl = (compiled) => require("node:url").pathToFileURL(require("node:path").join(__dirname, compiled)).href;\nvar __kwatch_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
};

/** The second file of both forms: the embedded API server (src/sim), which only --sim, `sim` and the endpoint load. */
export const SIM_BUNDLE_NAME = 'kwatch-sim.cjs';
/** How the executable's bundle asks its main script (sea-loader.js) for the sim asset. */
export const SIM_SPECIFIER = 'kwatch:sim';
const SRC_DIR = join(ROOT, 'src') + sep;
/** The sim's folder and the neutral one it shares with the endpoint (src/wire): one copy of each module, in the sim file. */
const SIM_DIRS = [join(SRC_DIR, 'sim') + sep, join(SRC_DIR, 'wire') + sep];
const inSimFile = (path) => SIM_DIRS.some((dir) => path.startsWith(dir));

/**
 * Sim modules the CLI's flags read at every start (the releases --kube-version takes, their feature gates), bundled
 * into both files: were they the sim file's, every run (a flag error, a command against a real cluster) would read,
 * hash and compile the whole sim file for a few constants (measured: 4–9 ms of CPU per start on Node 20). Two copies
 * are safe only for a module that imports nothing and holds no class and no state: the build checks that.
 */
export const SIM_MODULES_IN_BOTH = ['sim/kube-version.ts'];

/** Throws unless `path` is a module two copies of which behave as one (see SIM_MODULES_IN_BOTH). */
function checkCopyable(path) {
  const source = readFileSync(path, 'utf8');
  const why = /^\s*(import|export\s+[^;]*\bfrom)\b/m.test(source) ? 'it imports' : /\bclass\s/.test(source) ? 'it holds a class' : /^(let|var)\s/m.test(source) ? 'it holds module state' : undefined;
  if (why) throw new Error(`${path} cannot be bundled twice (SIM_MODULES_IN_BOTH): ${why}`);
}

/**
 * The sim (a third of the code) is a file of its own: a run that does not start it does not read or compile it
 * (measured on Node 20 before its code was kept between runs: about 15 ms of each start; in the executable, a third
 * less to take from its pages and hash). The sim shares no module with the rest (eslint holds it to that) but
 * src/wire, which goes into the sim file with it, so each of their modules lives in one file only (one class for
 * `instanceof`): an import of one from outside becomes a property of the sim file's exports, required when first
 * used — the file beside the npm bundle, or the executable's asset.
 */
const simSplit = (form, simModules) => ({
  name: 'kwatch-sim-split',
  setup(build) {
    build.onResolve({ filter: /[\\/](sim|wire)[\\/]/ }, async (args) => {
      if (args.pluginData?.simSplit || inSimFile(args.importer) || !args.importer.startsWith(join(ROOT, 'src'))) return undefined;
      const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { simSplit: true } });
      if (resolved.errors.length > 0 || !inSimFile(resolved.path)) return undefined;
      const key = relative(SRC_DIR, resolved.path).split(sep).join('/');
      if (SIM_MODULES_IN_BOTH.includes(key)) {
        checkCopyable(resolved.path);
        return { path: resolved.path };
      }
      simModules.set(key, resolved.path);
      return { path: key, namespace: 'kwatch-sim' };
    });
    build.onResolve({ filter: new RegExp(`^${SIM_SPECIFIER}$`) }, () => ({ path: SIM_SPECIFIER, external: true }));
    const simFile = form === 'npm' ? `require("node:path").join(__dirname, ${JSON.stringify(SIM_BUNDLE_NAME)})` : JSON.stringify(SIM_SPECIFIER);
    build.onLoad({ filter: /.*/, namespace: 'kwatch-sim' }, (args) => ({
      contents: `module.exports = require(${simFile})[${JSON.stringify(args.path)}];\n`,
      loader: 'js',
    }));
  },
});

/** The sim file's entry: each module imported from outside, as a property evaluated on first read. */
function simEntrySource(simModules) {
  const properties = [...simModules].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, path]) => `  get ${JSON.stringify(key)}() { return require(${JSON.stringify(path)}); },`);
  return `module.exports = {\n${properties.join('\n')}\n};\n`;
}

const COMMON_OPTIONS = { ...SHIPPED_BUNDLE, format: 'cjs', metafile: true, write: false };

/** Writes the bundle of `form` ('npm' or 'executable') to outfile, and the sim's (SIM_BUNDLE_NAME) beside it; returns the first's size in bytes. */
export async function bundle(outfile, form = 'executable') {
  if (!(form in BANNERS)) throw new Error(`unknown bundle form ${form}`);
  const simModules = new Map();
  const result = await esbuild.build({
    ...COMMON_OPTIONS,
    entryPoints: ['kwatch:entry'],
    // The npm form runs on every Node the package supports; the executable on the Node it is built with.
    target: form === 'npm' ? 'node20' : 'node24',
    outfile,
    external: form === 'npm' ? NPM_EXTERNAL : [],
    define: { 'import.meta.url': '__kwatch_import_meta_url' },
    banner: { js: BANNERS[form]() },
    plugins: [simSplit(form, simModules), virtualModules(form, bundledPjson())],
  });
  // The npm form's import() calls go through its loader's importer (dynamic-imports.js), for Node 20's code
  // cache; the executable runs on Node 24, where import() in cached code works.
  const text = asciiOnly(form === 'npm' ? routeDynamicImports(result.outputFiles[0].text) : result.outputFiles[0].text);
  writeFileSync(outfile, text);
  const sim = await esbuild.build({
    ...COMMON_OPTIONS,
    stdin: { contents: simEntrySource(simModules), resolveDir: ROOT, loader: 'js' },
    target: form === 'npm' ? 'node20' : 'node24',
    outfile: join(dirname(outfile), SIM_BUNDLE_NAME),
  });
  // The npm form's loader keeps V8's code for the sim's file too (src/cli/load-bundle.ts).
  writeFileSync(join(dirname(outfile), SIM_BUNDLE_NAME), asciiOnly(form === 'npm' ? routeDynamicImports(sim.outputFiles[0].text) : sim.outputFiles[0].text));
  // What the bundle holds, package by package, for whoever wants to see what a start-up compiles.
  if (process.env.KWATCH_BUNDLE_METAFILE) writeFileSync(process.env.KWATCH_BUNDLE_METAFILE, JSON.stringify(result.metafile));
  return Buffer.byteLength(text);
}

/**
 * esbuild escapes non-ASCII characters in strings but leaves them in regular expression literals (`µs`, box
 * drawing). One such character makes the whole file a two-byte string for V8: on Node 20, reading the 2.6 MB
 * bundle took 57 ms instead of 7 and compiling it 80 ms instead of about 50. \uXXXX means the same character
 * in a regular expression, a string or an identifier (a character outside the BMP as its surrogate pair).
 */
function asciiOnly(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
