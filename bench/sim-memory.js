// Measures the sim's memory and start-up cost at scale: heap after populate, populate time, LIST (unpaged and paged),
// a watch from resourceVersion 0 and a selector LIST. Uses the build (npx tsc -p tsconfig.build.json first).
// Usage: node --expose-gc --max-old-space-size=8192 bench/sim-memory.js [pods] [pages]   (default: 100000 pods, 500 pages)
// Each step prints wall time and the process's CPU time (all threads, GC included; the client reading the answers runs
// in this process too): on a busy machine the CPU time is the steadier number.
import { request } from 'node:http';
import { startSimServer } from '../dist/sim/server.js';

const gc = globalThis.gc;
if (!gc) {
  console.error('run with node --expose-gc');
  process.exit(1);
}

function fetchBody(url) {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    }).on('error', reject).end();
  });
}

function fetchBytes(url) {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve(bytes));
    }).on('error', reject).end();
  });
}

/** Opens a watch and resolves once `count` event lines arrived. */
function watchCount(url, count) {
  return new Promise((resolve, reject) => {
    let lines = 0;
    const req = request(url, (res) => {
      res.on('data', (c) => {
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        if (lines >= count) { req.destroy(); resolve(); }
      });
    });
    req.on('error', (e) => { if (lines < count) reject(e); });
    req.end();
  });
}

const mb = (n) => `${(n / 1048576).toFixed(0)} MB`;

/** JS heap plus memory outside it (Buffers), after full collections. */
function heap() {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external, total: m.heapUsed + m.external };
}

/** Runs fn, prints `label: <wall> ms (cpu <cpu> ms)<extra>`. */
async function step(label, fn) {
  const t = performance.now();
  const c = process.cpuUsage();
  const extra = await fn();
  const cpu = process.cpuUsage(c);
  console.log(`${label}: ${(performance.now() - t).toFixed(0)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms)${extra ?? ''}`);
}

const pods = Number(process.argv[2] ?? 100_000);
const pageCount = Number(process.argv[3] ?? 500);
const nodes = Math.max(3, Math.round(pods / 1000));

const base = heap();
let sim;
await step(`populate ${pods.toLocaleString('en-US')} pods, ${nodes} nodes`, async () => {
  sim = await startSimServer({ pods, nodes, churn: 0 });
  return `, revision ${sim.api.currentRevision()}`;
});
const after = heap();
const perPod = (n) => `${(n / pods / 1024).toFixed(1)} KB/pod`;
console.log(`after populate: heapUsed ${mb(after.heap)} (+${perPod(after.heap - base.heap)}), external ${mb(after.external)} (+${perPod(after.external - base.external)}), `
  + `total +${mb(after.total - base.total)} (${perPod(after.total - base.total)}), rss ${mb(process.memoryUsage().rss)}`);

for (let i = 0; i < 2; i++) {
  await step('LIST unpaged', async () => `, ${mb(await fetchBytes(`${sim.url}/api/v1/pods`))}`);
}

const limit = Math.ceil(pods / pageCount);
await step(`LIST paged (limit=${limit})`, async () => {
  let pages = 0;
  let cont = '';
  do {
    const body = await fetchBody(`${sim.url}/api/v1/pods?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    const m = /"continue":"([^"]+)"/.exec(body.subarray(0, 400).toString());
    cont = m ? m[1] : '';
    pages++;
  } while (cont);
  return `, ${pages} pages`;
});

await step(`WATCH rv=0 (${pods.toLocaleString('en-US')} initial events)`, () => watchCount(`${sim.url}/api/v1/pods?watch=1&resourceVersion=0`, pods));

await step('LIST with label+field selector', async () => `, ${mb(await fetchBytes(`${sim.url}/api/v1/pods?labelSelector=tier%3Dbackend&fieldSelector=status.phase%3DRunning`))}`);

const end = heap();
console.log(`at end: heapUsed ${mb(end.heap)}, external ${mb(end.external)}, rss ${mb(process.memoryUsage().rss)}`);
await sim.close();
