#!/usr/bin/env node
// The demo: an embedded simulated cluster with churn, watched stage by stage through kwatch's
// informer pipeline, then a paged LIST and an index query — all against the embedded API server.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const kwatch = join(root, 'bin', 'run.js');

const steps = [
  ['Watch pods through the whole pipeline (8 s of churn)', ['events', 'pods', '--sim', '--sim-churn', '10', '--for', '8s']],
  ['The raw watch stream of the default namespace, as the server sends it (5 s)', ['events', 'pods', '--raw', '--sim', '--sim-churn', '20', '--for', '5s']],
  ['A paged LIST, one row per page', ['list', 'pods', '-A', '--sim', '--sim-pods', '60', '--page-size', '25']],
  ['How pods spread over nodes (the indexer)', ['index', 'pods', '-A', '--by', 'nodeName', '--sim']],
];

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [kwatch, ...args], { stdio: 'inherit', env: { ...process.env } });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

let failed = 0;
for (const [title, args] of steps) {
  process.stdout.write(`\n\x1b[1m== ${title}\x1b[0m\n$ kwatch ${args.join(' ')}\n\n`);
  const code = await run(args);
  if (code !== 0) {
    failed++;
    process.stdout.write(`(exit code ${code})\n`);
  }
}
process.exitCode = failed ? 1 : 0;
