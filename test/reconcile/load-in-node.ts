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

const DRIVER = `
const { loadControllerModules } = await import(process.env.KWATCH_LOADER_URL);
const [resource, ...files] = JSON.parse(process.env.KWATCH_LOAD_ARGS);
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
  process.stdout.write(JSON.stringify(out));
} catch (e) {
  process.stdout.write(JSON.stringify([{ ok: false, error: e.message, kind: e.constructor.name, code: e.code }]));
}
`;

/** Loads files (relative to cwd, as a user would name them) in a child node; one result per file, or one failure. */
export function loadInNode(cwd: string, files: string[], resource?: string): Promise<(Loaded | Failed)[] & { stderr?: string }> {
  if (!existsSync(LOADER)) throw new Error(`${LOADER} is missing: run npm run build first`);
  return new Promise((resolve, reject) => {
    execFile(
      NODE,
      ['--input-type=module', '-e', DRIVER],
      { cwd, timeout: 20_000, env: { ...process.env, KWATCH_LOADER_URL: pathToFileURL(LOADER).href, KWATCH_LOAD_ARGS: JSON.stringify([resource ?? '', ...files]) } },
      (err, stdout, stderr) => {
        if (err && !stdout) return reject(new Error(`the loader's child failed: ${err.message}\n${stderr}`));
        const results = JSON.parse(stdout) as (Loaded | Failed)[] & { stderr?: string };
        results.stderr = stderr;
        resolve(results);
      },
    );
  });
}

/** The one error line loading files gives (fails the test if they load). */
export async function loadError(cwd: string, files: string[], resource?: string): Promise<string> {
  const [r] = await loadInNode(cwd, files, resource);
  if (r.ok) throw new Error(`${files.join(', ')} loaded, expected an error`);
  if (r.kind !== 'ControllerModuleError' || r.code !== 'CONTROLLER_MODULE') throw new Error(`not a ControllerModuleError: ${r.kind} ${r.error}`);
  return r.error;
}
