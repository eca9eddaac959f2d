// A kwatch sim in its own process, so its CPU never shares the benchmark client's event loop.
// argv[2]: JSON SimServerOptions (port 0 and churn 0 by default). Prints one JSON line once ready:
//   {"ready":true,"url":…,"control":port,"rv":…,"pods":…,"populateMs":…}
// then answers JSON-line commands on stdin — and on any TCP connection to 127.0.0.1:control, so that the benchmark
// scripts run.js starts can share one populated sim (bench/lib/sim.js) — one JSON line each (same `id`):
//   {"id":1,"cmd":"state"}                        → {"id":1,"rv":N}
//   {"id":2,"cmd":"update","n":N,"yieldEvery":K}  → N pod updates (an annotation changes), as fast as the
//        store takes them, yielding to the event loop every K updates so watches flush meanwhile (K=0: never)
//        → {"id":2,"from":rvBefore,"to":rvAfter,"ms":…}
//   {"id":3,"cmd":"steady","rate":R,"n":N}        → N pod updates at R per second, each stamped with the wall-clock
//        time it was written (annotation bench.kwatch.dev/emitted-at, ms since the epoch, µs precision) and its
//        sequence number; → {"id":3,"from":rvBefore,"to":rvAfter,"ms":…,"firstSeq":…,"lastSeq":…}
//   {"id":4,"cmd":"expire","n":N}                 → in one turn of the event loop: every watch ended, N pod updates
//        and a compaction, so each watcher resumes from an expired
//        resourceVersion, gets 410 Gone and relists → {"id":4,"to":rv,"dropped":…}
//   {"id":5,"cmd":"exit"}                         → closes the server and exits
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setImmediate as tick } from 'node:timers/promises';
import { startSimServer } from '../../dist/sim/server.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const opts = JSON.parse(process.argv[2] ?? '{}');
const t0 = performance.now();
const sim = await startSimServer({ port: 0, churn: 0, seed: 1, ...opts });
// The pods' keys from the store's summaries (sim.api is the SimStore): listing would parse every stored pod, 660 MB
// at 100k, seconds of every start. Same order as a list.
const podType = sim.api.resolve(PODS);
let targets = sim.api.storedIn(podType).map((o) => [o.meta.namespace, o.meta.name]);

// Commands from other processes (the scripts sharing this sim); each connection gets its own replies.
const control = createServer((socket) => {
  socket.on('error', () => {});
  createInterface({ input: socket }).on('line', async (line) => socket.write(`${JSON.stringify(await handle(JSON.parse(line)))}\n`));
});
await new Promise((resolve) => control.listen(0, '127.0.0.1', resolve));
const reply = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
reply({ ready: true, url: sim.url, control: control.address().port, rv: sim.api.currentRevision(), pods: targets.length, populateMs: Math.round(performance.now() - t0), rssMB: Math.round(process.memoryUsage().rss / 1e6) });

let seq = 0;
async function update(n, yieldEvery) {
  const from = sim.api.currentRevision();
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const [ns, name] = targets[seq++ % targets.length];
    const cur = sim.api.get(PODS, ns, name);
    if (!cur) continue;
    sim.api.update(PODS, { ...cur, metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, 'bench.kwatch.dev/seq': String(seq) } } });
    if (yieldEvery > 0 && (i + 1) % yieldEvery === 0) await tick();
  }
  return { from, to: sim.api.currentRevision(), ms: Math.round(performance.now() - start) };
}

const wallNow = () => performance.timeOrigin + performance.now();

async function steady(rate, n) {
  const from = sim.api.currentRevision();
  const start = performance.now();
  const firstSeq = seq + 1;
  for (let i = 0; i < n; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const [ns, name] = targets[seq++ % targets.length];
    const cur = sim.api.get(PODS, ns, name);
    if (!cur) continue;
    const annotations = { ...cur.metadata.annotations, 'bench.kwatch.dev/seq': String(seq), 'bench.kwatch.dev/emitted-at': wallNow().toFixed(3) };
    sim.api.update(PODS, { ...cur, metadata: { ...cur.metadata, annotations } });
  }
  return { from, to: sim.api.currentRevision(), ms: Math.round(performance.now() - start), firstSeq, lastSeq: seq };
}

function expire(n) {
  // End every watch first (cleanly, as a server timeout does: the reflector re-watches from its resourceVersion without
  // listing); the updates and the compaction then make that resourceVersion expired, so the re-watch gets 410.
  const dropped = sim.faults.dropWatches('end');
  for (let i = 0; i < n; i++) {
    const [ns, name] = targets[seq++ % targets.length];
    const cur = sim.api.get(PODS, ns, name);
    if (cur) sim.api.update(PODS, { ...cur, metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, 'bench.kwatch.dev/seq': String(seq) } } });
  }
  sim.faults.compact();
  return { to: sim.api.currentRevision(), dropped };
}

/** One command → its reply (same `id`). */
async function handle(cmd) {
  try {
    switch (cmd.cmd) {
      case 'state':
        return { id: cmd.id, rv: sim.api.currentRevision() };
      case 'update':
        return { id: cmd.id, ...(await update(cmd.n, cmd.yieldEvery ?? 0)) };
      case 'steady':
        return { id: cmd.id, ...(await steady(cmd.rate, cmd.n)) };
      case 'expire':
        return { id: cmd.id, ...expire(cmd.n ?? 10) };
      case 'exit':
        await shutdown(() => reply({ id: cmd.id, bye: true }));
        return undefined;
      default:
        return { id: cmd.id, error: `unknown command ${cmd.cmd}` };
    }
  } catch (err) {
    return { id: cmd.id, error: String(err?.stack ?? err) };
  }
}

async function shutdown(last = () => {}) {
  control.close();
  await sim.close();
  last();
  process.exit(0);
}

const rl = createInterface({ input: process.stdin });
rl.on('line', async (line) => reply(await handle(JSON.parse(line))));
rl.on('close', () => shutdown());
