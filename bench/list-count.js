// Counting a list page's items for the endpoint's `list` record (issue 43), two builds side by side in one process:
// pages of 500 realistic pods (managedFields) fetched once from a sim, kept as the chunks they arrived in, then
// counted by each build's splitBody(chunks, countOnly) in turn, interleaved. Also the informer's endOfArray over the
// same bytes through each build's scanner (the scanner is shared: the count must not slow the informer).
// Times are this process's CPU (user + system), steadier than wall time on a shared host.
//   node bench/list-count.js OLD_DIST NEW_DIST        env: PODS (2000), ROUNDS (7), REPEAT (20 passes per timing)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSim } from './lib/sim.js';

const [oldDist, newDist] = process.argv.slice(2).map((d) => resolve(d));
if (!oldDist || !newDist) {
  console.error('usage: node bench/list-count.js OLD_DIST NEW_DIST');
  process.exit(2);
}
const PODS = Number(process.env.PODS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const REPEAT = Number(process.env.REPEAT ?? 20);

async function load(dist) {
  const u = (p) => pathToFileURL(`${dist}/${p}`).href;
  const [{ splitBody }, { wasmScanner }] = await Promise.all([import(u('endpoint/list-splitter.js')), import(u('informer/json-scan/wasm-scanner.js'))]);
  return { splitBody, scanner: wasmScanner() };
}

const sim = await startSim({ pods: PODS, nodes: Math.max(1, Math.round(PODS / 1000)), managedFields: true });
const pages = [];
for (let cont = ''; ; ) {
  const res = await globalThis.fetch(`${sim.url}/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
  const chunks = [];
  for await (const c of res.body) chunks.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  pages.push(chunks);
  cont = JSON.parse(Buffer.concat(chunks).toString()).metadata.continue;
  if (!cont) break;
}
await sim.close();
const bytes = pages.reduce((s, p) => s + p.reduce((t, c) => t + c.length, 0), 0);
const items = pages.reduce((s, p) => s + JSON.parse(Buffer.concat(p).toString()).items.length, 0);
const builds = { old: await load(oldDist), new: await load(newDist) };

const cpuMs = (since) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const times = { 'old count': [], 'new count': [], 'old endOfArray': [], 'new endOfArray': [] };
const whole = pages.map((p) => Buffer.concat(p));
for (let r = 0; r < ROUNDS; r++) {
  for (const name of r % 2 ? ['new', 'old'] : ['old', 'new']) {
    const b = builds[name];
    let t = process.cpuUsage();
    for (let k = 0; k < REPEAT; k++) {
      let n = 0;
      for (const p of pages) n += b.splitBody(p, true).itemCount;
      if (n !== items) throw new Error(`${name} counted ${n} items, not ${items}`);
    }
    times[`${name} count`].push(cpuMs(t) / REPEAT);
    // The informer's use: the end of each page's items array, the page in the scanner's memory.
    t = process.cpuUsage();
    for (let k = 0; k < REPEAT; k++) {
      for (const w of whole) {
        w.copy(b.scanner.scratch(w.length), 0);
        const open = w.indexOf('"items":[') + 8;
        if (b.scanner.endOfArray(open, w.length) < 0) throw new Error('no end');
      }
    }
    times[`${name} endOfArray`].push(cpuMs(t) / REPEAT);
  }
}
console.log(`${pages.length} pages, ${items} pods, ${(bytes / 1e6).toFixed(1)} MB; CPU ms per pass over all pages, median of ${ROUNDS} (MB/s)`);
for (const [k, xs] of Object.entries(times)) console.log(`  ${k.padEnd(16)} ${med(xs).toFixed(2).padStart(8)} ms  (${Math.round(bytes / 1e3 / med(xs))} MB/s)  all: ${xs.map((x) => x.toFixed(1)).join(' ')}`);
process.exit(0);
