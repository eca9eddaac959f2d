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

const WATCHES = Number(process.env.KWATCH_BENCH_WATCHES) || (QUICK ? 500 : 2000);
const PODS = 2000;
const UPDATES = QUICK ? 200 : 400;
const mb = (n) => `${fmtInt(n / 1048576)} MB`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external, heapTotal: m.heapTotal };
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
const after = [];
for (let s = 1; s <= 5; s++) {
  await sleep(t0 + s * 1000 - performance.now());
  after.push(memory());
}
// What is still reachable (a forced full collection): retained state, against garbage V8 has not collected yet.
globalThis.gc?.();
const collected = globalThis.gc ? memory() : undefined;
if (process.env.KWATCH_BENCH_SNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.KWATCH_BENCH_SNAPSHOT);
load.push(loadavg()[0]);
child.kill();
await ep.close();
await upstream.close?.();
await sim.close();

const ratio = after.at(-1).rss / idle.rss;
const out = { watchesOpen, watches: WATCHES, pods: PODS, updates: UPDATES, idle, full, after, collected, rssRatioAt5s: ratio, load };
const rows = [
  ['idle', idle],
  [`${fmtInt(watchesOpen)} stalled watches, full`, full],
  ...after.map((m, i) => [`${i + 1} s after they closed`, m]),
  ...(collected ? [['then after a forced full GC (what is still reachable)', collected]] : []),
].map(([when, m]) => [when, mb(m.rss), mb(m.heap), mb(m.external), mb(m.heapTotal)]);
const md = `## kwatch endpoint: memory after ${fmtInt(WATCHES)} stalled watches close (${fmtInt(PODS)} pods, ${fmtInt(UPDATES)} updates)\n\n`
  + `${table(["when", "endpoint RSS", "V8 heap used", "external (Buffers)", "heapTotal"], rows)}\n\n`
  + `RSS 5 s after the close: ${ratio.toFixed(2)}x of idle (goal ≤ 2x: ${ratio <= 2 ? 'met' : 'not met'}). Load average (1 min) before and after: ${load.map((l) => l.toFixed(2)).join(', ')}.\n`;
publish('endpoint-stalled', out, md);
