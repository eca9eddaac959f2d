// Entry point shared by bin/run.js (kwatch) and bin/kubectl-kwatch (the kubectl plugin): the only
// difference is the name help and usage lines use.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function runCli(opts: { bin: 'kwatch' | 'kubectl kwatch'; argv?: string[] }): Promise<void> {
  const argv = opts.argv ?? process.argv.slice(2);
  const { Config, run, flush, handle } = await import('@oclif/core');
  const config = await Config.load({ root: packageRoot });
  config.bin = opts.bin;
  try {
    await run(argv, config);
    await flush();
  } catch (err) {
    await handle(err as Error);
  }
}
