// One measurement in a fresh process (run with --expose-gc): argv[2] is a JSON spec
// { mode, url, pods, kubeconfig?, rvFrom?, rvTo?, keepManagedFields? }; prints one JSON result line.
// A fresh process per measurement keeps heaps and JIT state from leaking between the things compared.
//
// Modes
//   floor-paged     undici GET ?limit=500 pages following continue + JSON.parse of each page, nothing else
//   floor-whole     undici GET ?limit=500&resourceVersion=0 (the request client-go's reflector sends first; the
//                   watch cache ignores limit for RV=0, so one body) + JSON.parse, nothing else
//   core-list       buildPipeline (SharedIndexInformer + dry-run Controller), list-then-watch as client-go does
//   core-paged      the same, with the first list sent without resourceVersion=0 so that the server pages it
//   core-watchlist  the same with useWatchList (sendInitialEvents)
//   client-node     @kubernetes/client-node makeInformer over listPodForAllNamespaces() (one plain, unpaged list)
//   heap-core       SharedIndexInformer alone (default transform, or keepManagedFields): heap per cached pod
//   heap-client-node  makeInformer alone: heap per cached pod
//   byindex         SharedIndexInformer with a nodeName index: ByIndex latency
//   floor-watch     undici watch from rvFrom + JSON.parse of each line, until rvTo
//   floor-watch-cache  the same, keeping the newest object per key in a Map (what any cache must retain)
//   core-watch      buildPipeline with startAt rvFrom (watch only) until the reconcile has seen rvTo and the queue drained;
//                   spec.trace = 'ndjson' subscribes the ndjson trace printer writing to /dev/null; 'trace-out' keeps
//                   every record as --trace-out does (ids, causes), the file's writing at the end left out of the time
//                   (BENCH_TRACE_FILE=PATH writes the ndjson lines there instead of /dev/null, to compare two builds' output)
import { openSync, writeSync } from 'node:fs';
import { setImmediate } from 'node:timers';

const { AbortController, URLSearchParams } = globalThis;

const spec = JSON.parse(process.argv[2]);
const gc = globalThis.gc ?? (() => {});
const now = () => performance.now();
const PODS_PATH = '/api/v1/pods';

function settleHeap() {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

async function undiciAgent() {
  const { Agent } = await import('undici');
  return new Agent({ keepAliveTimeout: 30_000 });
}

async function floorList(paged) {
  const { request } = await import('undici');
  const dispatcher = await undiciAgent();
  const t0 = now();
  let cont = '';
  let items = 0;
  let pages = 0;
  let bytes = 0;
  do {
    const q = new URLSearchParams({ limit: '500' });
    if (!paged) q.set('resourceVersion', '0');
    if (cont) q.set('continue', cont);
    const res = await request(`${spec.url}${PODS_PATH}?${q}`, { dispatcher, headers: { accept: 'application/json' } });
    const text = await res.body.text();
    bytes += Buffer.byteLength(text);
    const page = JSON.parse(text);
    items += page.items.length;
    pages++;
    cont = page.metadata?.continue ?? '';
  } while (cont);
  const ms = now() - t0;
  await dispatcher.close();
  return { ms, items, pages, bytes };
}

async function core({ watchList = false, paged = false, indexers, keepManagedFields, pipeline = true, startAt, trace, reconcile = 'dry-run' } = {}) {
  const { connectionFromUrl } = await import('../../dist/kube/http/connection.js');
  const { HttpListerWatcher } = await import('../../dist/kube/lister-watchers/http-lister-watcher.js');
  const { buildPipeline, SharedIndexInformer, Tracer } = await import('../../dist/informer/index.js');
  // The connection imports undici on its first request; load it now, as the floor does before its clock starts.
  await import('undici');
  const tracer = new Tracer();
  if (trace === 'ndjson') {
    const { createTracePrinter } = await import('../../dist/render/trace-printer.js');
    // BENCH_TRACE_FILE keeps the lines (to compare a build's output with another's); by default they go nowhere.
    const fd = openSync(process.env.BENCH_TRACE_FILE || '/dev/null', 'w');
    // As kwatch events -o ndjson prints: the lines of one event-loop turn in one write.
    const printer = createTracePrinter({ output: 'ndjson', stream: { write: (s) => writeSync(fd, s) }, batch: true });
    // And as it counts for the exit summary: what the view does not print is not built, only counted.
    const { TraceSummary } = await import('../../dist/render/summary.js');
    const summary = new TraceSummary();
    tracer.subscribe((r) => {
      summary.add(r);
      printer.write(r);
    }, summary.interest(printer.shows));
  }
  if (trace === 'trace-out') {
    const { TraceCollector } = await import('../../dist/trace-export/trace-rows.js');
    new TraceCollector(tracer);
  }
  const conn = connectionFromUrl(spec.url, { tracer });
  // As kwatch events/index build it: managedFields are cut while decoding unless the cache keeps them.
  let lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true }, { omitManagedFields: !keepManagedFields });
  if (paged) {
    // Ask as if the server had no watch cache: without resourceVersion=0 the server pages at `limit`.
    const inner = lw;
    lw = { list: (o, s) => inner.list(o.resourceVersion === '0' ? { ...o, resourceVersion: undefined } : o, s), watch: (o, s) => inner.watch(o, s) };
  }
  let informer;
  let controller;
  if (pipeline) {
    const p = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer, useWatchList: watchList, indexers, keepManagedFields, reconcile, startAt });
    informer = p.informers[0];
    controller = p.controllers[0];
    return { conn, informer, controller, run: (signal) => p.run(signal) };
  }
  informer = new SharedIndexInformer({ listerWatcher: lw, name: 'pods', expectedKind: 'Pod', tracer, useWatchList: watchList, indexers, keepManagedFields });
  return { conn, informer, run: (signal) => informer.run(signal) };
}

async function coreSync(opts) {
  const c = await core(opts);
  const ac = new AbortController();
  const t0 = now();
  const running = c.run(ac.signal);
  const failed = running.then(() => {
    throw new Error('pipeline stopped before it synced');
  });
  await Promise.race([c.informer.whenSynced(ac.signal), failed, timeout(spec.timeoutMs ?? 240_000, () => lastError(c))]);
  const ms = now() - t0;
  const items = c.informer.getStore().size;
  ac.abort();
  await running.catch(() => {});
  await c.conn.close();
  return { ms, items, relists: c.informer.getReflector()?.stats.relists ?? 0 };
}

function lastError(c) {
  return `not synced; reflector phase ${JSON.stringify(c.informer.getReflector()?.phase)}`;
}

function timeout(ms, why) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${why()}`)), ms).unref());
}

async function clientNode({ keep = false } = {}) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(spec.kubeconfig);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, PODS_PATH, () => api.listPodForAllNamespaces());
  let error;
  informer.on('error', (err) => (error ??= err));
  const t0 = now();
  await informer.start();
  const ms = now() - t0;
  const items = informer.list().length;
  const failure = error; // stop() aborts the watch, which client-node reports as an error too
  if (!keep) await informer.stop();
  if (failure || items < spec.pods) throw new Error(failure ? String(failure?.message ?? failure).split('\n')[0] : `synced ${items} of ${spec.pods} pods`);
  return { ms, items, informer };
}

async function heapCore() {
  const base = settleHeap();
  const c = await core({ pipeline: false, keepManagedFields: !!spec.keepManagedFields });
  const ac = new AbortController();
  const running = c.run(ac.signal);
  await c.informer.whenSynced(ac.signal);
  const items = c.informer.getStore().size;
  const after = settleHeap();
  const bytesPerPod = (after - base) / items;
  ac.abort();
  await running.catch(() => {});
  await c.conn.close();
  return { items, bytesPerPod: Math.round(bytesPerPod), heapMB: Math.round((after - base) / 1e6) };
}

async function heapClientNode() {
  await import('@kubernetes/client-node'); // module load is not cache
  const base = settleHeap();
  const r = await clientNode({ keep: true });
  const after = settleHeap();
  const bytesPerPod = (after - base) / r.items;
  await r.informer.stop();
  return { items: r.items, bytesPerPod: Math.round(bytesPerPod), heapMB: Math.round((after - base) / 1e6) };
}

async function byIndex() {
  const { nodeNameIndexFunc } = await import('../../dist/informer/index.js');
  const c = await core({ pipeline: false, indexers: { nodeName: nodeNameIndexFunc } });
  const ac = new AbortController();
  const running = c.run(ac.signal);
  await c.informer.whenSynced(ac.signal);
  const idx = c.informer.getIndexer();
  const values = idx.listIndexFuncValues('nodeName').filter((v) => v !== '');
  let sink = 0;
  for (let i = 0; i < 500; i++) sink += idx.byIndex('nodeName', values[i % values.length]).length; // warm up
  const calls = spec.calls ?? 3000;
  const samples = [];
  let results = 0;
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    const r = idx.byIndex('nodeName', values[i % values.length]);
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
    results += r.length;
  }
  samples.sort((a, b) => a - b);
  ac.abort();
  await running.catch(() => {});
  await c.conn.close();
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { items: idx.size, values: values.length, perValue: Math.round(results / calls), medianUs: +samples[samples.length >> 1].toFixed(1), meanUs: +mean.toFixed(1), p99Us: +samples[Math.floor(samples.length * 0.99)].toFixed(1), nsPerResult: Math.round((mean * 1000) / (results / calls)), sink };
}

async function floorWatch({ cache } = {}) {
  const kept = new Map();
  const { request } = await import('undici');
  const dispatcher = await undiciAgent();
  const ac = new AbortController();
  const t0 = now();
  const res = await request(`${spec.url}${PODS_PATH}?watch=true&resourceVersion=${spec.rvFrom}`, { dispatcher, signal: ac.signal, headers: { accept: 'application/json' } });
  let events = 0;
  let bytes = 0;
  let pending = [];
  const target = spec.rvTo;
  try {
    outer: for await (const chunk of res.body) {
      bytes += chunk.length;
      let start = 0;
      let nl = chunk.indexOf(10);
      while (nl !== -1) {
        const part = chunk.subarray(start, nl);
        const line = pending.length ? Buffer.concat([...pending, part]).toString('utf8') : part.toString('utf8');
        pending = [];
        const ev = JSON.parse(line);
        events++;
        if (cache) kept.set(`${ev.object.metadata.namespace}/${ev.object.metadata.name}`, ev.object);
        if (Number(ev.object.metadata.resourceVersion) >= target) break outer;
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
  } finally {
    ac.abort();
  }
  const ms = now() - t0;
  await dispatcher.destroy().catch(() => {});
  return { ms, events, bytes, eventsPerSec: Math.round(events / (ms / 1000)), cached: kept.size };
}

async function coreWatch() {
  const target = String(spec.rvTo);
  let seenTarget;
  const reached = new Promise((resolve) => (seenTarget = resolve));
  // The last stage's view without a listener of its own (kwatch adds none): the dry-run reconcile (a cache
  // lookup) that also notices the last change; then the controller must drain its queue.
  const reconcile = async (req) => {
    const obj = req.cache.getByKey(req.key);
    if (obj?.metadata.resourceVersion === target) seenTarget();
  };
  const c = await core({ startAt: { resourceVersion: String(spec.rvFrom), onExpired: 'stop' }, trace: spec.trace, reconcile });
  const events = () => c.informer.stats.deltas;
  const ac = new AbortController();
  const t0 = now();
  const cpu0 = process.cpuUsage();
  const running = c.run(ac.signal);
  await Promise.race([reached, timeout(spec.timeoutMs ?? 240_000, () => `saw ${events()} events`)]);
  while (c.controller.queue.len() > 0 || c.controller.stats.active > 0) await new Promise((r) => setImmediate(r));
  const ms = now() - t0;
  // CPU time of this process alone (user + system, GC threads included): on a loaded machine the wall time also
  // counts the time other processes held the cores, so the CPU time per event compares modes more steadily.
  const cpu = process.cpuUsage(cpu0);
  ac.abort();
  await running.catch(() => {});
  await c.conn.close();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { ms, cpuMs, events: events(), reconciles: c.controller.stats.reconciles, eventsPerSec: Math.round(events() / (ms / 1000)), cpuUsPerEvent: Math.round((cpuMs * 1000) / events()) };
}

const modes = {
  'floor-paged': () => floorList(true),
  'floor-whole': () => floorList(false),
  'core-list': () => coreSync({}),
  'core-paged': () => coreSync({ paged: true }),
  'core-watchlist': () => coreSync({ watchList: true }),
  'client-node': async () => {
    const r = await clientNode();
    return { ms: r.ms, items: r.items };
  },
  'heap-core': heapCore,
  'heap-client-node': heapClientNode,
  byindex: byIndex,
  'floor-watch': () => floorWatch(),
  'floor-watch-cache': () => floorWatch({ cache: true }),
  'core-watch': coreWatch,
};

try {
  const result = await modes[spec.mode]();
  process.stdout.write(`${JSON.stringify({ ok: true, ...result, rssMB: Math.round(process.memoryUsage().rss / 1e6) })}\n`);
  process.exit(0);
} catch (err) {
  const reason = String(err?.message ?? err).split('\n')[0];
  process.stdout.write(`${JSON.stringify({ ok: false, reason })}\n`);
  process.exit(0);
}
