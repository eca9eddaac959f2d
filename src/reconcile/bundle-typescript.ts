// A TypeScript controller module as one ES module Node 20 can run: esbuild bundles the module with
// its relative imports (so enums, extensionless imports and tsconfig paths work as in any TS
// project) and leaves packages as imports, which Node resolves from the bundle's folder — written
// beside the source, so they resolve exactly as from the module itself.
import type { Message, Plugin } from 'esbuild';
import { pathToFileURL } from 'node:url';
import { dirname } from 'node:path';

export type BundleResult = { ok: true; code: string; map: string } | { ok: false; errors: Message[] };

/**
 * Bundles entry as if written to outfile (a .mjs; source map paths are relative to it). `kwatch` becomes an
 * import of publicEntry, the running kwatch's public module.
 */
export async function bundleModule(entry: string, outfile: string, publicEntry: string): Promise<BundleResult> {
  // Imported here, not at the top: loading esbuild costs time every other command should not pay.
  const esbuild = await import('esbuild');
  const kwatchPublicEntry: Plugin = {
    name: 'kwatch-public-entry',
    setup(build) {
      build.onResolve({ filter: /^kwatch$/ }, () => ({ path: pathToFileURL(publicEntry).href, external: true }));
    },
  };
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      outfile,
      absWorkingDir: dirname(entry),
      bundle: true,
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      sourcemap: 'both',
      sourcesContent: false,
      write: false,
      logLevel: 'silent',
      plugins: [kwatchPublicEntry],
    });
    const code = result.outputFiles.find((f) => f.path.endsWith('.mjs'))?.text;
    const map = result.outputFiles.find((f) => f.path.endsWith('.map'))?.text;
    if (code === undefined || map === undefined) throw new Error(`esbuild wrote no ${code === undefined ? 'code' : 'source map'} for ${entry}`);
    return { ok: true, code, map };
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) return { ok: false, errors };
    throw err;
  }
}
