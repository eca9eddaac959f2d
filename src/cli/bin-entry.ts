// What bin/ runs: Node's compile cache on, then the CLI. Bundled by `npm run build` into one CommonJS file,
// dist/cli/bin-entry.cjs (scripts/bundle/bin-entry-bundle.js), which bin/ requires: a run that loads no ES module
// never starts Node's ES module loader (5-11 ms of every run, docs/benchmarks.md Round 6), and reads one file
// instead of a dozen. The modules the CLI imports only on some paths (completion, help, the unbundled commands)
// stay outside it and load as they did.
import { enableCompileCache } from './compile-cache.js';
import { startCli } from './bin-start.js';
import type { CliOptions } from './main.js';

export function runBin(bin: CliOptions['bin']): Promise<void> {
  enableCompileCache();
  return startCli(bin);
}
