// Starts bench/lib/sim-child.js and talks to it: `await startSim({ pods, nodes, ... })` → { url, rv, pods, command(), close() }.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./sim-child.js', import.meta.url));

export async function startSim(options = {}) {
  const child = spawn(process.execPath, ['--max-old-space-size=8192', CHILD, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map();
  let ready;
  const readyP = new Promise((resolve, reject) => {
    ready = resolve;
    child.once('exit', (code) => reject(new Error(`sim child exited with ${code} before it was ready`)));
  });
  lines.on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.ready) return ready(msg);
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg);
  });
  const info = await readyP;
  let nextId = 1;
  const command = (cmd) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ id, ...cmd })}\n`);
    });
  return {
    ...info,
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
