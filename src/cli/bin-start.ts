// What bin/run.js, bin/kwatch and bin/kubectl-kwatch run once Node's compile cache is on (they differ only in
// the name help and usage lines use). --version, help and completion are answered by main.ts alone; the commands
// run from dist/kwatch.cjs, the whole CLI in one file (npm run build), which Node reads and compiles faster than
// the modules of dist/.
import { runCli, type CliOptions } from './main.js';
import type { OclifRunner } from './oclif-run.js';
import { tuneV8 } from './startup.js';

const BUNDLE = new URL('../kwatch.cjs', import.meta.url);

export async function startCli(bin: CliOptions['bin']): Promise<void> {
  tuneV8();
  await runCli({ bin, oclif: async () => ((await import('./load-bundle.js')).loadBundle(BUNDLE) as { runOclif: OclifRunner }).runOclif });
}
