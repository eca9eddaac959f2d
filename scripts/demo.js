#!/usr/bin/env node
// The demo: an embedded simulated cluster with churn, watched stage by stage through kwatch's
// informer pipeline; a Deployment rolled out by the sim's controllers, seen by the informer; then a
// paged LIST and an index query — all against the embedded API server, no cluster or kubectl needed.
//
// It prints each command as it really runs it (and each API request it sends itself, with the
// server's answer), and stops at the first step that fails: one line, exit code 1.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const kwatch = join(root, 'bin', 'run.js');

/** A step that failed: its one line says which and why. */
export class DemoError extends Error {}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs kwatch with these arguments, its output on ours; resolves with its exit code. */
function runKwatch(args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [kwatch, ...args], { stdio: 'inherit', env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/**
 * Sends one create request as kubectl would and prints it with the answer (`POST /api/v1/namespaces
 * {…}` then `→ 201 Created`); a non-2xx answer fails the step with the server's message.
 */
export async function create(server, path, body, write) {
  write(`$ POST ${path} ${JSON.stringify(body)}\n`);
  const res = await globalThis.fetch(`${server}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  write(`→ ${res.status} ${res.statusText}\n`);
  if (!res.ok) {
    let message = text.trim().split('\n')[0];
    try {
      message = JSON.parse(text).message ?? message;
    } catch {
      // not a Status: the first line of the body
    }
    throw new DemoError(`POST ${path} answered ${res.status} ${res.statusText}: ${message}`);
  }
}

/** The Namespace and the Deployment `kubectl create namespace demo` and `kubectl create deployment web --image=nginx --replicas=2 -n demo` create. */
export async function createDeployment(server, write) {
  await create(server, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } }, write);
  const labels = { app: 'web' };
  await create(
    server,
    '/apis/apps/v1/namespaces/demo/deployments',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    },
    write,
  );
}

/**
 * `kwatch sim` with its controllers, a `kwatch events` on the empty namespace, then the requests that
 * create a Deployment (sent here over HTTP, so the demo needs no kubectl): the informer sees the pods
 * the sim's ReplicaSet controller creates, scheduled and started, stage by stage.
 */
async function rolloutStep(write) {
  const dir = mkdtempSync(join(tmpdir(), 'kwatch-demo-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const simArgs = ['sim', '--port', '0', '--kubeconfig-out', kubeconfig, '--pods', '0', '--nodes', '3', '--churn', '0'];
  write(`$ kwatch ${simArgs.join(' ')} &\n`);
  const sim = spawn(process.execPath, [kwatch, ...simArgs], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 200 && !existsSync(kubeconfig); i++) await sleep(50);
    const server = existsSync(kubeconfig) ? /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1] : undefined;
    if (!server) throw new DemoError(`kwatch sim wrote no kubeconfig to ${kubeconfig} within 10s`);
    const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache') };
    const eventsArgs = ['events', 'pods', '-n', 'demo', '--stages', 'watch,handler', '--for', '6s'];
    write(`$ KUBECONFIG=${kubeconfig} kwatch ${eventsArgs.join(' ')} &\n`);
    const watching = runKwatch(eventsArgs, env);
    await sleep(1500);
    await createDeployment(server, write);
    const code = await watching;
    if (code !== 0) throw new DemoError(`kwatch ${eventsArgs.join(' ')} exited with code ${code}`);
  } finally {
    sim.kill('SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the steps in order, stopping at the first that fails; resolves with the exit code. */
export async function runSteps(steps, io) {
  for (const step of steps) {
    io.write(`\n${io.bold(`== ${step.title}`)}\n`);
    try {
      if (step.args) {
        io.write(`$ kwatch ${step.args.join(' ')}\n\n`);
        const code = await io.run(step.args);
        if (code !== 0) throw new DemoError(`kwatch ${step.args.join(' ')} exited with code ${code}`);
      } else {
        await step.run(io.write);
      }
    } catch (err) {
      io.error(`demo: step "${step.title}" failed: ${err instanceof DemoError ? err.message : String(err?.message ?? err).split('\n')[0]}\n`);
      return 1;
    }
  }
  return 0;
}

const STEPS = [
  { title: 'Watch pods through the whole pipeline (8 s of churn)', args: ['events', 'pods', '--sim', '--sim-churn', '10', '--for', '8s'] },
  { title: 'The raw watch stream of the default namespace, as the server sends it (5 s)', args: ['events', 'pods', '--raw', '--sim', '--sim-churn', '20', '--for', '5s'] },
  { title: "A Deployment rolled out by the sim's controllers, as the informer sees it (6 s)", run: rolloutStep },
  { title: 'A paged LIST, one row per page', args: ['list', 'pods', '-A', '--sim', '--sim-pods', '60', '--page-size', '25'] },
  { title: 'How pods spread over nodes (the indexer)', args: ['index', 'pods', '-A', '--by', 'nodeName', '--sim'] },
];

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Bold titles on a terminal only: piped, the demo's output holds no escape codes.
  const color = process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  process.exitCode = await runSteps(STEPS, {
    write: (s) => process.stdout.write(s),
    error: (s) => process.stderr.write(s),
    bold: (s) => (color ? `\x1b[1m${s}\x1b[0m` : s),
    run: (args) => runKwatch(args),
  });
}
