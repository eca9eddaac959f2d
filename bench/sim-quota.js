// Benchmark (issue 43): the sim's write rate in a namespace with a ResourceQuota against one without, as the
// namespaces fill up to 12,000 pods each. Pods are created (POST), then updated (PUT), then deleted, over HTTP with
// the controllers on (quota admission and the quota controller run only there), 8 requests in flight. The two
// namespaces take turns in blocks of 500 requests (100 at the quick size), so both see the same machine; the figure
// is the median of the per-block ratios (quota'd / plain) of requests per CPU second (the sim and the client share
// this process; on a shared, loaded machine wall-clock rates swing far more than CPU time), wall-clock rates beside it.
// Goal: 1.00x ± 10% for each operation.
// Run after `npm run build`: node bench/sim-quota.js     (BENCH_QUICK=1 for 2,000 pods per namespace)
import { cpus, loadavg } from 'node:os';
import { QUICK, fmtInt, median, publish, round, table } from './lib/common.js';
import { startSimServer } from '../dist/sim/server.js';

const N = QUICK ? 2000 : 12000;
// Blocks of 100 at the quick size: 20 per operation, so the median is not the mean of two noisy blocks (4 of 500 were).
const BLOCK = QUICK ? 100 : 500;
const IN_FLIGHT = 8;

function pod(name) {
  const container = (n) => ({
    name: n, image: `registry.example.com/team/${n}:1.2.3`,
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  });
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'bench' } }, spec: { containers: [container('app'), container('sidecar')] } };
}

const { Agent, request } = await import('undici');
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: IN_FLIGHT });
const sim = await startSimServer({ port: 0, churn: 0, pods: 0, nodes: 0, controllers: true });
const json = { 'content-type': 'application/json' };
async function send(method, url, body) {
  const res = await request(url, { method, dispatcher, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`);
  return text;
}
await send('POST', `${sim.url}/api/v1/namespaces`, { metadata: { name: 'plain' } });
await send('POST', `${sim.url}/api/v1/namespaces`, { metadata: { name: 'quotad' } });
await send('POST', `${sim.url}/api/v1/namespaces/quotad/resourcequotas`, {
  metadata: { name: 'compute' }, spec: { hard: { pods: '100000', 'requests.cpu': '100000', 'requests.memory': '100000Gi', 'limits.memory': '100000Gi', 'count/configmaps': '100' } },
});
// Wait for the quota controller's first sync, as a user must: kube's admission limits by status.hard and refuses
// writes while status.used lacks a limited name, so creates sent before it would measure a quota that is not there.
for (let tries = 0; ; tries++) {
  const q = JSON.parse(await send('GET', `${sim.url}/api/v1/namespaces/quotad/resourcequotas/compute`));
  if (q.status?.hard && Object.keys(q.spec.hard).every((n) => q.status.hard[n] !== undefined && q.status.used?.[n] !== undefined)) break;
  if (tries >= 500) throw new Error('the quota controller did not sync the quota in 10 s');
  await new Promise((r) => setTimeout(r, 20));
}

/** Runs fn for from..to-1, IN_FLIGHT at a time: requests per wall second and per CPU second (this process). */
async function block(from, to, fn) {
  let next = from;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const worker = async () => { while (next < to) await fn(next++); };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const cpu = process.cpuUsage(c0);
  return { wall: ((to - from) / (performance.now() - t0)) * 1000, cpu: ((to - from) / (cpu.user + cpu.system)) * 1e6 };
}

const base = (ns) => `${sim.url}/api/v1/namespaces/${ns}/pods`;
const ops = {
  create: (ns) => async (i) => { await send('POST', base(ns), pod(`p-${i}`)); },
  update: (ns) => async (i) => {
    const o = JSON.parse(await send('GET', `${base(ns)}/p-${i}`));
    o.metadata.annotations = { 'example.com/seq': String(i) };
    await send('PUT', `${base(ns)}/p-${i}`, o);
  },
  delete: (ns) => async (i) => { await send('DELETE', `${base(ns)}/p-${i}`, { gracePeriodSeconds: 0 }); },
};

const load = [loadavg()[0]];
const out = { podsPerNamespace: N, block: BLOCK, inFlight: IN_FLIGHT, cpus: cpus().length, ops: {} };
const rows = [];
for (const [op, make] of Object.entries(ops)) {
  const plain = [];
  const quotad = [];
  for (let from = 0, turn = 0; from < N; from += BLOCK, turn++) {
    const to = Math.min(N, from + BLOCK);
    // Alternate which namespace goes first, so neither always follows the other's garbage.
    if (turn % 2 === 0) { plain.push(await block(from, to, make('plain'))); quotad.push(await block(from, to, make('quotad'))); }
    else { quotad.push(await block(from, to, make('quotad'))); plain.push(await block(from, to, make('plain'))); }
  }
  load.push(loadavg()[0]);
  const ratios = plain.map((p, i) => quotad[i].cpu / p.cpu);
  const wallRatio = median(plain.map((p, i) => quotad[i].wall / p.wall));
  const ratio = median(ratios);
  const perCpu = (xs) => median(xs.map((x) => x.cpu));
  const perWall = (xs) => median(xs.map((x) => x.wall));
  out.ops[op] = { plainPerCpuSecond: round(perCpu(plain)), quotadPerCpuSecond: round(perCpu(quotad)), ratio: round(ratio, 2), lastBlockRatio: round(ratios.at(-1), 2), plainPerSecond: round(perWall(plain)), quotadPerSecond: round(perWall(quotad)), wallRatio: round(wallRatio, 2) };
  const met = Math.abs(ratio - 1) <= 0.1;
  rows.push([op, fmtInt(perCpu(plain)), fmtInt(perCpu(quotad)), `${ratio.toFixed(2)}x`, `${ratios.at(-1).toFixed(2)}x`, `${fmtInt(perWall(plain))} / ${fmtInt(perWall(quotad))} (${wallRatio.toFixed(2)}x)`, `1.00x ± 10%: ${met ? 'met' : 'not met'}`]);
}
const quota = JSON.parse(await send('GET', `${sim.url}/api/v1/namespaces/quotad/resourcequotas/compute`));
out.finalUsed = quota.status?.used;
await dispatcher.close();
await sim.close();
out.load = load;
const md = `## kwatch sim: writes into a namespace with a ResourceQuota (${fmtInt(N)} pods per namespace, blocks of ${BLOCK}, ${IN_FLIGHT} in flight)\n\n`
  + `${table(['operation', 'plain namespace, requests per CPU s (median block)', 'quota\'d namespace, requests per CPU s', 'quota\'d / plain (median of blocks)', 'last block (fullest namespace)', 'requests per wall s, plain / quota\'d', 'goal'], rows)}\n`
  + `Load average (1 min) at the start and after each operation: ${load.map((l) => l.toFixed(2)).join(', ')}. status.used after the deletes: ${JSON.stringify(out.finalUsed)}.\n`;
publish('sim-quota', out, md);
