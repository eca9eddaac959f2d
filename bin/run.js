#!/usr/bin/env node
// kwatch: a kubectl-style debugger for the Kubernetes watch machinery.

// CommonJS (bin/package.json), as is what it requires, so that a run starts no ES module loader
// (src/cli/bin-entry.ts): it turns Node's compile cache on and runs the CLI.
require('../dist/cli/bin-entry.cjs').runBin('kwatch');
