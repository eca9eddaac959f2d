// The README's tour cannot rot: every block marked runnable runs as written against the sim and must print what it
// shows (test/docs/run-blocks.ts).
import { join } from 'node:path';
import { describeRunnableBlocks, ROOT } from './run-blocks.js';

describeRunnableBlocks(join(ROOT, 'README.md'));
