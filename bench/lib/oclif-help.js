// `kwatch events --help` as oclif itself answers it (what the CLI would cost without src/cli/fast-help.ts): the
// commands' path of bin/run.js — dist/kwatch.cjs, the bundle, through dist/cli/load-bundle.js — minus the fast
// path. Used by bench/cold-start.js.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

module.enableCompileCache?.();
const { tuneV8 } = await import('../../dist/cli/startup.js');
const { loadBundle } = await import('../../dist/cli/load-bundle.js');
tuneV8();
const { runOclif } = loadBundle(new URL('../../dist/kwatch.cjs', import.meta.url));
await runOclif(['events', '--help'], { bin: 'kwatch', root: fileURLToPath(new URL('../..', import.meta.url)) });
