// TypeScript controller modules through Node's own transpiler (module.stripTypeScriptTypes, Node ≥ 22.13),
// for the single executable, which carries no esbuild: in-thread module hooks (module.registerHooks,
// Node ≥ 22.15) transpile each .ts/.mts/.cts file as Node loads it — enums and parameter properties
// included (mode 'transform') — and resolve what TypeScript projects write: './x.js' meaning './x.ts',
// extensionless './x', './dir' for './dir/index.ts'. Packages resolve from node_modules as Node does.
import * as nodeModule from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hideExperimentalWarning } from './experimental-warnings.js';

interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
interface LoadResult {
  format: string;
  source?: string | Uint8Array;
  shortCircuit?: boolean;
}
interface SyncHooks {
  resolve(specifier: string, context: { parentURL?: string }, next: (specifier: string, context?: object) => ResolveResult): ResolveResult;
  load(url: string, context: { format?: string | null }, next: (url: string, context?: object) => LoadResult): LoadResult;
}
/** What @types/node 20 does not declare yet. */
interface NewerModuleApi {
  registerHooks?: (hooks: SyncHooks) => unknown;
  stripTypeScriptTypes?: (code: string, options: { mode: 'strip' | 'transform'; sourceMap?: boolean; sourceUrl?: string }) => string;
}

const api = nodeModule as unknown as NewerModuleApi;
const TYPESCRIPT_FILE = /\.(c|m)?ts$/;

/** Whether this Node can load TypeScript modules by itself (registerHooks and stripTypeScriptTypes). */
export function nodeLoadsTypeScript(): boolean {
  return typeof api.registerHooks === 'function' && typeof api.stripTypeScriptTypes === 'function';
}

let registeredFor: string | undefined;

/**
 * Installs the hooks once per process: 'kwatch' resolves to publicEntryUrl, TypeScript files are
 * transpiled on load. Throws when this Node cannot (see nodeLoadsTypeScript).
 */
export function registerTypeScriptHooks(publicEntryUrl: string): void {
  if (registeredFor === publicEntryUrl) return;
  if (registeredFor !== undefined) throw new Error(`'kwatch' already resolves to ${registeredFor}`);
  if (!api.registerHooks || !api.stripTypeScriptTypes) throw new Error(`Node ${process.version} cannot transpile TypeScript itself (Node ≥ 22.15 can)`);
  const strip = api.stripTypeScriptTypes;
  hideExperimentalWarning(/^stripTypeScriptTypes is an experimental feature/);
  registeredFor = publicEntryUrl;
  api.registerHooks({
    resolve(specifier, context, next) {
      if (specifier === 'kwatch') return { url: publicEntryUrl, shortCircuit: true };
      const fromTypeScript = context.parentURL !== undefined && TYPESCRIPT_FILE.test(context.parentURL);
      if (!fromTypeScript || !/^\.{1,2}\//.test(specifier)) return next(specifier, context);
      try {
        return next(specifier, context);
      } catch (err) {
        const found = typeScriptSibling(specifier, context.parentURL!);
        if (found === undefined) throw err;
        return { url: found, shortCircuit: true };
      }
    },
    load(url, context, next) {
      if (!url.startsWith('file:') || !TYPESCRIPT_FILE.test(url)) return next(url, context);
      const source = readFileSync(fileURLToPath(url), 'utf8');
      // An inline source map: stack traces (with source maps enabled) name the TypeScript lines.
      const code = strip(source, { mode: 'transform', sourceMap: true, sourceUrl: url });
      return { format: url.endsWith('.cts') ? 'commonjs' : 'module', source: code, shortCircuit: true };
    },
  });
}

/** './x.js' → './x.ts' (and .mjs → .mts, .cjs → .cts), './x' → './x.ts', './dir' → './dir/index.ts', if such a file exists. */
function typeScriptSibling(specifier: string, parentURL: string): string | undefined {
  const base = new URL(specifier, parentURL);
  const path = fileURLToPath(base);
  const candidates = [
    path.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts').replace(/\.cjs$/, '.cts'),
    `${path}.ts`,
    `${path}.mts`,
    `${path}.cts`,
    `${path}/index.ts`,
  ].filter((c) => c !== path);
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) return pathToFileURL(candidate).href;
    } catch {
      // not this one
    }
  }
  return undefined;
}
