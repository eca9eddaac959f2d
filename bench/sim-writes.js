// Benchmark (issue 11): the sim's write throughput over HTTP — creates (POST), updates (PUT) and merge patches of
// realistic pods, 8 requests in flight — so the cost of what runs on the write path (field validation: unknown
// fields pruned against the kind's schema, duplicate fields looked for) shows. GETs of one object are measured
// alongside as the control. The sim runs in this process and the figure that counts is CPU time per request
// (client and server together, the same client code in every run): wall-clock requests/s on a shared machine
// swing by 3x between runs, CPU time far less.
// Run after `npm run build`: node bench/sim-writes.js     (BENCH_QUICK=1 for a small, fast run)
import { QUICK, fmtInt, publish, round, table } from './lib/common.js';
import { startSimServer } from '../dist/sim/server.js';

const N = QUICK ? 1000 : 4000;
const IN_FLIGHT = 8;
const REPS = QUICK ? 1 : 3;

function pod(name) {
  const container = (n) => ({
    name: n, image: `registry.example.com/team/${n}:1.2.3`, imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: [{ name: 'MODE', value: 'prod' }, { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
  });
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'bench', tier: 'web', 'pod-template-hash': '7d4b9c8f6' }, annotations: { 'example.com/owner': 'bench' } },
    spec: {
      containers: [container('app'), container('sidecar')], volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
      nodeSelector: { 'kubernetes.io/os': 'linux' }, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    },
  };
}

/** Runs fn for 0..n-1, IN_FLIGHT at a time: requests/s and CPU µs per request. */
async function run(n, fn) {
  let next = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const worker = async () => { while (next < n) await fn(next++); };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const cpu = process.cpuUsage(c0);
  return { perSecond: (n / (performance.now() - t0)) * 1000, cpuMicros: (cpu.user + cpu.system) / n };
}

const { Agent, request } = await import('undici');
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: IN_FLIGHT });
const sim = await startSimServer({ port: 0, churn: 0, pods: 0, nodes: 1 });
const base = `${sim.url}/api/v1/namespaces/default/pods`;
const json = { 'content-type': 'application/json' };
async function send(method, url, body, headers = json) {
  const res = await request(url, { method, dispatcher, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`);
  return text;
}

const out = { n: N, inFlight: IN_FLIGHT, reps: REPS, perSecond: {} };
const results = { create: [], update: [], patch: [], get: [] };
for (let rep = 0; rep < REPS; rep++) {
  const names = Array.from({ length: N }, (_, i) => `bench-${rep}-${i}`);
  const stored = new Array(N);
  results.create.push(await run(N, async (i) => { stored[i] = JSON.parse(await send('POST', base, pod(names[i]))); }));
  results.update.push(await run(N, async (i) => {
    const o = stored[i];
    o.metadata.annotations['example.com/seq'] = String(i);
    await send('PUT', `${base}/${names[i]}`, o);
  }));
  results.patch.push(await run(N, (i) => send('PATCH', `${base}/${names[i]}`, { metadata: { labels: { patched: String(i) } } }, { 'content-type': 'application/merge-patch+json' })));
  results.get.push(await run(N, (i) => send('GET', `${base}/${names[i]}`)));
}
await dispatcher.close();
await sim.close();

const rows = [];
out.cpuMicrosPerRequest = {};
for (const [op, xs] of Object.entries(results)) {
  const best = Math.max(...xs.map((x) => x.perSecond));
  const cpu = Math.min(...xs.map((x) => x.cpuMicros));
  out.perSecond[op] = round(best);
  out.cpuMicrosPerRequest[op] = round(cpu);
  rows.push([op, fmtInt(cpu), fmtInt(best), xs.map((x) => `${fmtInt(x.cpuMicros)} µs`).join(' / ')]);
}
const md = `## kwatch sim: writes over HTTP (${fmtInt(N)} pods, ${IN_FLIGHT} in flight, best of ${REPS})\n\n${table(['operation', 'CPU µs per request (best)', 'requests/s (best)', 'CPU per request, each run'], rows)}\n`;
publish('sim-writes', out, md);
