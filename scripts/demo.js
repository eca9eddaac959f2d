#!/usr/bin/env node
// The demo: an embedded simulated cluster with churn, watched stage by stage through kwatch's
// informer pipeline; a Deployment rolled out by the sim's controllers, seen by the informer; then a
// paged LIST and an index query — all against the embedded API server, no cluster or kubectl needed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `kwatch sim` with its controllers, a `kwatch events` on an empty namespace, then the requests
 * `kubectl create namespace demo` and `kubectl create deployment web --image=nginx --replicas=2 -n demo`
 * make (sent here over HTTP, so the demo needs no kubectl): the informer sees the pods the sim's
 * ReplicaSet controller creates, scheduled and started, stage by stage.
 */
async function rolloutStep() {
  const dir = mkdtempSync(join(tmpdir(), 'kwatch-demo-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const sim = spawn(process.execPath, [kwatch, 'sim', '--port', '0', '--kubeconfig-out', kubeconfig, '--pods', '0', '--nodes', '3', '--churn', '0'], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 100 && !existsSync(kubeconfig); i++) await sleep(50);
    const server = /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1];
    if (!server) return 1;
    const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
    const watching = new Promise((resolve) => {
      const child = spawn(process.execPath, [kwatch, 'events', 'pods', '-n', 'demo', '--stages', 'watch,handler', '--for', '6s'], { stdio: 'inherit', env });
      child.on('exit', (code) => resolve(code ?? 1));
    });
    await sleep(1500);
    process.stdout.write('$ kubectl create namespace demo && kubectl create deployment web --image=nginx --replicas=2 -n demo\n');
    const post = (path, body) => globalThis.fetch(`${server}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
    const labels = { app: 'web' };
    await post('/apis/apps/v1/namespaces/demo/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    });
    return await watching;
  } finally {
    sim.kill('SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}

let failed = 0;
const report = (code) => {
  if (code === 0) return;
  failed++;
  process.stdout.write(`(exit code ${code})\n`);
};
for (const [i, [title, args]] of steps.entries()) {
  process.stdout.write(`\n\x1b[1m== ${title}\x1b[0m\n$ kwatch ${args.join(' ')}\n\n`);
  report(await run(args));
  if (i === 1) {
    process.stdout.write('\n\x1b[1m== A Deployment rolled out by the sim\'s controllers, as the informer sees it (6 s)\x1b[0m\n$ kwatch sim --pods 0 --nodes 3 &  kwatch events pods -n demo --stages watch,handler --for 6s\n\n');
    report(await rolloutStep());
  }
}
process.exitCode = failed ? 1 : 0;
