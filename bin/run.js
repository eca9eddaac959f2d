#!/usr/bin/env node
// kwatch: a kubectl-style debugger for the Kubernetes watch machinery.
import module from 'node:module';

// Node >= 22.1 keeps V8's compiled code on disk between runs (~15% of a short run on Node 24); Node 20 has no
// such cache. It must be on before the CLI loads, hence the dynamic imports.
module.enableCompileCache?.();
const { tuneV8 } = await import('../dist/cli/startup.js');
const { runCli } = await import('../dist/cli/main.js');

tuneV8();

// --version, help and completion are answered by main.js alone; the commands run from dist/kwatch.cjs, the
// whole CLI in one file (npm run build), which Node reads and compiles faster than the modules of dist/.
const bundle = new URL('../dist/kwatch.cjs', import.meta.url);
await runCli({ bin: 'kwatch', oclif: async () => (await import('../dist/cli/load-bundle.js')).loadBundle(bundle).runOclif });
