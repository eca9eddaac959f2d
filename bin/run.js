#!/usr/bin/env node
// kwatch: a kubectl-style debugger for the Kubernetes watch machinery.

// CommonJS (bin/package.json), as is what it requires, so that a run starts no ES module loader
// (scripts/bundle/bin-entry-bundle.js). Node >= 22.1 keeps V8's compiled code on disk between runs (~15% of a short
// run on Node 24), in a folder only the user can write (src/cli/compile-cache.ts); Node 20 has no such cache (the
// CLI's bundle has its own, on every Node: src/cli/load-bundle.ts). It must be on before the CLI loads, hence two files.
require('../dist/cli/compile-cache.cjs').enableCompileCache();
require('../dist/cli/bin-start.cjs').startCli('kwatch');
