// A fresh child process whose stdout is JSON lines: `started.line(pred)` waits for a line matching pred,
// `started.result` resolves with the last JSON line once it exits (or { ok: false, reason }).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export function startChild(args, { timeoutMs = 600_000 } = {}) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-2000)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    lines.push(msg);
    for (const w of [...waiters]) {
      if (!w.pred(msg)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(msg);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const result = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = lines.at(-1);
      if (last && 'ok' in last) resolve(last);
      else resolve({ ok: false, reason: signal ? `killed (${signal})` : stderr.trim().split('\n').pop() || `exit ${code}` });
      for (const w of waiters) w.resolve(undefined);
    });
  });
  return {
    result,
    line(pred) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}
