// The endpoint's watch history replay alone (issue 43's replay row), at several replay lengths: is the distance to
// direct a cost per event (the endpoint's CPU) or per watch (its set-up, the first bytes' latency), which weighs more
// the shorter the replay? Per round and length, the sim takes N pod updates (nobody watching), then the client
// replays them from the sim's history straight to the sim, through a bare TCP relay, and through each build's
// endpoint in turn (the order rotating each round), all against one sim and in one endpoint process (this one).
//   node --expose-gc bench/endpoint-replay.js                    the current build (dist) only
//   node --expose-gc bench/endpoint-replay.js OLD_DIST NEW_DIST  an A/B of two builds, interleaved (or more builds,
//     named by NAMES=a,b,…)
//     (cp -r dist /tmp/old-dist && ln -s "$PWD/node_modules" /tmp/node_modules, before the change; then npm run build)
// Beside the relay, two "minimal keepers" (KEEPER=0: neither): forwarders that do only what the endpoint must do per
// event — pass the bytes on, find each line, read the object's identity and keep one owned copy of the line as that
// object's newest version — and nothing else, over TCP as the relay (keeper, bench/lib/keeping-relay.js) and as an
// HTTP proxy with a server and client of its own (keeper-http, bench/lib/keeping-proxy.js): the floor for any
// endpoint that keeps what its client was sent. Each keeper runs in a process of its own (bench/lib/keeper-child.js,
// KEEPER_FLAGS: its node flags), so that its heap is not the endpoint's; its CPU and GC figures are that process's.
// env: SIZES (4000,16000), ROUNDS (5), PODS (20000), RELAY=0 (no relay), NDJSON=1 (each endpoint also with the
// `-o ndjson > /dev/null` subscriber), PROFILE=VARIANT (a CPU profile of that variant's replay of the last size in
// each round, to bench/results/replay-VARIANT-ROUND.cpuprofile; the timings of that round then carry the profiler).
// Per variant and length: events/s from the first event received to the last (as bench/endpoint.js counts), the
// time from sending the request to the headers and to the first event, and this process's CPU per event (the
// endpoint's; the relay's for the relay; a keeper's own process's for a keeper), medians and min–max of the rounds.
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startRelay } from './lib/tcp-relay.js';
import { startKeeper } from './lib/keeper-process.js';
import { startEndpointClient } from './lib/endpoint-client-process.js';
import { sharedSimOptions, startSim } from './lib/sim.js';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const dists = process.argv.slice(2).map((d) => resolve(d));
/** The builds: [name, dist]; NAMES=a,b,… names them (default: endpoint alone, old and new for two). */
const names = process.env.NAMES?.split(',') ?? (dists.length === 2 ? ['old', 'new'] : dists.map((_, i) => (dists.length === 1 ? 'endpoint' : `build${i + 1}`)));
const builds = dists.length === 0 ? [['endpoint', fileURLToPath(new URL('../dist', import.meta.url))]] : dists.map((d, i) => [names[i], d]);
const SIZES = (process.env.SIZES ?? '4000,16000').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PODS = Number(process.env.PODS ?? 20000);
const PROFILE = process.env.PROFILE;

async function load(dist) {
  const u = (p) => pathToFileURL(`${dist}/${p}`).href;
  const [{ startEndpoint }, { Tracer }, { connectionFromUrl }, { createTracePrinter }, { TraceSummary }] = await Promise.all([
    import(u('endpoint/endpoint-server.js')), import(u('informer/trace.js')), import(u('kube/http/connection.js')), import(u('render/trace-printer.js')), import(u('render/summary.js')),
  ]);
  return { startEndpoint, Tracer, connectionFromUrl, createTracePrinter, TraceSummary };
}

/** What `-o ndjson > /dev/null` subscribes (as bench/endpoint.js does). */
function ndjson(m, tracer) {
  const fd = openSync('/dev/null', 'w');
  const printer = m.createTracePrinter({ output: 'ndjson', stream: { write: (s) => writeSync(fd, s) }, defaultStages: new Set(['endpoint']), showSecrets: false, batch: true });
  const summary = new m.TraceSummary({ startedAt: Date.now(), now: Date.now });
  const off = tracer.subscribe((r) => { summary.add(r); printer.write(r); });
  return () => { off(); printer.end(); closeSync(fd); };
}


/** This process's garbage collections since the last take(): mark-compacts and all GC ms (GC figures always on: cheap). */
const GC_MAJOR = perf.NODE_PERFORMANCE_GC_MAJOR;
const gcSeen = [];
new PerformanceObserver((l) => gcSeen.push(...l.getEntries())).observe({ entryTypes: ['gc'] });
const gcTaken = () => {
  const all = gcSeen.splice(0);
  return { majors: all.filter((e) => (e.detail?.kind ?? e.kind) === GC_MAJOR).length, gcMs: all.reduce((a, e) => a + e.duration, 0) };
};

const tick = () => new Promise((r) => setImmediate(r));
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const fmt = (xs, f = (x) => Math.round(x).toLocaleString('en-US')) => `${f(med(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;

console.log(`endpoint replay: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${PODS} pods, sizes ${SIZES.join(', ')}, ${ROUNDS} rounds; builds ${builds.map(([n, d]) => `${n}=${d}`).join(' ')}`);
const sim = await startSim(sharedSimOptions(PODS));
const client = startEndpointClient();
const relay = process.env.RELAY === '0' ? undefined : await startRelay(sim.url);
const keeperFlags = process.env.KEEPER_FLAGS?.split(' ').filter(Boolean) ?? [];
const keepers = process.env.KEEPER === '0' ? [] : [['keeper', await startKeeper('tcp', sim.url, keeperFlags)], ['keeper-http', await startKeeper('http', sim.url, keeperFlags)]];
const eps = {};
for (const [name, dist] of builds) {
  const m = await load(dist);
  const tracer = new m.Tracer();
  const upstream = m.connectionFromUrl(sim.url, { tracer });
  const ep = await m.startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
  eps[name] = { m, tracer, upstream, ep };
}
const variants = [{ key: 'direct', url: sim.url }];
if (relay) variants.push({ key: 'relay', url: relay.url });
for (const [key, k] of keepers) variants.push({ key, url: k.url, keeper: k });
for (const name of Object.keys(eps)) {
  variants.push({ key: name, url: eps[name].ep.url, name });
  if (process.env.NDJSON) variants.push({ key: `${name}-ndjson`, url: eps[name].ep.url, name, trace: true });
}

let session;
if (PROFILE) {
  session = new Session();
  session.connect();
  mkdirSync(RESULTS, { recursive: true });
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
}

// Warm-up: one short replay each way (JIT, connections), not counted.
{
  const u = await sim.command({ cmd: 'update', n: 1000, yieldEvery: 50 });
  for (const v of variants) await client.call({ cmd: 'watch', base: v.url, rv: u.from, n: 1000 });
}

const res = Object.fromEntries(SIZES.map((n) => [n, Object.fromEntries(variants.map((v) => [v.key, []]))]));
for (let r = 0; r < ROUNDS; r++) {
  for (const n of SIZES) {
    const u = await sim.command({ cmd: 'update', n, yieldEvery: 50 });
    const line = [];
    for (const v of variants.map((_, i) => variants[(i + r) % variants.length])) {
      const off = v.trace ? ndjson(eps[v.name].m, eps[v.name].tracer) : undefined;
      globalThis.gc?.();
      await v.keeper?.gc();
      await v.keeper?.take();
      // The forced collection's entry reaches the observer later: let it, so that it is not counted below.
      await new Promise((r) => setTimeout(r, 20));
      const profiling = PROFILE === v.key && n === SIZES.at(-1);
      if (profiling) await session.post('Profiler.start');
      gcTaken();
      const c0 = process.cpuUsage();
      const x = await client.call({ cmd: 'watch', base: v.url, rv: u.from, n });
      await tick();
      const c = process.cpuUsage(c0);
      const gc = gcTaken();
      // A keeper's figures are its own process's (this one only relayed the command).
      const kept = await v.keeper?.take();
      if (kept) { c.user = kept.cpuUs; c.system = 0; gc.majors = kept.majors; gc.gcMs = kept.gcMs; }
      if (profiling) writeFileSync(`${RESULTS}replay-${v.key}-${r}.cpuprofile`, JSON.stringify((await session.post('Profiler.stop')).profile));
      off?.();
      const cpuMs = (c.user + c.system) / 1000;
      const rec = { eps: ((x.events - 1) / x.spanMs) * 1000, headMs: x.headMs, firstMs: x.firstMs, spanMs: x.spanMs, cpuUsPerEvent: (cpuMs * 1000) / n, gcUsPerEvent: (gc.gcMs * 1000) / n, majors: gc.majors };
      res[n][v.key].push(rec);
      line.push(`${v.key} ${Math.round(rec.eps)}/s first ${rec.firstMs.toFixed(1)}ms cpu ${rec.cpuUsPerEvent.toFixed(1)}µs (gc ${rec.gcUsPerEvent.toFixed(1)}, ${gc.majors} mc)`);
    }
    console.log(`round ${r} n=${n} (load ${loadavg()[0].toFixed(1)}): ${line.join(' | ')}`);
  }
}

console.log('');
for (const n of SIZES) {
  const d = res[n].direct;
  console.log(`replay of ${n.toLocaleString('en-US')} events: median (min–max) of ${ROUNDS} rounds`);
  for (const v of variants) {
    const xs = res[n][v.key];
    const ratios = xs.map((x, i) => x.eps / d[i].eps);
    console.log(`  ${v.key.padEnd(15)} ${fmt(xs.map((x) => x.eps))} events/s; vs direct ${(med(xs.map((x) => x.eps)) / med(d.map((x) => x.eps))).toFixed(2)}x of medians, round by round ${fmt(ratios, (x) => x.toFixed(2))}; to headers ${fmt(xs.map((x) => x.headMs), (x) => x.toFixed(1))} ms, to first event ${fmt(xs.map((x) => x.firstMs), (x) => x.toFixed(1))} ms; span ${fmt(xs.map((x) => x.spanMs))} ms; this process's CPU ${fmt(xs.map((x) => x.cpuUsPerEvent), (x) => x.toFixed(1))} µs/event, of which GC ${fmt(xs.map((x) => x.gcUsPerEvent), (x) => x.toFixed(1))}, mark-compacts ${fmt(xs.map((x) => x.majors))}`);
  }
}
// What this process holds as the rounds end (garbage included: what V8's heap sizing lets wait) and its peak RSS.
const ended = process.memoryUsage();
const peakRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6; // maxRSS is in KiB
console.log(`as the rounds ended, no forced GC: heap ${Math.round(ended.heapUsed / 1e6)} MB, RSS ${Math.round(ended.rss / 1e6)} MB; peak RSS ${Math.round(peakRssMB)} MB`);
// What this process holds after full GCs: with one build, mostly what its endpoint remembers of what the client holds.
for (let i = 0; i < 3; i++) { globalThis.gc?.(); await tick(); }
const mem = process.memoryUsage();
console.log(`after the rounds, full GCs: heap ${Math.round(mem.heapUsed / 1e6)} MB, array buffers ${Math.round(mem.arrayBuffers / 1e6)} MB, RSS ${Math.round(mem.rss / 1e6)} MB`);
// A keeper that kept nothing measured nothing: each must have kept every event it passed on.
for (const [key, k] of keepers) { const t = await k.take(); console.log(`${key}: ${t.events.toLocaleString('en-US')} events kept, ${t.kept.toLocaleString('en-US')} objects' newest versions`); }
mkdirSync(RESULTS, { recursive: true });
writeFileSync(`${RESULTS}endpoint-replay.json`, JSON.stringify({ sizes: SIZES, rounds: ROUNDS, pods: PODS, builds, res, peakRssMB, endedRssMB: ended.rss / 1e6 }, null, 1));
for (const { ep, upstream } of Object.values(eps)) { await ep.close(); await upstream.close(); }
await relay?.close();
for (const [, k] of keepers) await k.close();
await client.close();
await sim.close();
process.exit(0);
