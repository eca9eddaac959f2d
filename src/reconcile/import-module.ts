// import() of a user's module by URL. In a Node single executable, an import() written in the bundled
// code cannot load from the file system; a function compiled with vm and Node's default loader can,
// so the executable imports through one (Node ≥ 20.12). Elsewhere a plain import() does the same.
import { isSea } from 'node:sea';
import { Script, constants } from 'node:vm';
import { hideExperimentalWarning } from './experimental-warnings.js';

type Importer = (url: string) => Promise<Record<string, unknown>>;
let viaVm: Importer | undefined;

export function importModule(url: string): Promise<Record<string, unknown>> {
  if (!isSea()) return import(url) as Promise<Record<string, unknown>>;
  if (!viaVm) {
    hideExperimentalWarning(/^vm\.USE_MAIN_CONTEXT_DEFAULT_LOADER is an experimental feature/);
    viaVm = new Script('(url) => import(url)', { importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }).runInThisContext() as Importer;
  }
  return viaVm(url);
}
