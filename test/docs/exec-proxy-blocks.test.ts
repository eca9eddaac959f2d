// The CI-gate recipes of docs/exec-proxy.md cannot rot: every block marked runnable runs as written against the sim
// and must exit and print as it shows (test/docs/run-blocks.ts).
import { join } from 'node:path';
import { describeRunnableBlocks, ROOT } from './run-blocks.js';

describeRunnableBlocks(join(ROOT, 'docs', 'exec-proxy.md'));
