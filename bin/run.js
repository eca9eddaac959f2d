#!/usr/bin/env node
// kwatch: a kubectl-style debugger for the Kubernetes watch machinery.
import { runCli } from '../dist/cli/main.js';

await runCli({ bin: 'kwatch' });
