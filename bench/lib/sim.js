// Starts bench/lib/sim-child.js and talks to it: `await startSim({ pods, nodes, ... })` → { url, rv, pods, command(), close() }.
// A sim that run.js started for several scripts (BENCH_SHARED_SIMS) is used instead of a new one when its options are
// the same: the script then talks to it over its control port, and close() only disconnects.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { QUICK } from './common.js';

const CHILD = fileURLToPath(new URL('./sim-child.js', import.meta.url));
const SHARED_ENV = 'BENCH_SHARED_SIMS';

/** Sizes of the sims that sync.js, end-to-end.js, relist.js (and sim-throughput.js at 100k) share when run.js runs them. */
export const SHARED_SIZES = QUICK ? [4000, 20000] : [20000, 100000];

/**
 * The sim sync.js, end-to-end.js and relist.js measure against: realistic pods (managedFields), 1000 per node, a
 * history long enough for sync's 30,000-update replay, bookmarks rare enough never to land in a measurement.
 */
export function sharedSimOptions(pods) {
  return { pods, nodes: Math.max(1, Math.round(pods / 1000)), managedFields: true, historyEvents: 200_000, bookmarkIntervalMs: 60_000 };
}

const keyOf = (options) => JSON.stringify(Object.entries(options).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Starts the sims several scripts share; `env` passes them to child processes, `close()` ends them. */
export async function startSharedSims(optionsList) {
  // Populated side by side (nothing is measured meanwhile): the small one costs no wall time then.
  const sims = await Promise.all(optionsList.map(async (options) => ({ key: keyOf(options), sim: await spawnSim(options) })));
  const info = sims.map(({ key, sim }) => ({ key, url: sim.url, control: sim.control, rv: sim.rv, pods: sim.pods, populateMs: sim.populateMs, rssMB: sim.rssMB }));
  return {
    sims: sims.map((s) => s.sim),
    env: { [SHARED_ENV]: JSON.stringify(info) },
    async close() {
      for (const { sim } of sims.splice(0)) await sim.close();
    },
  };
}

export async function startSim(options = {}) {
  const shared = JSON.parse(process.env[SHARED_ENV] ?? '[]').find((s) => s.key === keyOf(options));
  return shared ? connectSim(shared) : spawnSim(options);
}

/** A JSON-line request/reply channel: `command({ cmd, … })` resolves with the reply carrying the same id. */
function commandChannel(input, write) {
  const waiting = new Map();
  let nextId = 1;
  createInterface({ input }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg);
  });
  return (cmd) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      write(`${JSON.stringify({ id, ...cmd })}\n`);
    });
}

async function connectSim(info) {
  const socket = connect(info.control, '127.0.0.1');
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const command = commandChannel(socket, (s) => socket.write(s));
  const { rv } = await command({ cmd: 'state' });
  return { ...info, rv, shared: true, command, close: async () => socket.end() };
}

async function spawnSim(options) {
  const child = spawn(process.execPath, ['--max-old-space-size=8192', CHILD, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const ready = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sim child exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"ready":true')) resolve(JSON.parse(line));
    });
  });
  const command = commandChannel(child.stdout, (s) => child.stdin.write(s));
  return {
    ...ready,
    command,
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}
