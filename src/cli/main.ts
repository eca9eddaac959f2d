// Entry point shared by bin/run.js (kwatch) and bin/kubectl-kwatch (the kubectl plugin): the only
// difference is the name help and usage lines use.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function runCli(opts: { bin: 'kwatch' | 'kubectl kwatch'; argv?: string[] }): Promise<void> {
  const argv = opts.argv ?? process.argv.slice(2);
  const { run, flush, handle } = await import('@oclif/core');
  // oclif rebuilds its Config from package.json, so the plugin's name goes in through pjson.oclif.bin.
  const pjson = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
  pjson.oclif.bin = opts.bin;
  try {
    await run(argv, { root: packageRoot, pjson });
    await flush();
  } catch (err) {
    await handle(err as Error);
  }
}
