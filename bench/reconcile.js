// kwatch reconcile's own costs (issue 10), in-process on an in-memory ListerWatcher so only the runner is measured:
//   1. per-run overhead of the runner (trigger → scheduler → workqueue → worker → context → report) with a
//      no-op reconciler over N keys, against the informer pipeline's own per-event cost on the same objects;
//   2. the scheduler's memory with 100k keys pending (queued with one reason each), with and without debounce.
// Tracing is off (nobody subscribes), as in a plain run's hot path. Medians of RUNS fresh sessions.
import { QUICK, machine, median, publish, round, table } from './lib/common.js';

const KEYS = QUICK ? 2_000 : 10_000;
const PENDING = QUICK ? 20_000 : 100_000;
const RUNS = QUICK ? 3 : 7;

const { FakeListerWatcher } = await import('../dist/informer/fake-lister-watcher.js');
const { SharedIndexInformer } = await import('../dist/informer/shared-informer.js');
const { Tracer } = await import('../dist/informer/trace.js');
const { FakeClock } = await import('../dist/informer/clock.js');
const { RateLimitingQueue } = await import('../dist/informer/workqueue/rate-limiting-queue.js');
const { ReconcileSession } = await import('../dist/reconcile/session.js');
const { Scheduler } = await import('../dist/reconcile/scheduler.js');

const INFO = { name: 'deployments.apps', group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

function server() {
  const lw = new FakeListerWatcher({ kind: 'Deployment', apiVersion: 'apps/v1' });
  for (let i = 0; i < KEYS; i++) lw.apply({ metadata: { namespace: `ns-${i % 50}`, name: `d-${i}`, labels: { app: `a${i}` } }, spec: { replicas: 1 } });
  return lw;
}

const settle = () => new Promise((r) => setImmediate(r));

/** Informer alone: LIST → FIFO → indexer → one listener that does nothing. */
async function informerOnly() {
  const lw = server();
  const informer = new SharedIndexInformer({ listerWatcher: lw, name: 'deployments.apps', expectedKind: 'Deployment', tracer: new Tracer(), random: () => 0.5 });
  let seen = 0;
  informer.addEventHandler({ onAdd: () => seen++ });
  const ac = new AbortController();
  const t0 = performance.now();
  const running = informer.run(ac.signal);
  while (seen < KEYS) await settle();
  const ms = performance.now() - t0;
  ac.abort();
  await running;
  return ms;
}

/** The same objects through a reconcile session with a no-op reconciler, until every key ran once. */
async function session() {
  const lw = server();
  const catalog = { resolve: async () => INFO, resolveKind: async () => INFO, listerWatcher: () => lw };
  let runs = 0;
  const s = new ReconcileSession({ catalog, mode: 'intercept', tracer: new Tracer(), random: () => 0.5, controllers: [{ name: 'noop', definition: { for: 'deployments.apps', reconcile: () => void runs++ } }] });
  await s.setup();
  const ac = new AbortController();
  const t0 = performance.now();
  const running = s.run(ac.signal);
  while (runs < KEYS) await settle();
  const ms = performance.now() - t0;
  ac.abort();
  await running;
  return ms;
}

function heap() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

/** Bytes per pending key: PENDING keys triggered once each and left queued (no worker takes them). */
function pendingMemory(debounceMs) {
  const clock = new FakeClock();
  const before = heap();
  const queue = new RateLimitingQueue({ name: 'bench', clock, tracer: new Tracer() });
  const scheduler = new Scheduler(queue, { controller: 'bench', debounceMs, clock, tracer: new Tracer() });
  for (let i = 0; i < PENDING; i++) scheduler.trigger(`ns-${i % 100}/object-${i}`, { op: 'OnAdd', reason: 'object updated', resource: 'deployments.apps', key: `ns-${i % 100}/object-${i}`, rv: String(1000 + i), time: 0 });
  const after = heap();
  const pending = debounceMs > 0 ? scheduler.debouncingCount : queue.len();
  if (pending !== PENDING) throw new Error(`expected ${PENDING} pending keys, got ${pending}`);
  return (after - before) / PENDING;
}

// Warm up both paths once, then alternate.
await informerOnly();
await session();
const inf = [];
const ses = [];
for (let i = 0; i < RUNS; i++) {
  inf.push(await informerOnly());
  ses.push(await session());
}
const infUs = (median(inf) * 1000) / KEYS;
const sesUs = (median(ses) * 1000) / KEYS;
const overheadUs = sesUs - infUs;
const memPlain = [];
const memDebounce = [];
for (let i = 0; i < 3; i++) {
  memPlain.push(pendingMemory(0));
  memDebounce.push(pendingMemory(500));
}

const rows = [
  [`informer pipeline alone, ${KEYS.toLocaleString('en-US')} objects`, `${round(infUs, 2)} µs/event`, '1.00x'],
  [`+ reconcile runner, no-op reconciler (one run per key)`, `${round(sesUs, 2)} µs/key`, `${round(sesUs / infUs, 2)}x`],
  ['runner overhead per reconcile', `${round(overheadUs, 2)} µs`, `${round(overheadUs / infUs, 2)}x the per-event cost`],
  [`scheduler + workqueue, ${PENDING.toLocaleString('en-US')} keys pending`, `${round(median(memPlain))} B/key`, `${round((median(memPlain) * PENDING) / 2 ** 20, 1)} MiB`],
  [`same with --debounce (keys waiting in the window)`, `${round(median(memDebounce))} B/key`, `${round((median(memDebounce) * PENDING) / 2 ** 20, 1)} MiB`],
];
const md = `${table(['measure', 'median', 'ratio / total'], rows)}\n\nMedians of ${RUNS} alternating runs; tracing off; ${machine().cpus} × ${machine().cpuModel}, load average ${machine().loadavg.join(' ')}.\n`;
publish('reconcile', { keys: KEYS, pending: PENDING, informerUsPerEvent: infUs, sessionUsPerKey: sesUs, overheadUs, bytesPerPendingKey: median(memPlain), bytesPerDebouncedKey: median(memDebounce), raw: { inf, ses, memPlain, memDebounce } }, md);
