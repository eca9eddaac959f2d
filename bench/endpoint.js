// Benchmark (issue 26): kwatch's endpoint (`reconcile --exec`, `proxy`) against the target directly, in one run:
//   1. LIST of all pods through the endpoint (intercept: reads forwarded) vs straight to the sim, as one body and in
//      pages of 500: the client's time from request to parsed JSON (goal ≤ 1.3x)
//   2. watch events/s delivered to a watching client through the endpoint vs directly (goal ≥ 0.8x): under a write
//      load driven into the sim's store in its own process (as fast as it takes them), and as a replay of 16,000
//      updates from the sim's history, the same for every variant of a round (the server then only streams, so the
//      path after it is the bottleneck)
//   3. the fork's memory (overlay): this process's heap growth, after full GCs, from mirroring the pods (the first
//      request for pods through the endpoint starts the mirror), against the mirrored objects' JSON size (goal ≤ 1.5x)
//   4. overlay write → its watch event at the controller: merge PATCH and PUT in turn, one at a time (p99 ≤ 10 ms)
// Three processes, as in use: the sim (bench/lib/sim-child.js, shared with the other scripts under run.js) stands for
// the cluster; this process runs kwatch's endpoint (and the fork) as `kwatch reconcile --exec` would; the controller
// is bench/lib/endpoint-client.js, a plain undici client that talks to the sim or to the endpoint by base URL alone.
// The endpoint runs with no trace subscriber, and with the one `-o ndjson > /dev/null` has (the ndjson printer writing
// to /dev/null, plus the exit summary), switched between rounds on the same endpoint. Every figure is the median of
// interleaved rounds (the order rotates each round) with its min–max; ratios are of medians from the same rounds.
// Run after `npm run build`: node --expose-gc bench/endpoint.js     (BENCH_QUICK=1 for a small, fast run)
import { closeSync, openSync, writeSync } from 'node:fs';
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startRelay } from './lib/tcp-relay.js';
import { QUICK, fmtInt, fmtSpread, publish, round, spread, startLoadNote, table, verdictUnderLoad } from './lib/common.js';
import { startEndpointClient } from './lib/endpoint-client-process.js';
import { sharedSimOptions, startSim } from './lib/sim.js';
import { startEndpoint } from '../dist/endpoint/endpoint-server.js';
import { Fork } from '../dist/endpoint/fork.js';
import { Tracer } from '../dist/informer/trace.js';
import { connectionFromUrl } from '../dist/kube/http/connection.js';
import { createTracePrinter } from '../dist/render/trace-printer.js';
import { TraceSummary } from '../dist/render/summary.js';

const PODS = QUICK ? 4000 : 20000;
const LIST_REPS = QUICK ? 2 : 3;
const PAGE = 500;
const WATCH_EVENTS = QUICK ? 2000 : 4000;
/**
 * The history replay's length. 4,000 events were ~0.2 s on a fast host, shorter than the endpoint's garbage-collection
 * rhythm (a mark-compact every few thousand pod events): a replay held 0, 1 or 2 of them by chance, and its rounds read
 * 0.7–1.0x of direct. At 16,000 every replay holds its share (docs/benchmarks.md, "Round 8").
 */
const REPLAY_EVENTS = QUICK ? 4000 : 16000;
const WATCH_REPS = QUICK ? 2 : 5;
/** The sim's write loop yields to its event loop this often, so that watches flush while it writes. */
const WATCH_YIELD_EVERY = 50;
const WRITES = 500;
const WRITE_WARMUP = 50;
const WRITE_REPS = QUICK ? 1 : 2;
/** BENCH_ENDPOINT_PARTS=wire (1 and 2; or list, watch: one of them) or fork (3 and 4): a part alone; both by default. */
const PARTS = new Set((process.env.BENCH_ENDPOINT_PARTS ?? 'wire,fork').split(',').flatMap((p) => (p === 'wire' ? ['list', 'watch'] : [p])));
const GOALS = { list: 1.3, watch: 0.8, memory: 1.5, p99Ms: 10 };

const gc = globalThis.gc;
if (!gc) console.error('endpoint bench: run with --expose-gc (as bench/run.js does): the memory figures need full GCs');

// The controller process: bench/lib/endpoint-client-process.js.

// ---- kwatch's side ----


/** What `-o ndjson > /dev/null` subscribes (as src/cli/exec-run.ts does): the ndjson printer, to /dev/null, and the exit summary. */
function ndjsonSubscriber(tracer) {
  const fd = openSync('/dev/null', 'w');
  const printer = createTracePrinter({ output: 'ndjson', stream: { write: (s) => writeSync(fd, s) }, defaultStages: new Set(['endpoint']), showSecrets: false, batch: true });
  const summary = new TraceSummary({ startedAt: Date.now(), now: Date.now });
  const unsubscribe = tracer.subscribe((r) => {
    summary.add(r);
    printer.write(r);
  });
  return () => {
    unsubscribe();
    printer.end();
    closeSync(fd);
  };
}

const tick = () => new Promise((r) => setImmediate(r));

/** This process's mark-compacts so far (the observer's entries arrive a turn late: a round's count may carry one over). */
let markCompacts = 0;
new PerformanceObserver((l) => { markCompacts += l.getEntries().filter((e) => (e.detail?.kind ?? e.kind) === perf.NODE_PERFORMANCE_GC_MAJOR).length; }).observe({ entryTypes: ['gc'] });

/** heapUsed and RSS after full GCs (and turns of the event loop between them, for what finalizers free). */
async function settledMemory() {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await tick();
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external, rss: m.rss };
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)];
};

// ---- the measurements ----

const VARIANTS = [
  { key: 'direct', label: 'directly to the sim (reference)', via: 'sim', trace: false },
  { key: 'relay', label: 'through a bare TCP relay (reference: the cost of any process in between)', via: 'relay', trace: false },
  { key: 'endpoint', label: 'through the endpoint, no trace subscriber', via: 'endpoint', trace: false },
  { key: 'endpoint-ndjson', label: 'through the endpoint, -o ndjson to /dev/null', via: 'endpoint', trace: true },
];
/** The variants the goals are about (the others are references). */
const MEASURED = VARIANTS.filter((v) => v.via === 'endpoint');
/** The fork's writes have no relay to compare with. */
const FORK_VARIANTS = VARIANTS.filter((v) => v.via !== 'relay');
const rotated = (xs, r) => xs.map((_, i) => xs[(i + r) % xs.length]);

/** Runs `fn(variant)` for every variant, `reps` rounds, the order rotating; the tracer subscribed for the variants that trace. */
async function rounds(reps, variants, tracer, fn, log) {
  const runs = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (let r = 0; r < reps; r++) {
    for (const v of rotated(variants, r)) {
      const off = v.trace ? ndjsonSubscriber(tracer) : undefined;
      const c0 = process.cpuUsage();
      const mc0 = markCompacts;
      try {
        const res = await fn(v, r);
        await tick();
        const cpu = process.cpuUsage(c0);
        res.kwatchCpuMs = (cpu.user + cpu.system) / 1000;
        res.markCompacts = markCompacts - mc0;
        runs[v.key].push(res);
        log(v, res);
      } finally {
        off?.();
      }
      gc?.();
    }
  }
  return runs;
}

export async function benchEndpoint(log = console.log) {
  const out = { pods: PODS, machine: {}, list: {}, watch: {}, memory: {}, writes: {} };
  log(`endpoint: starting the sim with ${PODS} pods…`);
  const sim = await startSim(sharedSimOptions(PODS));
  out.sim = { pods: sim.pods, populateMs: sim.populateMs, rssMB: sim.rssMB };
  const client = startEndpointClient();
  const tracer = new Tracer();
  const upstream = connectionFromUrl(sim.url, { tracer });
  const endpoints = [];
  try {
    // ---- 1 and 2: intercept, reads forwarded ----
    const ep = await startEndpoint({ upstream, mode: 'intercept', tracer, loopThreshold: 5, stallAfterMs: 300_000 });
    endpoints.push(ep);
    // Untimed: the JSON size of the pods (for 3), and one pass each way (JIT, connections).
    const sized = await client.call({ cmd: 'list', base: sim.url, itemBytes: true });
    out.itemBytes = sized.itemBytes;
    out.listBytes = sized.bytes;
    log(`  ${fmtInt(sized.items)} pods, ${fmtInt(sized.itemBytes / sized.items)} B of JSON each, ${fmtInt(sized.bytes / 1e6)} MB in one list body`);
    if (PARTS.has('list') || PARTS.has('watch')) {
      const relay = await startRelay(sim.url);
      try {
        await wire(ep, relay);
      } finally {
        await relay.close();
      }
    }
    await ep.close();
    endpoints.splice(endpoints.indexOf(ep), 1); // what it remembered of its client is garbage now, before the memory figures
    if (PARTS.has('fork')) await forked();
  } finally {
    for (const e of endpoints) await e.close();
    await client.close();
    await upstream.close();
    await sim.close();
  }
  out.targets = targets(out);
  return out;

  async function wire(ep, relay) {
    const base = (v) => (v.via === 'sim' ? sim.url : v.via === 'relay' ? relay.url : ep.url);
    await client.call({ cmd: 'list', base: ep.url });
    await client.call({ cmd: 'list', base: ep.url, limit: PAGE });
    for (const [key, limit] of PARTS.has('list') ? [['whole', undefined], ['paged', PAGE]] : []) {
      out.list[key] = await rounds(LIST_REPS, VARIANTS, tracer, (v) => client.call({ cmd: 'list', base: base(v), limit }), (v, r) => log(`  list ${key} ${v.key}: ${fmtInt(r.ms)} ms (body ${fmtInt(r.bodyMs)} ms, ${r.pages} pages, kwatch CPU ${fmtInt(r.kwatchCpuMs)} ms)`));
    }

    if (!PARTS.has('watch')) return;
    // Each round replays the same REPLAY_EVENTS for every variant: updates written at the round's start (nobody
    // watching, unmeasured), then the first variant's live ones.
    const replayFrom = [];
    out.watch = await rounds(WATCH_REPS, VARIANTS, tracer, async (v, r) => {
      if (replayFrom[r] === undefined) replayFrom[r] = REPLAY_EVENTS > WATCH_EVENTS ? (await sim.command({ cmd: 'update', n: REPLAY_EVENTS - WATCH_EVENTS, yieldEvery: 0 })).from : null;
      const { rv } = await sim.command({ cmd: 'state' });
      const live = client.start({ cmd: 'watch', base: base(v), rv, n: WATCH_EVENTS });
      await live.opened;
      const u = await sim.command({ cmd: 'update', n: WATCH_EVENTS, yieldEvery: WATCH_YIELD_EVERY });
      const l = await live.done;
      const replay = await client.call({ cmd: 'watch', base: base(v), rv: replayFrom[r] ?? u.from, n: REPLAY_EVENTS });
      return {
        live: ((l.events - 1) / l.spanMs) * 1000,
        simWrites: (WATCH_EVENTS / u.ms) * 1000,
        replay: ((replay.events - 1) / replay.spanMs) * 1000,
      };
    }, (v, r) => log(`  watch ${v.key}: live ${fmtInt(r.live)} events/s (the sim wrote ${fmtInt(r.simWrites)}/s), replay ${fmtInt(r.replay)} events/s, kwatch CPU ${fmtInt(r.kwatchCpuMs)} ms, ${r.markCompacts} mark-compacts`));
    out.watchPeakRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6; // maxRSS is in KiB
    log(`  after the watch rounds: RSS ${fmtInt(process.memoryUsage().rss / 1e6)} MB (no forced GC), peak RSS ${fmtInt(out.watchPeakRssMB)} MB (this process, the LISTs before included)`);
  }

  // ---- 3 and 4: overlay, the fork ----
  async function forked() {
    const before = await settledMemory();
    const fork = new Fork({ upstream, tracer, maxObjects: PODS * 10, syncTimeoutMs: 900_000, notice: (line) => log(`  ${line}`) });
    const overlay = await startEndpoint({ upstream, mode: 'overlay', fork, tracer, loopThreshold: 5, stallAfterMs: 300_000 });
    endpoints.push(overlay);
    const t0 = performance.now();
    // The first request for pods starts the mirror and waits for its initial list; limit=1 keeps the client's own
    // session (which remembers what it was sent) out of the figure.
    await client.call({ cmd: 'list', base: overlay.url, limit: 1, maxPages: 1 });
    const mirrorMs = performance.now() - t0;
    const mirrored = await settledMemory();
    await client.call({ cmd: 'list', base: overlay.url });
    const listed = await settledMemory();
    out.memory = {
      objects: fork.objects,
      mirrorMs,
      itemBytes: out.itemBytes,
      heapGrowth: mirrored.heap - before.heap,
      rssGrowth: mirrored.rss - before.rss,
      externalGrowth: mirrored.external - before.external,
      heapGrowthAfterList: listed.heap - before.heap,
      rssGrowthAfterList: listed.rss - before.rss,
    };
    log(`  fork: ${fmtInt(fork.objects)} objects mirrored in ${fmtInt(mirrorMs)} ms; heap +${fmtInt(out.memory.heapGrowth / 1e6)} MB, RSS +${fmtInt(out.memory.rssGrowth / 1e6)} MB for ${fmtInt(out.itemBytes / 1e6)} MB of JSON`);

    const WRITE_VARIANTS = FORK_VARIANTS.map((v) => ({ ...v, label: v.label.replace('the endpoint', 'the endpoint (overlay)') }));
    out.writes = await rounds(WRITE_REPS, WRITE_VARIANTS, tracer, (v, r) => client.call({ cmd: 'writes', base: v.via === 'sim' ? sim.url : overlay.url, namespace: 'default', name: `bench-endpoint-${v.key}-${r}`, n: WRITES, warmup: WRITE_WARMUP }), (v, r) => log(`  writes ${v.key}: p50 ${round(percentile(r.latenciesMs, 0.5), 2)} ms, p99 ${round(percentile(r.latenciesMs, 0.99), 2)} ms`));
  }
}

// ---- the tables ----

const series = (runs, pick) => spread(runs.map(pick));
const ratio = (a, b) => (a && b ? a.median / b.median : undefined);

export function targets(out) {
  const t = [];
  for (const [key, what] of [['whole', 'one body'], ['paged', `pages of ${PAGE}`]]) {
    const runs = out.list[key];
    if (!runs) continue;
    const d = series(runs.direct, (r) => r.ms);
    const db = series(runs.direct, (r) => r.bodyMs);
    for (const v of MEASURED) {
      const e = series(runs[v.key], (r) => r.ms);
      const eb = series(runs[v.key], (r) => r.bodyMs);
      const x = ratio(e, d);
      t.push({ target: `LIST ${fmtInt(out.pods)} pods, ${what}, ${v.label}: ≤ ${GOALS.list}x direct (request to parsed JSON)`, met: x <= GOALS.list, figure: `${round(x, 2)}x (${fmtInt(e.median)} vs ${fmtInt(d.median)} ms); to the last byte, before parsing: ${round(ratio(eb, db), 2)}x (${fmtInt(eb.median)} vs ${fmtInt(db.median)} ms)` });
    }
  }
  const w = out.watch;
  for (const [key, what] of [['live', 'under the write load'], ['replay', 'history replay']]) {
    if (!w.direct) break;
    const d = series(w.direct, (r) => r[key]);
    for (const v of MEASURED) {
      const e = series(w[v.key], (r) => r[key]);
      const x = ratio(e, d);
      t.push({ target: `watch events/s, ${what}, ${v.label}: ≥ ${GOALS.watch}x direct`, met: x >= GOALS.watch, figure: `${round(x, 2)}x (${fmtInt(e.median)} vs ${fmtInt(d.median)} events/s)` });
    }
  }
  const m = out.memory;
  if (m.objects === undefined) return t;
  const mx = m.heapGrowth / m.itemBytes;
  t.push({ target: `fork memory: heap growth from mirroring ${fmtInt(m.objects)} objects ≤ ${GOALS.memory}x their JSON size`, met: mx <= GOALS.memory, figure: `${round(mx, 2)}x (heap +${fmtInt(m.heapGrowth / 1e6)} MB for ${fmtInt(m.itemBytes / 1e6)} MB of JSON; RSS +${fmtInt(m.rssGrowth / 1e6)} MB, ${round(m.rssGrowth / m.itemBytes, 2)}x)` });
  for (const v of MEASURED) {
    const all = out.writes[v.key].flatMap((r) => r.latenciesMs);
    const p99 = percentile(all, 0.99);
    t.push({ target: `overlay write → its watch event, ${v.label.replace('through the endpoint, ', '')}: p99 ≤ ${GOALS.p99Ms} ms`, met: p99 <= GOALS.p99Ms, figure: `p99 ${round(p99, 2)} ms, p50 ${round(percentile(all, 0.5), 2)} ms over ${fmtInt(all.length)} writes` });
  }
  return t;
}

export function endpointMarkdown(out) {
  const parts = [];
  const ms = (r) => `${fmtInt(r.median)} ms`;
  const rangeMs = (s) => fmtSpread(s, (x) => `${fmtInt(x)}`);
  wireTables(out, parts, ms, rangeMs);
  if (out.memory.objects !== undefined) forkTables(out, parts);
  parts.push('### Targets');
  parts.push(table(['target', 'verdict (from medians)', 'figure'], out.targets.map((t) => [t.target, verdictUnderLoad(t.met), t.figure])));
  parts.push(`${startLoadNote()} Three processes: the sim (the cluster), kwatch's endpoint, the client (the controller). Sim: ${fmtInt(out.sim.pods)} pods${out.sim.populateMs !== undefined ? ` populated in ${fmtInt(out.sim.populateMs)} ms` : ''}.`);
  return parts.join('\n\n');
}

function wireTables(out, parts, ms, rangeMs) {
  if (out.list.whole) listTables(out, parts, ms, rangeMs);
  if (out.watch.direct) watchTables(out, parts);
}

function listTables(out, parts, ms, rangeMs) {
  parts.push(`### LIST of ${fmtInt(out.pods)} pods (~${fmtInt(out.itemBytes / out.pods)} B of JSON each, ${fmtInt(out.listBytes / 1e6)} MB in one body): the client's time from request to parsed JSON, median and min–max ms of ${LIST_REPS} interleaved rounds`);
  const listRows = [];
  for (const v of VARIANTS) {
    const row = [v.label];
    for (const key of ['whole', 'paged']) {
      const runs = out.list[key];
      const s = series(runs[v.key], (r) => r.ms);
      const b = series(runs[v.key], (r) => r.bodyMs);
      row.push(rangeMs(s), v.key === 'direct' ? '1' : `${round(ratio(s, series(runs.direct, (r) => r.ms)), 2)}x`, ms(b), fmtInt(series(runs[v.key], (r) => r.kwatchCpuMs).median));
    }
    listRows.push(row);
  }
  parts.push(table(['how', 'one body', 'vs direct', 'to last byte', 'kwatch CPU ms', `pages of ${PAGE}`, 'vs direct', 'to last byte', 'kwatch CPU ms'], listRows));
  parts.push('"to last byte": the same without the client\'s JSON.parse. "kwatch CPU ms": CPU time of the process that runs the endpoint, over the round (the trace of the list included: kwatch decodes every answer it forwards, to know what the client holds).');

}

function watchTables(out, parts) {
  parts.push(`### Watch events/s delivered to the client (${fmtInt(WATCH_EVENTS)} pod updates per round, a replay of ${fmtInt(REPLAY_EVENTS)}; median and min–max of ${WATCH_REPS} interleaved rounds)`);
  const w = out.watch;
  parts.push(table(['how', 'under the write load', 'vs direct', 'the sim wrote /s', 'history replay', 'vs direct', 'kwatch CPU ms'], VARIANTS.map((v) => {
    const l = series(w[v.key], (r) => r.live);
    const rp = series(w[v.key], (r) => r.replay);
    return [v.label, fmtSpread(l), v.key === 'direct' ? '1' : `${round(ratio(l, series(w.direct, (r) => r.live)), 2)}x`, fmtInt(series(w[v.key], (r) => r.simWrites).median), fmtSpread(rp), v.key === 'direct' ? '1' : `${round(ratio(rp, series(w.direct, (r) => r.replay)), 2)}x`, fmtInt(series(w[v.key], (r) => r.kwatchCpuMs).median)];
  })));
  parts.push(`"Under the write load": the sim's store takes ${fmtInt(WATCH_EVENTS)} pod updates as fast as it can (yielding every ${WATCH_YIELD_EVERY} so that watches flush), in its own process, while the client watches; events/s from the first event received to the last. "History replay": then a watch that replays ${fmtInt(REPLAY_EVENTS)} updates from the round's start (${REPLAY_EVENTS > WATCH_EVENTS ? `${fmtInt(REPLAY_EVENTS - WATCH_EVENTS)} written then with nobody watching, and the round's first ${fmtInt(WATCH_EVENTS)} live ones: ` : ''}the same ones for every variant of a round), which the sim streams from its history: the server only streams, the path after it is the bottleneck. "kwatch CPU ms": the endpoint's process over the whole round (both watches).`);

}

function forkTables(out, parts) {
  const m = out.memory;
  parts.push(`### The fork's memory (overlay: ${fmtInt(m.objects)} objects mirrored, the pods and their namespaces; this process, after full GCs)`);
  parts.push(table(['', 'MB', 'vs the JSON size'], [
    ['JSON size of the mirrored pods (each serialised alone)', fmtInt(m.itemBytes / 1e6), '1'],
    ['heap growth: mirroring (the first request for pods, limit=1)', fmtInt(m.heapGrowth / 1e6), `${round(m.heapGrowth / m.itemBytes, 2)}x`],
    ['RSS growth: mirroring', fmtInt(m.rssGrowth / 1e6), `${round(m.rssGrowth / m.itemBytes, 2)}x`],
    ['heap growth after the client then listed every pod through the fork', fmtInt(m.heapGrowthAfterList / 1e6), `${round(m.heapGrowthAfterList / m.itemBytes, 2)}x`],
    ['RSS growth after that list', fmtInt(m.rssGrowthAfterList / 1e6), `${round(m.rssGrowthAfterList / m.itemBytes, 2)}x`],
  ]));
  parts.push(`Mirroring took ${fmtInt(m.mirrorMs)} ms (the first request waits for it). The growth after the client's full list adds what the endpoint remembers per client: the newest version it was sent of each object (the base of write diffs and stale-write checks).`);

  parts.push(`### Overlay write → its watch event at the client (${WRITES} writes per round after ${WRITE_WARMUP} unmeasured, merge PATCH and PUT in turn, one at a time; ${WRITE_REPS} interleaved round${WRITE_REPS > 1 ? 's' : ''}, percentiles over all rounds)`);
  parts.push(table(['how', 'writes', 'p50 ms', 'p99 ms', 'max ms', 'p99 of each round'], FORK_VARIANTS.map((v) => {
    const runs = out.writes[v.key];
    const all = runs.flatMap((r) => r.latenciesMs);
    return [v.key === 'direct' ? 'directly to the sim (reference: no fork, no endpoint)' : v.label.replace('the endpoint', 'the endpoint (overlay)'), fmtInt(all.length), round(percentile(all, 0.5), 2), round(percentile(all, 0.99), 2), round(Math.max(...all), 2), runs.map((r) => round(percentile(r.latenciesMs, 0.99), 2)).join(', ')];
  })));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await benchEndpoint();
  publish('endpoint', out, endpointMarkdown(out));
}
