// Cold and warm passes of bench/forward-gc/forward.js's modes (issue 43, round 8): PROCS fresh processes per mode and
// node binary, interleaved (the order rotating), ROUNDS passes each. A process's first pass is the cold one (what the
// first LIST of every `reconcile --exec` run meets); the passes after it are warm. Medians of mark-compacts, CPU and
// wall per pass, by mode, node and cold/warm.
// A mode written block:KB runs block with BLOCK_KB=KB (block:0 copies each read into a buffer of its own).
//   HOLD=1 PROCS=5 NODES=node,/tmp/node24/node_modules/node/bin/node node bench/forward-gc/compare.js iter block latin1
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';

const FORWARD = fileURLToPath(new URL('./forward.js', import.meta.url));
const modes = process.argv.slice(2);
const nodes = (process.env.NODES ?? process.execPath).split(',');
const PROCS = Number(process.env.PROCS ?? 5);
const flags = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
const rows = {};
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(`load ${loadavg().map((x) => x.toFixed(2)).join(' ')}, HOLD=${process.env.HOLD ?? ''} ${flags.join(' ')}`);
for (let p = 0; p < PROCS; p++) {
  for (const node of nodes) {
    for (const mode of modes.map((_, i) => modes[(i + p) % modes.length])) {
      const [name, kb] = mode.split(':');
      const env = kb === undefined ? process.env : { ...process.env, BLOCK_KB: kb };
      const out = execFileSync(node, ['--expose-gc', ...flags, FORWARD, name], { encoding: 'utf8', env });
      for (const line of out.trim().split('\n')) {
        const m = /r(\d+): (\d+) MB (\d+) ms, cpu (\d+) ms, gc (.*?); ext/.exec(line);
        if (!m) continue;
        const mc = /mc (\d+)\//.exec(m[5]);
        const key = `${mode.padEnd(10)} ${node === 'node' || node === process.execPath ? 'node20' : 'node24'} ${m[1] === '0' ? 'cold' : 'warm'}`;
        (rows[key] ??= []).push({ mb: Number(m[2]), ms: Number(m[3]), cpu: Number(m[4]), mc: mc ? Number(mc[1]) : 0 });
      }
    }
  }
}
for (const [key, xs] of Object.entries(rows).sort()) {
  console.log(`${key}: n ${xs.length}, mark-compacts ${med(xs.map((x) => x.mc))} (${Math.min(...xs.map((x) => x.mc))}–${Math.max(...xs.map((x) => x.mc))}), cpu ${med(xs.map((x) => x.cpu))} ms (${Math.min(...xs.map((x) => x.cpu))}–${Math.max(...xs.map((x) => x.cpu))}), wall ${med(xs.map((x) => x.ms))} ms, ${med(xs.map((x) => x.mb))} MB`);
}
console.log(`load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
