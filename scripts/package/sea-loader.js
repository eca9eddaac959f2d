// The single executable's main script: a few kilobytes that run the CLI's bundle, carried as the SEA asset
// kwatch.cjs, through src/cli/load-bundle.ts, which keeps V8's code for it on disk between runs. A main script
// compiled from the executable's own code cache holds only the code V8 compiles before running it; the code
// kept after a run holds every function that run compiled (issue 29: about 35 ms of each start).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { SIM_BUNDLE_NAME, SIM_SPECIFIER } from '../bundle/cli-bundle.js';
import { SHIPPED_BUNDLE } from '../bundle/esbuild-options.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The asset names the bundle and the sim's bundle are carried under. */
export const BUNDLE_ASSET = 'kwatch.cjs';
export { SIM_BUNDLE_NAME as SIM_ASSET };

/** Writes the main script to outfile. */
export async function buildSeaLoader(outfile) {
  await esbuild.build({
    stdin: {
      // V8's flags first: cached code is checked against the flags it was made under, and it is made at exit.
      contents: `import { tuneV8 } from ${JSON.stringify(join(ROOT, 'src/cli/startup.ts'))};\nimport { runSeaBundle } from ${JSON.stringify(join(ROOT, 'src/cli/load-bundle.ts'))};\ntuneV8();\nrunSeaBundle(${JSON.stringify(BUNDLE_ASSET)}, ${JSON.stringify({ specifier: SIM_SPECIFIER, asset: SIM_BUNDLE_NAME })}, require);\n`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    ...SHIPPED_BUNDLE,
    target: 'node24',
    format: 'cjs',
    outfile,
    // The loader's own import.meta.url is never read; esbuild only needs a value for the ES modules it bundles.
    define: { 'import.meta.url': '"file:///kwatch-sea-loader"' },
  });
}
