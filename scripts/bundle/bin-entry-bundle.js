// A step of `npm run build` (npm-bundle.js): what bin/ requires, as CommonJS, so that a run of the npm CLI starts no ES
// module loader (5-11 ms of every run, docs/benchmarks.md Round 6) and reads two files instead of a dozen:
//  - dist/cli/compile-cache.cjs (src/cli/compile-cache.ts): Node's compile cache, turned on before the rest loads;
//  - dist/cli/bin-start.cjs (src/cli/bin-start.ts): the start-up path (bin-start, main, load-bundle and what they
//    import at their top). Every other import() stays an import() of its file in dist/cli, so each path of the CLI
//    loads what it loaded before (completion, help, the user's controllers).
// Both are made from the ES modules tsc wrote to dist/cli and sit beside them, with import.meta.url their own URL, so
// the paths those modules compute from it (the package root, ../kwatch.cjs) stay the same.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const DIST_CLI = fileURLToPath(new URL('../../dist/cli/', import.meta.url));

/** The import() targets bundled in: the ones every command run takes. */
const START_PATH = new Set(['./load-bundle.js']);

/** The files bin/ requires, in order. */
export const BIN_ENTRIES = ['compile-cache', 'bin-start'];

/** Builds dist/cli/NAME.cjs from dist/cli/NAME.js for each of BIN_ENTRIES; resolves with their sizes in bytes. */
export async function bundleBinEntries() {
  const sizes = {};
  for (const name of BIN_ENTRIES) {
    const result = await esbuild.build({
      entryPoints: [join(DIST_CLI, `${name}.js`)],
      outfile: join(DIST_CLI, `${name}.cjs`),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // import() kept as Node's own, so that what it loads (ES modules, the user's controllers) loads as before.
      supported: { 'dynamic-import': true },
      define: { 'import.meta.url': '__fileUrl' },
      banner: { js: "const __fileUrl = require('node:url').pathToFileURL(__filename).href;" },
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
    sizes[name] = Object.values(result.metafile.outputs)[0].bytes;
  }
  return sizes;
}
