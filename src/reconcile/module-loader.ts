// Loads the user's controller modules for `kwatch reconcile --with FILE`: JavaScript (.js, .mjs, .cjs)
// through Node itself, TypeScript (.ts, .mts, .cts) bundled by esbuild first — or, in the single
// executable (no esbuild), transpiled file by file by Node's own TypeScript support. Every failure is
// one ControllerModuleError line naming the file, and the line where Node or esbuild can tell it.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { isSea } from 'node:sea';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleModule } from './bundle-typescript.js';
import { ControllerModuleError } from './controller-module-error.js';
import { controllerShape } from './controller-shape.js';
import { syntaxErrorLocation, thrownAt, unbundled, type SourceLocation, type TranspiledFile } from './error-location.js';
import { resolveKwatchTo } from './kwatch-resolve-hook.js';
import { importModule } from './import-module.js';
import { nodeLoadsTypeScript, registerTypeScriptHooks } from './node-typescript-hooks.js';
import type { ControllerDefinition } from './types.js';

export { ControllerModuleError } from './controller-module-error.js';

export interface LoadOptions {
  /** RESOURCE from the command line: the primary resource of a module that names none. */
  resource?: string;
}

export interface LoadedController {
  /** Absolute path of the module. */
  file: string;
  /** definition.name: the module's own name, else the file's basename without its extension. */
  name: string;
  /** Normalised: name and `for` always set (`for` is the module's own, else the command line's). */
  definition: ControllerDefinition;
  /** RESOURCE as the command line gave it. */
  cliResource?: string;
  /** The primary resource the module itself names; when both are given, the caller checks they agree. */
  moduleFor?: string;
}

const JAVASCRIPT = ['.js', '.mjs', '.cjs'];
const TYPESCRIPT = ['.ts', '.mts', '.cts'];

/** What `import … from 'kwatch'` means in a user's module: the running kwatch's public entry. */
const PUBLIC_ENTRY = fileURLToPath(new URL('../index.js', import.meta.url));
/**
 * The single executable has no public entry file beside it: 'kwatch' is this module instead. It holds
 * the public module's one runtime export, defineController, which is the identity (reconcile/types.ts).
 */
const EMBEDDED_PUBLIC_ENTRY = 'data:text/javascript,export const defineController = (definition) => definition;';

/** The single executable: no esbuild and no dist/ beside it; Node (24) loads TypeScript itself. */
const singleExecutable = (): boolean => isSea();

/**
 * kwatch's own compiled code: frames in it are never the user's line. In the single executable that is
 * its bundle, which stack frames name by the path it was built at (the folder beside the executable may
 * well hold the user's modules).
 */
const OWN_CODE = singleExecutable() ? (ownFrameFile() ?? process.execPath) : fileURLToPath(new URL('..', import.meta.url));

/** The file this code runs from, as stack frames name it. */
function ownFrameFile(): string | undefined {
  const frame = /^\s+at (?:.*\()?(\/.+?|[A-Za-z]:\\.+?):\d+:\d+\)?$/m.exec(new Error().stack ?? '');
  return frame?.[1];
}

export async function loadControllerModule(file: string, opts: LoadOptions = {}): Promise<LoadedController> {
  const module = { abs: resolve(file), display: file };
  const cannot = (why: string, cause?: unknown) => new ControllerModuleError(`cannot load ${file}: ${why}`, module.abs, { cause });
  let isDirectory;
  try {
    isDirectory = statSync(module.abs).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw cannot(code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : (err as Error).message, err);
  }
  if (isDirectory) throw cannot('it is a directory, not a module file');
  const ext = extname(module.abs);
  const kinds = [...JAVASCRIPT, ...TYPESCRIPT].join(', ');
  if (!JAVASCRIPT.includes(ext) && !TYPESCRIPT.includes(ext)) throw cannot(ext ? `unsupported extension '${ext}' (kwatch loads ${kinds})` : `it has no extension (kwatch loads ${kinds})`);

  const exports = TYPESCRIPT.includes(ext) ? await importTypeScript(module) : await importJavaScript(module);
  const shape = controllerShape(exports, { display: file, file: module.abs, defaultName: basename(module.abs, ext), resource: opts.resource });
  return {
    file: module.abs,
    name: shape.name,
    definition: shape.definition,
    ...(opts.resource !== undefined ? { cliResource: opts.resource } : {}),
    ...(shape.moduleFor !== undefined ? { moduleFor: shape.moduleFor } : {}),
  };
}

/** Loads each file in order; two controllers may not share a name (it keys their runs and trace lines). */
export async function loadControllerModules(files: readonly string[], opts: LoadOptions = {}): Promise<LoadedController[]> {
  const loaded: LoadedController[] = [];
  for (const file of files) {
    const controller = await loadControllerModule(file, opts);
    const twin = loaded.findIndex((c) => c.name === controller.name);
    if (twin !== -1) {
      throw new ControllerModuleError(`${file}: its controller is named '${controller.name}', like the one in ${files[twin]}; give one of them another name (name: '…' in its definition)`, controller.file);
    }
    loaded.push(controller);
  }
  return loaded;
}

interface ModuleFile {
  abs: string;
  /** The path as the user gave it. */
  display: string;
}

async function importJavaScript(module: ModuleFile): Promise<Record<string, unknown>> {
  if (singleExecutable()) registerTypeScriptHooks(EMBEDDED_PUBLIC_ENTRY);
  else resolveKwatchTo(pathToFileURL(PUBLIC_ENTRY).href);
  try {
    return await importModule(pathToFileURL(module.abs).href);
  } catch (err) {
    throw await loadError(err, module);
  }
}

async function importTypeScript(module: ModuleFile): Promise<Record<string, unknown>> {
  if (singleExecutable()) return importTypeScriptWithNode(module);
  const ext = extname(module.abs);
  // Beside the source, so the bundle's package imports resolve from the module's own node_modules.
  const bundlePath = join(dirname(module.abs), `.kwatch-${basename(module.abs, ext)}-${randomBytes(4).toString('hex')}.mjs`);
  const bundle = await bundleModule(module.abs, bundlePath, PUBLIC_ENTRY);
  if (!bundle.ok) throw bundleError(bundle.errors[0], module);
  const transpiled: TranspiledFile = { path: bundlePath, sourceMap: new SourceMap(JSON.parse(bundle.map)) };
  try {
    writeFileSync(bundlePath, bundle.code, { flag: 'wx' });
  } catch (err) {
    throw new ControllerModuleError(`cannot load ${module.display}: cannot write the transpiled module beside it (${(err as Error).message})`, module.abs, { cause: err });
  }
  try {
    // Later errors thrown by reconcile then name the TypeScript source's lines too (the bundle has an inline map).
    process.setSourceMapsEnabled(true);
    return (await import(pathToFileURL(bundlePath).href)) as Record<string, unknown>;
  } catch (err) {
    throw await loadError(err, module, transpiled);
  } finally {
    rmSync(bundlePath, { force: true });
  }
}

/** The single executable's way: Node transpiles each TypeScript file as it loads it (node-typescript-hooks.ts). */
async function importTypeScriptWithNode(module: ModuleFile): Promise<Record<string, unknown>> {
  if (!nodeLoadsTypeScript()) throw new ControllerModuleError(`cannot load ${module.display}: Node ${process.version} cannot transpile TypeScript (Node ≥ 22.15 can); compile it to .js/.mjs`, module.abs);
  registerTypeScriptHooks(EMBEDDED_PUBLIC_ENTRY);
  // Stack traces then name the TypeScript lines (each transpiled file carries an inline source map).
  process.setSourceMapsEnabled(true);
  try {
    return await importModule(pathToFileURL(module.abs).href);
  } catch (err) {
    throw await loadError(err, module);
  }
}

/** One line for an error Node threw while importing the module (or a module it imports). */
async function loadError(err: unknown, module: ModuleFile, transpiled?: TranspiledFile): Promise<ControllerModuleError> {
  const make = (message: string) => new ControllerModuleError(message, module.abs, { cause: err });
  if (!(err instanceof Error)) return make(`${module.display}: ${String(err)} (thrown while loading the module)`);
  const message = firstLine(unbundled(err.message, transpiled, module.abs)) + hintFor(err, module);
  const named = err.name && err.name !== 'Error' ? `${err.name}: ${message}` : message;

  const header = err.name === 'SyntaxError' ? syntaxErrorLocation(err.stack, transpiled) : undefined;
  if (header) return make(`${place(header, module, true)}: ${named}`);
  const thrown = thrownAt(err.stack, { skipUnder: OWN_CODE, transpiled });
  if (thrown) return make(`${place(thrown, module, false)}: ${named} (thrown while loading ${thrown.file === module.abs ? 'the module' : module.display})`);

  // No frame of the user's: the module failed to parse or link. Node 20 names no place for an ES
  // module's syntax error, nor for an import it cannot find: esbuild, reading the same files, can.
  if (!transpiled && !singleExecutable()) {
    const check = await bundleModule(module.abs, join(dirname(module.abs), '.kwatch-check.mjs'), PUBLIC_ENTRY);
    if (!check.ok) return bundleError(check.errors[0], module, err);
  }
  const missing = /^Cannot find (?:package|module) '([^']+)' imported from (.+)$/.exec(message);
  if (missing) {
    const importers = transpiled ? bundledSources(transpiled) : [missing[2].startsWith('file:') ? fileURLToPath(missing[2]) : missing[2]];
    const at = importLine(missing[1], importers);
    if (at) return make(`${place(at, module, false)}: ${named}`);
  }
  return make(`${module.display}: ${named} (while loading the module)`);
}

/** What to do about a failure users meet for a known reason. */
function hintFor(err: Error, module: ModuleFile): string {
  if (err.name === 'SyntaxError' && extname(module.abs) === '.js' && /Cannot use import statement outside a module|Unexpected token 'export'/.test(err.message)) {
    return ' (Node loads this .js file as CommonJS: rename it .mjs, or set "type": "module" in its package.json)';
  }
  if (/^Cannot find module 'kwatch'/.test(err.message)) {
    return ' (require() cannot see the running kwatch: use import { defineController } from \'kwatch\' in an ES module (.mjs), or export a plain object)';
  }
  return '';
}

/** The first line of files that names specifier in quotes (the import Node could not resolve). */
function importLine(specifier: string, files: string[]): SourceLocation | undefined {
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const lines = text.split('\n');
    const i = lines.findIndex((l) => l.includes(`'${specifier}'`) || l.includes(`"${specifier}"`) || l.includes(`\`${specifier}\``));
    if (i !== -1) return { file, line: i + 1 };
  }
  return undefined;
}

/** The source files esbuild put into a bundle, the entry last (esbuild lists imports before importers). */
function bundledSources(transpiled: TranspiledFile): string[] {
  const sources = (transpiled.sourceMap.payload as { sources?: string[] }).sources ?? [];
  return sources.map((s) => (s.startsWith('file:') ? fileURLToPath(s) : resolve(dirname(transpiled.path), s)));
}

/** esbuild's first error: FILE:LINE:COL, and SyntaxError unless it is an import it could not resolve. */
function bundleError(error: import('esbuild').Message, module: ModuleFile, cause?: unknown): ControllerModuleError {
  const text = error.text.split('\n')[0];
  const kind = /^Could not resolve|^No matching export/.test(text) ? '' : 'SyntaxError: ';
  if (!error.location) return new ControllerModuleError(`${module.display}: ${kind}${text}`, module.abs, { cause });
  const at = { file: resolve(dirname(module.abs), error.location.file), line: error.location.line, column: error.location.column + 1 };
  return new ControllerModuleError(`${place(at, module, true)}: ${kind}${text}`, module.abs, { cause });
}

/** FILE:LINE[:COL], FILE as the user gave it for the module itself, relative to the cwd for others inside it. */
function place(at: SourceLocation, module: ModuleFile, withColumn: boolean): string {
  let file = at.file;
  if (file === module.abs) file = module.display;
  else {
    const rel = relative(process.cwd(), file);
    if (rel && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)) file = rel;
  }
  return `${file}:${at.line}${withColumn && at.column !== undefined ? `:${at.column}` : ''}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0].trim();
}
