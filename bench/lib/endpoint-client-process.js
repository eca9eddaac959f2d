// The controller process of the endpoint benchmarks (bench/endpoint.js, bench/endpoint-list-ab.js): starts
// bench/lib/endpoint-client.js and sends it JSON-line commands; each answer comes back by the command's id.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLIENT = fileURLToPath(new URL('./endpoint-client.js', import.meta.url));

export function startEndpointClient() {
  const child = spawn(process.execPath, ['--max-old-space-size=8192', CLIENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let nextId = 1;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    const w = waiting.get(msg.id);
    if (!w) return;
    if (msg.open) return w.opened();
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg);
  });
  return {
    /** `opened` resolves when a watch command has its headers; `done` with the final reply. */
    start(cmd) {
      const id = nextId++;
      let opened;
      const openedP = new Promise((r) => (opened = r));
      const done = new Promise((resolve, reject) => waiting.set(id, { resolve, reject, opened }));
      child.stdin.write(`${JSON.stringify({ id, ...cmd })}\n`);
      return { opened: Promise.race([openedP, done]), done };
    },
    call(cmd) {
      return this.start(cmd).done;
    },
    close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      return exited;
    },
  };
}
