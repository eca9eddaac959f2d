// kwatch's own code cache for dist/kwatch.cjs and dist/kwatch-sim.cjs (src/cli/load-bundle.ts), on every Node,
// Node 20 included: a second run takes V8's code for both bundles from the user's cache folder, and what the
// bundle import()s still loads from that code. On Node 20 an import() written in a script V8 compiled from
// cached code fails (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): the bundle's go through its loader's importer.
// Here a TypeScript controller: esbuild (a package the bundle leaves to node_modules) builds it, and the build is
// import()ed by URL, as any user's controller.
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const dir = tempDir('kwatch-code-cache-imports-');

/** The cache files of the two bundles, name → mtime. */
function cacheFiles(cacheHome: string): Map<string, number> {
  const folder = join(cacheHome, 'kwatch');
  return new Map(readdirSync(folder).filter((f) => f.endsWith('.code')).map((f) => [f, statSync(join(folder, f)).mtimeMs]));
}

it('a second run takes both bundles\' code from the cache, and a TypeScript controller (esbuild, then import()) runs from it', { timeout: 120_000 }, async () => {
  const controller = join(dir, 'stamp.ts');
  writeFileSync(
    controller,
    `const label: string = 'from-typescript';
export default { name: 'stamp', for: 'deployments.apps', async reconcile(req: { namespace?: string; name: string }, ctx: { log(...a: unknown[]): void }): Promise<void> { ctx.log(label, req.name); } };
`,
  );
  // A cache folder of this test's own, so the first run is cold whatever ran before; NODE_DISABLE_COMPILE_CACHE
  // (which turns this cache off too) unset.
  const env = { XDG_CACHE_HOME: join(dir, 'cache'), NODE_DISABLE_COMPILE_CACHE: '' };
  const reconcile = () => kwatch(['reconcile', '--with', controller, '--sim', '-n', 'kube-system', '--once'], env);

  const cold = await reconcile();
  expect(cold.stderr).toMatch(/^converged: /m);
  expect(cold.stdout).toContain('from-typescript coredns');
  expect(cold.code).toBe(0);
  const written = cacheFiles(env.XDG_CACHE_HOME);
  expect([...written.keys()].map((f) => f.replace(/-[0-9a-f]{32}-.*/, '')).sort()).toEqual(['kwatch-sim.cjs', 'kwatch.cjs']);

  const warm = await reconcile();
  expect(warm.stderr).toMatch(/^converged: /m);
  expect(warm.stdout).toContain('from-typescript coredns');
  expect(warm.code).toBe(0);
  // V8 took both files: a file it rejects is written again when the run exits.
  expect(cacheFiles(env.XDG_CACHE_HOME)).toEqual(written);
});
