// One latency measurement in a fresh process: argv[2] is a JSON spec { mode: 'raw' | 'core', url, rvFrom, fromSeq, toSeq }.
// Watches pods from rvFrom (no list) and, for every update whose bench.kwatch.dev/seq is in [fromSeq, toSeq], records
// how long after the sim wrote it (bench.kwatch.dev/emitted-at, wall clock) this process saw it:
//   raw   when the event's line has been JSON.parsed (undici, nothing else: the floor any client pays)
//   core  when kwatch's pipeline (SharedIndexInformer + dry-run controller, tracing off) calls a handler
// Prints one JSON line { ok, n, p50Ms, p99Ms, maxMs } once toSeq has been seen.
const spec = JSON.parse(process.argv[2]);
const wallNow = () => performance.timeOrigin + performance.now();
const samples = [];
let resolveDone;
const done = new Promise((r) => (resolveDone = r));

function observe(obj) {
  const a = obj?.metadata?.annotations;
  const seq = Number(a?.['bench.kwatch.dev/seq']);
  if (!(seq >= spec.fromSeq)) return;
  samples.push(wallNow() - Number(a['bench.kwatch.dev/emitted-at']));
  if (seq >= spec.toSeq) resolveDone();
}

async function raw() {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const ac = new AbortController();
  const res = await request(`${spec.url}/api/v1/pods?watch=true&resourceVersion=${spec.rvFrom}`, { dispatcher, signal: ac.signal, headers: { accept: 'application/json' } });
  process.stdout.write('{"watching":true}\n');
  const reading = (async () => {
    let pending = '';
    for await (const chunk of res.body) {
      pending += chunk.toString('utf8');
      let nl;
      while ((nl = pending.indexOf('\n')) !== -1) {
        observe(JSON.parse(pending.slice(0, nl)).object);
        pending = pending.slice(nl + 1);
      }
    }
  })().catch(() => {});
  await done;
  ac.abort();
  await reading;
  await dispatcher.destroy().catch(() => {});
}

async function core() {
  const { connectionFromUrl } = await import('../../dist/kube/http/connection.js');
  const { HttpListerWatcher } = await import('../../dist/kube/lister-watchers/http-lister-watcher.js');
  const { buildPipeline, Tracer } = await import('../../dist/informer/index.js');
  await import('undici');
  const conn = connectionFromUrl(spec.url, { tracer: new Tracer() });
  const lw = new HttpListerWatcher(conn, { group: '', version: 'v1', resource: 'pods', namespaced: true }, { omitManagedFields: true });
  const p = buildPipeline({ sources: [{ name: 'pods', listerWatcher: lw, expectedKind: 'Pod' }], tracer: new Tracer(), reconcile: 'dry-run', startAt: { resourceVersion: String(spec.rvFrom), onExpired: 'stop' } });
  p.informers[0].addEventHandler({ onAdd: observe, onUpdate: (_, o) => observe(o) }, { name: 'latency-probe' });
  const ac = new AbortController();
  const running = p.run(ac.signal);
  process.stdout.write('{"watching":true}\n');
  await done;
  ac.abort();
  await running.catch(() => {});
  await conn.close();
}

const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))];
try {
  const timer = setTimeout(() => resolveDone(), spec.timeoutMs ?? 120_000);
  await (spec.mode === 'core' ? core() : raw());
  clearTimeout(timer);
  samples.sort((a, b) => a - b);
  const r = (x) => +x.toFixed(2);
  process.stdout.write(`${JSON.stringify({ ok: samples.length > 0, n: samples.length, p50Ms: r(quantile(samples, 0.5)), p99Ms: r(quantile(samples, 0.99)), maxMs: r(samples[samples.length - 1]) })}\n`);
  process.exit(0);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ ok: false, reason: String(err?.message ?? err).split('\n')[0] })}\n`);
  process.exit(0);
}
