#!/usr/bin/env node
// kwatch: a kubectl-style debugger for the Kubernetes watch machinery.
import module from 'node:module';

// Node >= 22.1 keeps V8's compiled code of these modules on disk between runs (~15% of a short run on
// Node 24); Node 20 has no such cache. It must be on before the modules load, hence the dynamic imports.
module.enableCompileCache?.();
const { tuneV8 } = await import('../dist/cli/startup.js');
const { runCli } = await import('../dist/cli/main.js');

tuneV8();

await runCli({ bin: 'kwatch' });
