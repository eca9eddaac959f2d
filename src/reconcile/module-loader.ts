// TEMPORARY minimal loader (replaced by the full one): ESM .js/.mjs only.
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ControllerDefinition } from './types.js';

export interface LoadedController {
  file: string;
  name: string;
  definition: ControllerDefinition;
  cliResource?: string;
  moduleFor?: string;
}

export async function loadControllerModule(file: string, opts: { resource?: string }): Promise<LoadedController> {
  const abs = resolve(file);
  const mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  const def = (typeof mod.default === 'object' && mod.default ? mod.default : { reconcile: mod.reconcile, errorPolicy: mod.errorPolicy }) as ControllerDefinition;
  const moduleFor = def.for;
  const definition = { ...def, for: def.for ?? opts.resource };
  return { file: abs, name: def.name ?? basename(abs, extname(abs)), definition, cliResource: opts.resource, moduleFor };
}

export async function loadControllerModules(files: string[], opts: { resource?: string }): Promise<LoadedController[]> {
  const out: LoadedController[] = [];
  for (const f of files) out.push(await loadControllerModule(f, opts));
  return out;
}
