#!/usr/bin/env node
// The last steps of `npm run build`: dist/kwatch.cjs, the whole CLI in one file, which bin/ loads. Node then reads
// and compiles one file instead of resolving some 400 modules at every start (issue 29).
import { bundleBinEntries } from './bin-entry-bundle.js';
import { NPM_BUNDLE, bundle } from './cli-bundle.js';

const bytes = await bundle(NPM_BUNDLE, 'npm');
console.log(`dist/kwatch.cjs: ${(bytes / 1e6).toFixed(1)} MB`);
for (const [name, size] of Object.entries(await bundleBinEntries())) console.log(`dist/cli/${name}.cjs: ${(size / 1e3).toFixed(0)} kB`);
