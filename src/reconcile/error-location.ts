// Where in the user's source an error happened, read from what Node puts in err.stack: the
// "FILE:LINE" header of a SyntaxError, and the stack frames of an error thrown while a module loads.
import { SourceMap } from 'node:module';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface SourceLocation {
  /** Absolute path. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, when known. */
  column?: number;
}

/** The bundle kwatch imported in place of a TypeScript module, and its source map back to the sources. */
export interface TranspiledFile {
  path: string;
  sourceMap: SourceMap;
}

/** Node's CommonJS (and newer Node's ESM) SyntaxError starts its stack with "FILE:LINE", the line, and carets. */
export function syntaxErrorLocation(stack: string | undefined, transpiled?: TranspiledFile): SourceLocation | undefined {
  const m = /^(file:\/\/\S+?|\/.+?|[A-Za-z]:\\.+?):(\d+)\r?\n(.*)\r?\n( *)\^/.exec(stack ?? '');
  if (!m) return undefined;
  const loc = { file: toPath(m[1]), line: Number(m[2]), column: m[4].length + 1 };
  return transpiled && loc.file === transpiled.path ? mapBack(transpiled, loc) : loc;
}

/**
 * The first stack frame in the user's own code: not Node's internals, not node_modules, not kwatch's
 * own files; frames in a transpiled bundle are mapped back to the TypeScript source.
 */
export function thrownAt(stack: string | undefined, opts: { skipUnder: string; transpiled?: TranspiledFile }): SourceLocation | undefined {
  let fallback: SourceLocation | undefined;
  for (const frame of (stack ?? '').split('\n')) {
    const m = /^\s+at (?:.*\()?(file:\/\/.+?|\/.+?|[A-Za-z]:\\.+?):(\d+):(\d+)\)?$/.exec(frame);
    if (!m) continue;
    let loc: SourceLocation | undefined = { file: toPath(m[1]), line: Number(m[2]), column: Number(m[3]) };
    if (opts.transpiled && loc.file === opts.transpiled.path) loc = mapBack(opts.transpiled, loc);
    if (!loc) continue;
    if (loc.file.startsWith(opts.skipUnder)) continue;
    if (/[\\/]node_modules[\\/]/.test(loc.file)) {
      fallback ??= loc;
      continue;
    }
    return loc;
  }
  return fallback;
}

/** A location in the bundle → the same place in its source (Node maps only when source maps are enabled). */
function mapBack(transpiled: TranspiledFile, loc: SourceLocation): SourceLocation | undefined {
  const entry = transpiled.sourceMap.findEntry(loc.line - 1, (loc.column ?? 1) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (!entry.originalSource || entry.originalLine === undefined) return undefined;
  const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : resolve(dirname(transpiled.path), entry.originalSource);
  return { file: source, line: entry.originalLine + 1, column: (entry.originalColumn ?? 0) + 1 };
}

function toPath(fileOrUrl: string): string {
  return fileOrUrl.startsWith('file://') ? fileURLToPath(fileOrUrl) : fileOrUrl;
}

/** Replaces the bundle's path and URL in a message with the source's. */
export function unbundled(text: string, transpiled: TranspiledFile | undefined, source: string): string {
  if (!transpiled) return text;
  return text.split(pathToFileURL(transpiled.path).href).join(pathToFileURL(source).href).split(transpiled.path).join(source);
}

/** kwatch's own code (src/ or dist/): frames in it are never the user's line. */
const OWN_CODE = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where a reconcile's error was thrown in the user's code, as FILE:LINE (relative to the working
 * directory when under it). Frames of a TypeScript module are already mapped back by Node (the loader
 * enables source maps).
 */
export function userErrorSite(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const at = thrownAt(err.stack, { skipUnder: OWN_CODE });
  if (!at) return undefined;
  const rel = relative(process.cwd(), at.file);
  const file = rel && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel : at.file;
  return `${file}:${at.line}`;
}
