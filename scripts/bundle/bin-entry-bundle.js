// A step of `npm run build` (npm-bundle.js): dist/cli/bin-entry.cjs, what bin/ requires (src/cli/bin-entry.ts), from
// the ES modules tsc wrote to dist/cli. Only the start-up path goes in (bin-entry, bin-start, main, load-bundle and
// what they import at their top); every other import() stays an import() of its file in dist/, so each path of the
// CLI loads what it loaded before. import.meta.url is the .cjs file's own URL: it sits in dist/cli beside the
// modules it was made from, so the paths they compute from it (the package root, ../kwatch.cjs) stay the same.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const DIST_CLI = fileURLToPath(new URL('../../dist/cli/', import.meta.url));

/** The import() targets bundled in: the ones every command run takes. */
const START_PATH = new Set(['./load-bundle.js']);

export const BIN_ENTRY = join(DIST_CLI, 'bin-entry.cjs');

export async function bundleBinEntry() {
  const result = await esbuild.build({
    entryPoints: [join(DIST_CLI, 'bin-entry.js')],
    outfile: BIN_ENTRY,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // import() kept as Node's own, so that what it loads (ES modules, the user's controllers) loads as before.
    supported: { 'dynamic-import': true },
    define: { 'import.meta.url': '__binEntryUrl' },
    banner: { js: "const __binEntryUrl = require('node:url').pathToFileURL(__filename).href;" },
    packages: 'external',
    logLevel: 'error',
    metafile: true,
    plugins: [
      {
        name: 'start-path-only',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' && !START_PATH.has(args.path) ? { path: args.path, external: true } : undefined));
        },
      },
    ],
  });
  return result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes;
}
