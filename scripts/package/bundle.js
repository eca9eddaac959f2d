// Bundles the CLI into one CommonJS file for a Node single executable application: every command
// (found the way oclif finds them, from src/commands), oclif, undici, @kubernetes/client-node and the
// rest, with nothing left to read from node_modules at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { ASSET_PACKAGES, assetLoaderSource } from './assets.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** The explicit command target the bundled oclif is told about (see oclif-module-loader.js). */
export const COMMANDS_TARGET = './kwatch-commands';

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

function commandMapSource() {
  const commands = commandFiles();
  const imports = commands.map((c, i) => `import * as command${i} from ${JSON.stringify(c.path)};`);
  // A command file's class is its default export (oclif also accepts the single class a module exports).
  const entries = commands.map((c, i) => `  ${JSON.stringify(c.id)}: command${i}.default ?? Object.values(command${i}).find((v) => typeof v === 'function' && 'run' in v),`);
  return `${imports.join('\n')}\nexport const COMMANDS = {\n${entries.join('\n')}\n};\n`;
}

function entrySource(pjson) {
  return `
import { basename } from 'node:path';
import { tuneV8 } from ${JSON.stringify(join(ROOT, 'src/cli/startup.ts'))};
import { runCli } from ${JSON.stringify(join(ROOT, 'src/cli/main.ts'))};
tuneV8();
// Installed as kubectl-kwatch (krew, the archives), it is the kubectl plugin; renamed to kwatch, the plain CLI.
const name = basename(process.execPath).replace(/\\.exe$/i, '');
runCli({ bin: name === 'kwatch' ? 'kwatch' : 'kubectl kwatch', pjson: ${JSON.stringify(pjson)}, manifest: ${readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8').trim()} }).catch((err) => {
  process.stderr.write(\`error: \${process.env.KWATCH_DEBUG ? err?.stack : err instanceof Error ? err.message : String(err)}\\n\`);
  process.exitCode = 1;
});
`;
}

/**
 * oclif requires at load time Node built-ins it uses only now and then: perf_hooks (only with OCLIF_PERFORMANCE),
 * child_process (only on Windows, to name the shell) and, through debug, tty and net (only with DEBUG). Node
 * compiles each built-in on first require: 13% of a short run in the executable's profile. These requires
 * become lazy. The bundle fails to build if oclif's text changed, rather than silently losing this.
 */
const LAZY_OCLIF_REQUIRES = [
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]performance\.js$/,
    from: 'const node_perf_hooks_1 = require("node:perf_hooks");',
    to: 'const node_perf_hooks_1 = { get performance() { return require("node:perf_hooks").performance; }, get PerformanceObserver() { return require("node:perf_hooks").PerformanceObserver; } };',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/,
    from: 'const node_child_process_1 = require("node:child_process");',
    to: 'const node_child_process_1 = { get execSync() { return require("node:child_process").execSync; } };',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]logger\.js$/,
    from: 'const debug_1 = __importDefault(require("debug"));',
    // A logger that logs nothing unless DEBUG is set, as debug's own would; with DEBUG, debug itself.
    to: 'const debug_1 = { default: (namespace) => { if (process.env.DEBUG) return require("debug")(namespace); const off = () => {}; off.enabled = false; off.namespace = namespace; off.extend = () => off; off.log = off; return off; } };',
  },
];

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

const virtualModules = (pjson) => ({
  name: 'kwatch-virtual-modules',
  setup(build) {
    build.onResolve({ filter: /^kwatch:(entry|commands)$/ }, (args) => ({ path: args.path, namespace: 'kwatch' }));
    // typescript: 6.5 MB that oclif only asks for (and does without) when it looks for a tsconfig.json.
    // ink (and yoga-layout under it) awaits at the top level, which a CommonJS bundle cannot hold; esbuild
    // compiles TypeScript controllers with a native binary of its own. Both stay out: what needs them fails in one line.
    build.onResolve({ filter: /^(ink|react|esbuild|typescript|@kubernetes\/client-node)$/ }, (args) => ({ path: args.path, namespace: 'kwatch-missing' }));
    build.onLoad({ filter: /.*/, namespace: 'kwatch-missing' }, (args) => ({
      contents: `import { UserError } from ${JSON.stringify(join(ROOT, 'src/cli/user-error.ts'))};\nthrow new UserError(${JSON.stringify(MISSING[args.path])});\n`,
      loader: 'ts',
      resolveDir: ROOT,
    }));
    build.onLoad({ filter: /^kwatch:entry$/, namespace: 'kwatch' }, () => ({ contents: entrySource(pjson), loader: 'ts', resolveDir: ROOT }));
    build.onLoad({ filter: /^kwatch:commands$/, namespace: 'kwatch' }, () => ({ contents: commandMapSource(), loader: 'ts', resolveDir: ROOT }));
    build.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/](performance|util[\\/]os|logger)\.js$/ }, (args) => {
      let contents = readFileSync(args.path, 'utf8');
      for (const lazy of LAZY_OCLIF_REQUIRES.filter((l) => l.file.test(args.path))) {
        if (!contents.includes(lazy.from)) throw new Error(`${args.path} no longer contains ${lazy.from}: update LAZY_OCLIF_REQUIRES in scripts/package/bundle.js`);
        contents = contents.replace(lazy.from, lazy.to);
      }
      return { contents, loader: 'js' };
    });
    // oclif's module loader reads command files from disk; the bundle's answers from the command map.
    build.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/]module-loader\.js$/ }, () => ({
      contents: readFileSync(join(HERE, 'oclif-module-loader.js'), 'utf8'),
      loader: 'js',
      resolveDir: HERE,
    }));
    // Our lazy `createRequire(import.meta.url)('yaml')` loads become plain requires esbuild can bundle, and
    // `import('ink')` (and the other packages of assets.js) loads of the asset that holds the package.
    build.onLoad({ filter: /[\\/]src[\\/].*\.tsx?$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const changed = source.replaceAll('createRequire(import.meta.url)(', 'require(').replace(ASSET_IMPORT, (_, _q, specifier) => `__kwatchImportPackage(${JSON.stringify(specifier)})`);
      if (changed === source) return undefined;
      return { contents: changed, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
});

/** Writes the bundle to outfile; returns its size in bytes. */
export async function bundle(outfile) {
  const result = await esbuild.build({
    entryPoints: ['kwatch:entry'],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    outfile,
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    // import.meta.url of the bundled ES modules: the executable itself (nothing is read beside it).
    define: { 'import.meta.url': '__kwatch_import_meta_url' },
    banner: { js: `var __kwatch_import_meta_url = require("node:url").pathToFileURL(process.execPath).href;\n${assetLoaderSource()}` },
    plugins: [virtualModules(bundledPjson())],
  });
  return Object.values(result.metafile.outputs)[0].bytes;
}
