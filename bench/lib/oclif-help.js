// `kwatch events --help` as oclif itself answers it (what the CLI would cost without src/cli/fast-help.ts):
// the same Config.load and run() as src/cli/main.ts, minus the fast path. Used by bench/cold-start.js.
import { Config, flush, run } from '@oclif/core';
import { fileURLToPath } from 'node:url';

const config = await Config.load({ root: fileURLToPath(new URL('../..', import.meta.url)) });
await run(['events', '--help'], config);
await flush();
