// Stands in for @oclif/core's lib/module-loader.js inside the single-file bundle: there is no file system
// to import commands from, so the explicit command target resolves to the command map the bundle carries.
// The map is imported on first use: the commands import @oclif/core, which imports this file.
// Anything else oclif tries to load from disk (plugins, hooks) is not part of kwatch and fails clearly.

function notBundled(path) {
  const error = new Error(`${path} is not part of the kwatch executable`);
  error.code = 'MODULE_NOT_FOUND';
  return error;
}

export async function load(_config, modulePath) {
  if (modulePath.endsWith('kwatch-commands')) return import('kwatch:commands');
  throw notBundled(modulePath);
}

export async function loadWithData(config, modulePath) {
  return { filePath: modulePath, isESM: false, module: await load(config, modulePath) };
}

export async function loadWithDataFromManifest(cached) {
  throw notBundled(cached.id);
}

export function isPathModule() {
  return false;
}
