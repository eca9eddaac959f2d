// Starts a minimal keeper (keeper-child.js) in its own process and talks to it over IPC: `await startKeeper('tcp' |
// 'http', targetUrl)` → { url, gc(), take(), close() } (take: its CPU µs, mark-compacts and GC ms since the last take).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./keeper-child.js', import.meta.url));

export async function startKeeper(kind, target, execArgv = []) {
  const child = fork(CHILD, [kind, target], { execArgv: ['--expose-gc', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let nextId = 1;
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`keeper ${kind} exited (${code})`)));
    child.once('message', (m) => resolve(m.url));
  });
  child.on('message', (m) => { waiting.get(m.id)?.(m); waiting.delete(m.id); });
  const ask = (cmd) => new Promise((resolve) => { const id = nextId++; waiting.set(id, resolve); child.send({ id, cmd }); });
  return {
    url,
    gc: () => ask('gc'),
    take: () => ask('take'),
    close: async () => { await ask('close'); },
  };
}
