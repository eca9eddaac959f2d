// Benchmark (issue 43): the endpoint's memory after many stalled watches close. WATCHES clients open a watch of pods
// through the endpoint (intercept mode, as `reconcile --exec` runs it) and never read; the sim (its own process) then
// writes UPDATES pod updates, which back up in every watch; then every client disconnects. The endpoint runs in this
// process; its RSS and heap (used + external) are read idle, with the watches full, and each second for 5 s after they
// close — without forcing a collection (what V8 does on its own is what a user sees). The clients run in a child
// process, so their sockets are not counted. Goal: RSS back under 2x its idle size within 5 s of the close.
// Run after `npm run build`: node bench/endpoint-stalled.js     (BENCH_QUICK=1 for 500 watches)
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { QUICK, fmtInt, publish, table } from './lib/common.js';
import { startSim } from './lib/sim.js';
import { startEndpoint } from '../dist/endpoint/endpoint-server.js';
import { Tracer } from '../dist/informer/trace.js';
import { connectionFromUrl } from '../dist/kube/http/connection.js';
import { memorySplit } from './lib/memory-split.js';

const WATCHES = Number(process.env.KWATCH_BENCH_WATCHES) || (QUICK ? 500 : 2000);
const PODS = 2000;
const UPDATES = QUICK ? 200 : 400;
const mb = (n) => `${fmtInt(n / 1048576)} MB`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, heapTotal: m.heapTotal, split: memorySplit() };
};

// The clients: raw sockets that send one watch request each and never read.
const CLIENTS = `
const net = require('node:net');
const [url, token, n, rv] = JSON.parse(process.argv[1]);
const u = new URL(url);
const sockets = [];
let open = 0;
for (let i = 0; i < n; i++) {
  const s = net.connect(Number(u.port), u.hostname, () => {
    s.write('GET ' + u.pathname.replace(/\\/$/, '') + '/api/v1/pods?watch=1&resourceVersion=' + rv + '&allowWatchBookmarks=false HTTP/1.1\\r\\nHost: ' + u.host + '\\r\\nAuthorization: Bearer ' + token + '\\r\\nUser-Agent: stalled-client/v0.0.0\\r\\n\\r\\n');
    s.pause();
    if (++open === n) process.stdout.write('open\\n');
  });
  s.on('error', () => {});
  sockets.push(s);
}
process.stdin.on('data', () => { for (const s of sockets) s.destroy(); process.stdout.write('closed\\n'); });
`;

const sim = await startSim({ pods: PODS, nodes: 2, managedFields: true, historyEvents: 200_000, bookmarkIntervalMs: 600_000 });
const tracer = new Tracer();
const upstream = connectionFromUrl(sim.url, { tracer });
const ep = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
await sleep(500);
globalThis.gc?.();
const idle = memory();
const load = [loadavg()[0]];

const { rv } = await sim.command({ cmd: 'state' });
const child = spawn(process.execPath, ['-e', CLIENTS, JSON.stringify([ep.url, ep.token, WATCHES, String(rv)])], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: child.stdout });
const next = () => new Promise((resolve) => lines.once('line', resolve));
await next();
// Every watch answered (from the current resourceVersion: no initial events), then the updates pile up in each.
const started = () => ep.clients().reduce((n, c) => n + c.watchesOpen, 0);
for (let i = 0; i < 600 && started() < WATCHES; i++) await sleep(100);
const watchesOpen = started();
await sim.command({ cmd: 'update', n: UPDATES, yieldEvery: 50 });
await sleep(3000);
const full = memory();
child.stdin.write('close\n');
await next();
const t0 = performance.now();
// Right after the close: the endpoint has seen every client go (its sockets' 'close' ran), nothing collected yet.
for (let i = 0; i < 100 && ep.clients().reduce((n, c) => n + c.watchesOpen, 0) > 0; i++) await sleep(10);
const closed = memory();
const after = [];
// KWATCH_BENCH_AFTER_S: how many seconds after the close are sampled (5, the goal's; more shows what V8 does later).
const AFTER_S = Number(process.env.KWATCH_BENCH_AFTER_S) || 5;
for (let s = 1; s <= AFTER_S; s++) {
  await sleep(t0 + s * 1000 - performance.now());
  after.push(memory());
}
// What is still reachable (a forced full collection): retained state, against garbage V8 has not collected yet.
// V8 frees ArrayBuffers' memory on a background sweeper after the collection: the figures are read once it has run.
if (globalThis.gc) { globalThis.gc(); await sleep(200); globalThis.gc(); await sleep(200); }
const collected = globalThis.gc ? memory() : undefined;
if (process.env.KWATCH_BENCH_SNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.KWATCH_BENCH_SNAPSHOT);
load.push(loadavg()[0]);
child.kill();
await ep.close();
await upstream.close?.();
await sim.close();

const ratio = after[4].rss / idle.rss;
const perWatch = Math.round((full.rss - idle.rss) / WATCHES);
const out = { watchesOpen, watches: WATCHES, pods: PODS, updates: UPDATES, idle, full, closed, after, collected, rssRatioAt5s: ratio, perWatchRss: perWatch, perWatchArrayBuffers: Math.round((full.arrayBuffers - idle.arrayBuffers) / WATCHES), load, node: process.version };
const rows = [
  ['idle', idle],
  [`${fmtInt(watchesOpen)} stalled watches, full`, full],
  ['right after they closed', closed],
  ...after.map((m, i) => [`${i + 1} s after they closed`, m]),
  ...(collected ? [['then after a forced full GC (what is still reachable)', collected]] : []),
];
const mainRows = rows.map(([when, m]) => [when, mb(m.rss), mb(m.heap), mb(m.external), mb(m.arrayBuffers), mb(m.heapTotal)]);
// Where the RSS lies (Linux): glibc's main heap (brk), V8's committed spaces, other anonymous mappings, mapped files.
const splitRows = rows.filter(([, m]) => m.split).map(([when, { split: x }]) => [when, mb(x.rss), mb(x.brkHeap), mb(x.v8Committed), mb(x.anonNotV8), mb(x.file + x.stack + x.other)]);
const md = `## kwatch endpoint: memory after ${fmtInt(WATCHES)} stalled watches close (${fmtInt(PODS)} pods, ${fmtInt(UPDATES)} updates)\n\n`
  + `${table(['when', 'endpoint RSS', 'V8 heap used', 'external', 'ArrayBuffers', 'heapTotal'], mainRows)}\n\n`
  + (splitRows.length ? `Where the RSS lies (/proc/self/smaps):\n\n${table(['when', 'RSS', 'malloc heap (brk)', 'V8 spaces (committed)', 'other anonymous', 'files, stack'], splitRows)}\n\n` : '')
  + `Per stalled watch (full against idle): RSS ${fmtInt(perWatch / 1024)} kB, ArrayBuffers ${fmtInt(out.perWatchArrayBuffers / 1024)} kB (${process.version}).\n`
  + `RSS 5 s after the close: ${ratio.toFixed(2)}x of idle (goal ≤ 2x: ${ratio <= 2 ? 'met' : 'not met'}). Load average (1 min) before and after: ${load.map((l) => l.toFixed(2)).join(', ')}.\n`;
publish('endpoint-stalled', out, md);
