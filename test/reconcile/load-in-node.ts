// Loads controller modules the way the built CLI does: a child `node` imports dist's module loader
// (run `npm run build` first). In-process loading under vitest would not tell: vite transforms every
// module it imports, .mjs and files in /tmp included, so Node's own errors and lines never show.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Which node runs the loader: this one, or another version to check (KWATCH_TEST_NODE=/path/to/node). */
const NODE = process.env.KWATCH_TEST_NODE ?? process.execPath;

export const LOADER = join(import.meta.dirname, '..', '..', 'dist', 'reconcile', 'module-loader.js');

export interface Loaded {
  ok: true;
  file: string;
  name: string;
  for?: string;
  cliResource?: string;
  moduleFor?: string;
  owns?: string[];
  watches?: { resource: string; mapped: unknown }[];
  /** What definition.reconcile returned for { name: 'web', namespace: 'default' }. */
  reconciled: unknown;
  /** What definition.errorPolicy returned, when there is one. */
  errorPolicy?: unknown;
}

export interface Failed {
  ok: false;
  error: string;
  kind: string;
  code?: string;
}

// Loads each case (a resource and files) in turn, in one process, as the CLI's loader does for one run: one result
// list per case, or one failure for the case.
const DRIVER = `
const { loadControllerModules } = await import(process.env.KWATCH_LOADER_URL);
const results = [];
for (const [cwd, resource, ...files] of JSON.parse(process.env.KWATCH_LOAD_CASES)) {
  // Each case from its own folder: the loader resolves the names given against the cwd, as the CLI does.
  if (cwd) process.chdir(cwd);
  try {
    const loaded = await loadControllerModules(files, resource ? { resource } : {});
    const out = [];
    for (const c of loaded) {
      const d = c.definition;
      const req = { namespace: 'default', name: 'web', reasons: [] };
      out.push({
        ok: true, file: c.file, name: c.name, for: d.for, cliResource: c.cliResource, moduleFor: c.moduleFor, owns: d.owns,
        watches: d.watches?.map((w) => ({ resource: w.resource, mapped: w.map({ metadata: { namespace: 'default', name: 'cm' } }) })),
        reconciled: (await d.reconcile(req, {})) ?? null,
        ...(d.errorPolicy ? { errorPolicy: (await d.errorPolicy(new Error('x'), req, {})) ?? null } : {}),
      });
    }
    results.push(out);
  } catch (e) {
    results.push([{ ok: false, error: e.message, kind: e.constructor.name, code: e.code }]);
  }
}
process.stdout.write(JSON.stringify(results));
`;

/** Files and RESOURCE as given on a command line; `cwd` (default: the call's) is the folder they are named from. */
export type LoadCase = [files: string[], resource?: string, cwd?: string];

/**
 * Loads each case (files relative to cwd, as a user would name them) in one child node, one after the other: per case,
 * one result per file or one failure; `stderr` is the child's, for all the cases. One process for several cases: a
 * node start and dist's loader (esbuild's service for TypeScript) cost ~0.2 s of CPU each time.
 */
export function loadCasesInNode(cwd: string, cases: LoadCase[]): Promise<{ results: (Loaded | Failed)[][]; stderr: string }> {
  if (!existsSync(LOADER)) throw new Error(`${LOADER} is missing: run npm run build first`);
  return new Promise((resolve, reject) => {
    execFile(
      NODE,
      ['--input-type=module', '-e', DRIVER],
      { cwd, timeout: 10_000 + 10_000 * cases.length, env: { ...process.env, KWATCH_LOADER_URL: pathToFileURL(LOADER).href, KWATCH_LOAD_CASES: JSON.stringify(cases.map(([files, resource, caseCwd]) => [caseCwd ?? '', resource ?? '', ...files])) } },
      (err, stdout, stderr) => {
        if (err && !stdout) return reject(new Error(`the loader's child failed: ${err.message}\n${stderr}`));
        resolve({ results: JSON.parse(stdout) as (Loaded | Failed)[][], stderr });
      },
    );
  });
}

/** Loads files (relative to cwd, as a user would name them) in a child node; one result per file, or one failure. */
export async function loadInNode(cwd: string, files: string[], resource?: string): Promise<(Loaded | Failed)[] & { stderr?: string }> {
  const { results: [results], stderr } = await loadCasesInNode(cwd, [[files, resource]]);
  return Object.assign(results, { stderr });
}

/** The error line of a case that must fail (throws when it loaded, or failed otherwise than a module error). */
export function errorLine(results: (Loaded | Failed)[], files: string[]): string {
  const [r] = results;
  if (r.ok) throw new Error(`${files.join(', ')} loaded, expected an error`);
  if (r.kind !== 'ControllerModuleError' || r.code !== 'CONTROLLER_MODULE') throw new Error(`not a ControllerModuleError: ${r.kind} ${r.error}`);
  return r.error;
}

/** The one error line loading files gives (fails the test if they load). */
export async function loadError(cwd: string, files: string[], resource?: string): Promise<string> {
  return errorLine(await loadInNode(cwd, files, resource), files);
}
