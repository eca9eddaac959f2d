// A Node single executable application: the bundle turned into a SEA blob by the target's own Node
// version, then injected into a copy of that platform's Node binary with postject.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'postject';

/** The fuse Node checks to know a blob was injected (documented with single executable applications). */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/**
 * Builds the blob with `generator` (a Node of the same version that can run here). The V8 code cache is
 * only valid for the machine kind that made it, so it is included only when the generator's platform is
 * the target's: Node's documentation asks for useCodeCache false when building for another platform.
 */
export function seaBlob({ generator, mainPath, assets = {}, workDir, codeCache }) {
  const blob = join(workDir, codeCache ? 'sea-code-cache.blob' : 'sea.blob');
  const config = join(workDir, codeCache ? 'sea-code-cache.json' : 'sea.json');
  writeFileSync(config, JSON.stringify({
    main: mainPath,
    output: blob,
    // The CLI's bundle (sea-loader.js runs it) and second entries it loads on demand (assets.js).
    assets,
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache,
    // No startup snapshot: Node 24.21 aborts building one whose heap holds node:http (V8's
    // CheckGlobalAndEternalHandles, nodejs/node#48672), which undici, the request log and the sim load;
    // and the bundle's modules read process.env, argv and the terminal as they load, which a snapshot
    // would freeze at the build machine's values. Measured in issue 29's note.
    useSnapshot: false,
  }));
  execFileSync(generator, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  return readFileSync(blob);
}

/** Copies the target's Node binary to `output` and injects the blob. */
export async function injectBlob({ nodeBinary, blob, output, os }) {
  copyFileSync(nodeBinary, output);
  chmodSync(output, 0o755);
  await inject(output, 'NODE_SEA_BLOB', blob, {
    sentinelFuse: SENTINEL_FUSE,
    ...(os === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
}
