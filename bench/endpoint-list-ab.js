// A/B of two builds of the endpoint (issue 43): a paged LIST of 20,000 pods (pages of 500) and, with WATCH=1, a watch
// history replay, through an old build's endpoint and a new one's, with and without an `-o ndjson` subscriber, and
// straight to the sim — all in this one process against one sim, interleaved, the order rotating each round. On a
// shared host compare the endpoint's CPU ms (this process's, per LIST) and the ratios within a round.
//   cp -r dist /tmp/old-dist && ln -s "$PWD/node_modules" /tmp/node_modules   (before the change; then npm run build)
//   node --expose-gc bench/endpoint-list-ab.js /tmp/old-dist dist
// env: ROUNDS (5), PODS (20000), COLD=1 (no warm-up LIST), VARIANTS=new,new-ndjson (only those beside direct), WATCH=1 (the replay too), PROFILE=old,new-ndjson,… (CPU profiles of one LIST per
// round and variant, to bench/results/ab-VARIANT-ROUND.cpuprofile, instead of the timings), GCSTATS=1 (this process's
// garbage collections per LIST and variant: count and ms by kind, and the external memory, RSS and peak RSS after), HEAPPROFILE=1 with
// PROFILE (a sampling heap profile of the same LISTs, garbage included, to bench/results/ab-VARIANT-ROUND.heapprofile),
// NDJSON_OUT=FILE (the `-o ndjson` variants' records appended there instead of /dev/null, to compare two builds' output),
// RUNTIME_V8_FLAGS (V8 flags set at the start with v8.setFlagsFromString, as kwatch could set them while running).
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEndpointClient } from './lib/endpoint-client-process.js';
import { sharedSimOptions, startSim } from './lib/sim.js';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

if (process.env.RUNTIME_V8_FLAGS) setFlagsFromString(process.env.RUNTIME_V8_FLAGS);
const [oldDist, newDist] = process.argv.slice(2).map((d) => resolve(d));
if (!oldDist || !newDist) {
  console.error('usage: node --expose-gc bench/endpoint-list-ab.js OLD_DIST NEW_DIST');
  process.exit(2);
}
const PODS = Number(process.env.PODS ?? 20000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PAGE = 500;

async function load(dist) {
  const u = (p) => pathToFileURL(`${dist}/${p}`).href;
  const [{ startEndpoint }, { Tracer }, { connectionFromUrl }, { createTracePrinter }, { TraceSummary }] = await Promise.all([
    import(u('endpoint/endpoint-server.js')), import(u('informer/trace.js')), import(u('kube/http/connection.js')), import(u('render/trace-printer.js')), import(u('render/summary.js')),
  ]);
  return { startEndpoint, Tracer, connectionFromUrl, createTracePrinter, TraceSummary };
}

function ndjson(m, tracer) {
  const fd = openSync(process.env.NDJSON_OUT ?? '/dev/null', 'a');
  const printer = m.createTracePrinter({ output: 'ndjson', stream: { write: (s) => writeSync(fd, s) }, defaultStages: new Set(['endpoint']), showSecrets: false, batch: true });
  const summary = new m.TraceSummary({ startedAt: Date.now(), now: Date.now });
  const off = tracer.subscribe((r) => { summary.add(r); printer.write(r); });
  return () => { off(); printer.end(); closeSync(fd); };
}

const tick = () => new Promise((r) => setImmediate(r));

/** GC entries seen since the last take(), by kind (GCSTATS=1). */
const GC_KINDS = { [perf.NODE_PERFORMANCE_GC_MINOR]: 'scavenge', [perf.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact', [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' };
const gcSeen = [];
if (process.env.GCSTATS) new PerformanceObserver((l) => gcSeen.push(...l.getEntries())).observe({ entryTypes: ['gc'] });
function gcTaken() {
  const by = {};
  for (const e of gcSeen.splice(0)) {
    const k = GC_KINDS[e.detail?.kind ?? e.kind] ?? 'other';
    by[k] ??= { n: 0, ms: 0 };
    by[k].n++;
    by[k].ms += e.duration;
  }
  const ext = Math.round(process.memoryUsage().external / 1e6);
  // peak RSS: the process's high-water mark so far (with COLD=1 ROUNDS=1, the one LIST's).
  return `${Object.entries(by).map(([k, x]) => `${k} ${x.n}/${Math.round(x.ms)}ms`).join(', ') || 'none'}; external ${ext} MB, RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB, peak RSS ${Math.round((process.resourceUsage().maxRSS * 1024) / 1e6)} MB`;
}

/**
 * One round: each variant in turn (the order rotating by round), `call(v)` with its subscriber on when it traces;
 * answers each variant's reply and this process's CPU ms for it (the endpoint's).
 */
async function round(r, call) {
  const out = [];
  for (const v of variants.map((_, i) => variants[(i + r) % variants.length])) {
    const off = v.trace ? ndjson(eps[v.name].m, eps[v.name].tracer) : undefined;
    globalThis.gc?.();
    if (process.env.GCSTATS) { await tick(); gcTaken(); }
    const c0 = process.cpuUsage();
    const x = await call(v);
    await tick();
    const c = process.cpuUsage(c0);
    off?.();
    if (process.env.GCSTATS) console.log(`  ${v.key}: gc ${gcTaken()}`);
    out.push({ v, x, cpu: (c.user + c.system) / 1000 });
  }
  return out;
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const sim = await startSim(sharedSimOptions(PODS));
const client = startEndpointClient();
const eps = {};
for (const [name, dist] of [['old', oldDist], ['new', newDist]]) {
  const m = await load(dist);
  const tracer = new m.Tracer();
  const upstream = m.connectionFromUrl(sim.url, { tracer });
  const ep = await m.startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
  eps[name] = { m, tracer, upstream, ep };
}
const allVariants = [{ key: 'direct' }];
for (const name of ['old', 'new']) for (const trace of [false, true]) allVariants.push({ key: `${name}${trace ? '-ndjson' : ''}`, name, trace });
// VARIANTS=direct,new,…: only those (direct is always run: the ratios are against it).
const only = process.env.VARIANTS?.split(',');
const variants = allVariants.filter((v) => !only || v.key === 'direct' || only.includes(v.key));
const base = (v) => (v.key === 'direct' ? sim.url : eps[v.name].ep.url);
// warm-up (COLD=1: none, so that each endpoint's first LIST is the cold one a `reconcile --exec` start meets; run
// one endpoint variant per process, with ROUNDS=1, and repeat the process)
if (!process.env.COLD) for (const v of variants) { await client.call({ cmd: 'list', base: base(v), limit: PAGE }); }

const PROFILE = process.env.PROFILE;
if (PROFILE) {
  // Connected only to profile: the timings run without an inspector session.
  const session = new Session();
  session.connect();
  mkdirSync(RESULTS, { recursive: true });
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  for (let r = 0; r < ROUNDS; r++) for (const key of PROFILE.split(',')) {
    const v = variants.find((x) => x.key === key);
    const off = v.trace ? ndjson(eps[v.name].m, eps[v.name].tracer) : undefined;
    globalThis.gc?.();
    if (process.env.HEAPPROFILE) await session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await session.post('Profiler.start');
    await client.call({ cmd: 'list', base: base(v), limit: PAGE });
    const { profile } = await session.post('Profiler.stop');
    if (process.env.HEAPPROFILE) {
      const heap = await session.post('HeapProfiler.stopSampling');
      writeFileSync(`${RESULTS}ab-${key}-${r}.heapprofile`, JSON.stringify(heap.profile));
    }
    off?.();
    writeFileSync(`${RESULTS}ab-${key}-${r}.cpuprofile`, JSON.stringify(profile));
  }
  console.log('profiles written');
} else {
  const res = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const line = [];
    for (const { v, x, cpu } of await round(r, (v) => client.call({ cmd: 'list', base: base(v), limit: PAGE }))) {
      res[v.key].push({ ms: x.ms, bodyMs: x.bodyMs, cpu });
      line.push(`${v.key} ${Math.round(x.ms)}ms/${Math.round(cpu)}cpu`);
    }
    console.log(`round ${r}: ${line.join('  ')}`);
  }
  const d = med(res.direct.map((x) => x.ms));
  for (const v of variants) {
    const ms = med(res[v.key].map((x) => x.ms));
    const cpu = med(res[v.key].map((x) => x.cpu));
    // per-round ratios
    const ratios = res[v.key].map((x, i) => (x.ms / res.direct[i].ms).toFixed(2));
    console.log(`${v.key.padEnd(12)} median ${Math.round(ms)} ms (${(ms / d).toFixed(2)}x direct; per round ${ratios.join(' ')}), endpoint CPU median ${Math.round(cpu)} ms`);
  }
  if (process.env.WATCH) {
    const N = 4000;
    const wres = Object.fromEntries(variants.map((v) => [v.key, []]));
    for (let r = 0; r < ROUNDS; r++) {
      const { rv } = await sim.command({ cmd: 'state' });
      const u = await sim.command({ cmd: 'update', n: N, yieldEvery: 50 });
      const line = [];
      for (const { v, x, cpu } of await round(r, (v) => client.call({ cmd: 'watch', base: base(v), rv: u.from ?? rv, n: N }))) {
        const eps_ = ((x.events - 1) / x.spanMs) * 1000;
        wres[v.key].push({ eps: eps_, cpu });
        line.push(`${v.key} ${Math.round(eps_)}/s/${Math.round(cpu)}cpu`);
      }
      console.log(`watch round ${r}: ${line.join('  ')}`);
    }
    const dw = med(wres.direct.map((x) => x.eps));
    for (const v of variants) {
      const e = med(wres[v.key].map((x) => x.eps));
      console.log(`watch ${v.key.padEnd(12)} median ${Math.round(e)} events/s (${(e / dw).toFixed(2)}x direct), CPU median ${Math.round(med(wres[v.key].map((x) => x.cpu)))} ms`);
    }
  }
}
for (const { ep, upstream } of Object.values(eps)) { await ep.close(); await upstream.close(); }
await client.close();
await sim.close();
process.exit(0);
