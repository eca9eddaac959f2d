#!/usr/bin/env node
// kwatch: a kubectl-style debugger for the Kubernetes watch machinery.
import { tuneV8 } from '../dist/cli/startup.js';
import { runCli } from '../dist/cli/main.js';

tuneV8();

await runCli({ bin: 'kwatch' });
