// Benchmark (issue 2's closing note): kwatch sim's list and watch throughput at 10k and 100k realistic pods.
//   - LIST in pages of 500 (RV unset: a consistent snapshot, paged): pages/s, MB/s, pods/s
//   - LIST with resourceVersion=0 (the watch cache's answer: everything in one body): MB/s
//   - watch fan-out: N pod updates written as fast as the store takes them, each fanned out to 1 and to 10
//     watchers: events/s per watcher and in total (the client only counts newlines)
// The sim runs in its own process (bench/lib/sim-child.js); the client side does no parsing at all.
// Run after `npm run build`: node bench/sim-throughput.js     (BENCH_QUICK=1 for a small, fast run)
import { fileURLToPath } from 'node:url';
import { QUICK, fmtInt, publish, round, table } from './lib/common.js';
import { sharedSimOptions, startSim } from './lib/sim.js';

const SIZES = QUICK ? [2000, 10000] : [10000, 100000];
const LIST_REPS = QUICK ? 1 : 2;
const FANOUT_EVENTS = QUICK ? 2000 : 5000;
const WATCHERS = [1, 10];

async function undici() {
  const { Agent, request } = await import('undici');
  return { dispatcher: new Agent({ keepAliveTimeout: 30_000 }), request };
}

/** Reads a body to the end, counting bytes only. */
async function drain(body) {
  let bytes = 0;
  for await (const c of body) bytes += c.length;
  return bytes;
}

async function listPaged(url, { dispatcher, request }) {
  const t0 = performance.now();
  let cont = '';
  let pages = 0;
  let bytes = 0;
  do {
    const q = new globalThis.URLSearchParams({ limit: '500' });
    if (cont) q.set('continue', cont);
    const res = await request(`${url}/api/v1/pods?${q}`, { dispatcher });
    const buf = Buffer.from(await res.body.arrayBuffer());
    bytes += buf.length;
    pages++;
    // The continue token is in the head of the body: no need to parse the page.
    const m = /"continue":"([^"]*)"/.exec(buf.toString('latin1', 0, 4096));
    cont = m ? m[1] : '';
  } while (cont);
  const ms = performance.now() - t0;
  return { ms, pages, bytes };
}

async function listWhole(url, { dispatcher, request }) {
  const t0 = performance.now();
  const res = await request(`${url}/api/v1/pods?resourceVersion=0`, { dispatcher });
  const bytes = await drain(res.body);
  return { ms: performance.now() - t0, bytes };
}

/** Opens `n` watches from revision `rv`; each resolves `done` once it has counted `expect` lines. */
async function openWatchers(url, rv, n, expected, { dispatcher, request }) {
  const watchers = [];
  for (let i = 0; i < n; i++) {
    const ac = new globalThis.AbortController();
    // From the current revision: a watch without resourceVersion would first get every pod as ADDED.
    const res = await request(`${url}/api/v1/pods?watch=true&resourceVersion=${rv}`, { dispatcher, signal: ac.signal });
    let lines = 0;
    let doneAt = 0;
    const done = (async () => {
      try {
        for await (const c of res.body) {
          for (let j = c.indexOf(10); j !== -1; j = c.indexOf(10, j + 1)) lines++;
          if (lines >= expected) {
            doneAt = performance.now();
            break;
          }
        }
      } catch {
        // aborted
      }
      return { lines, doneAt };
    })();
    watchers.push({ done, close: () => ac.abort() });
  }
  return watchers;
}

export async function benchSimThroughput(log = console.log) {
  const out = { sizes: SIZES, list: {}, fanout: {}, sims: {} };
  const client = await undici();
  try {
    for (const pods of SIZES) {
      log(`sim-throughput: starting the sim with ${pods} pods…`);
      // At 100k the sim sync, end-to-end and relist used when run.js runs them all (it runs this script after them: its
      // updates would otherwise change their pods); each list reads the current state, as on a fresh sim.
      const sim = await startSim(sharedSimOptions(pods));
      out.sims[pods] = { populateMs: sim.populateMs, rssMB: sim.rssMB };
      try {
        const paged = [];
        const whole = [];
        for (let r = 0; r < LIST_REPS; r++) {
          paged.push(await listPaged(sim.url, client));
          whole.push(await listWhole(sim.url, client));
        }
        const p = paged.sort((a, b) => a.ms - b.ms)[0];
        const w = whole.sort((a, b) => a.ms - b.ms)[0];
        out.list[pods] = {
          paged: { ms: round(p.ms), pages: p.pages, MB: round(p.bytes / 1e6, 1), pagesPerSec: round((p.pages / p.ms) * 1000), MBPerSec: round(p.bytes / 1e3 / p.ms, 1), podsPerSec: round((sim.pods / p.ms) * 1000) },
          whole: { ms: round(w.ms), MB: round(w.bytes / 1e6, 1), MBPerSec: round(w.bytes / 1e3 / w.ms, 1), podsPerSec: round((sim.pods / w.ms) * 1000) },
        };
        log(`  ${pods} pods list: paged ${out.list[pods].paged.pagesPerSec} pages/s ${out.list[pods].paged.MBPerSec} MB/s; RV=0 ${out.list[pods].whole.MBPerSec} MB/s`);

        out.fanout[pods] = {};
        for (const n of WATCHERS) {
          const { rv } = await sim.command({ cmd: 'state' });
          const watchers = await openWatchers(sim.url, rv, n, FANOUT_EVENTS, client);
          const t0 = performance.now();
          const u = await sim.command({ cmd: 'update', n: FANOUT_EVENTS, yieldEvery: 50 });
          const results = await Promise.all(watchers.map((w) => w.done));
          const ms = Math.max(...results.map((r) => r.doneAt)) - t0;
          for (const w of watchers) w.close();
          const complete = results.every((r) => r.lines >= FANOUT_EVENTS);
          out.fanout[pods][n] = { ok: complete, events: FANOUT_EVENTS, ms: round(ms), eventsPerSecPerWatcher: round((FANOUT_EVENTS / ms) * 1000), eventsPerSecTotal: round(((FANOUT_EVENTS * n) / ms) * 1000), MBPerSecTotal: round((FANOUT_EVENTS * n * (out.list[pods].paged.MB * 1e6 / sim.pods)) / 1e3 / ms, 1), writeMs: u.ms };
          // The same changes replayed from the history: the send path alone (lines rendered once, shared by all).
          const t1 = performance.now();
          const replayers = await openWatchers(sim.url, u.from, n, FANOUT_EVENTS, client);
          const replayed = await Promise.all(replayers.map((w) => w.done));
          const rms = Math.max(...replayed.map((r) => r.doneAt)) - t1;
          for (const w of replayers) w.close();
          Object.assign(out.fanout[pods][n], { replayOk: replayed.every((r) => r.lines >= FANOUT_EVENTS), replayMs: round(rms), replayEventsPerSecPerWatcher: round((FANOUT_EVENTS / rms) * 1000), replayEventsPerSecTotal: round(((FANOUT_EVENTS * n) / rms) * 1000) });
          log(`  ${pods} pods, ${n} watcher(s): live ${out.fanout[pods][n].eventsPerSecPerWatcher} events/s each (${out.fanout[pods][n].eventsPerSecTotal} in total)${complete ? '' : ' (INCOMPLETE)'}; replay ${out.fanout[pods][n].replayEventsPerSecPerWatcher} each (${out.fanout[pods][n].replayEventsPerSecTotal} in total)`);
        }
      } finally {
        await sim.close();
      }
    }
  } finally {
    await client.dispatcher.close();
  }
  return out;
}

export function simThroughputMarkdown(out) {
  const parts = [];
  parts.push(`### kwatch sim: LIST (best of ${LIST_REPS}; the client only reads bytes)`);
  parts.push(
    table(
      ['pods', 'paged (limit 500)', 'pages/s', 'MB/s', 'pods/s', 'RV=0 (one body)', 'MB/s', 'pods/s'],
      Object.entries(out.list).map(([n, l]) => [fmtInt(+n), `${l.paged.pages} pages, ${l.paged.MB} MB in ${fmtInt(l.paged.ms)} ms`, fmtInt(l.paged.pagesPerSec), l.paged.MBPerSec, fmtInt(l.paged.podsPerSec), `${l.whole.MB} MB in ${fmtInt(l.whole.ms)} ms`, l.whole.MBPerSec, fmtInt(l.whole.podsPerSec)]),
    ),
  );
  parts.push(`### kwatch sim: watch fan-out (live: ${fmtInt(FANOUT_EVENTS)} pod updates written as fast as the store takes them, each sent to every watcher; replay: the same ${fmtInt(FANOUT_EVENTS)} changes streamed from the history)`);
  const rows = [];
  for (const [n, byW] of Object.entries(out.fanout)) {
    for (const [w, r] of Object.entries(byW)) {
      rows.push([fmtInt(+n), w, r.ok ? fmtInt(r.eventsPerSecPerWatcher) : 'incomplete', fmtInt(r.eventsPerSecTotal), r.MBPerSecTotal, `${fmtInt(r.writeMs)} ms`, r.replayOk ? fmtInt(r.replayEventsPerSecPerWatcher) : 'incomplete', fmtInt(r.replayEventsPerSecTotal)]);
    }
  }
  parts.push(table(['pods', 'watchers', 'live events/s per watcher', 'live events/s total', 'live MB/s total', 'store writes took', 'replay events/s per watcher', 'replay events/s total'], rows));
  parts.push(`Sim populate: ${Object.entries(out.sims).map(([n, s]) => `${fmtInt(+n)} pods in ${fmtInt(s.populateMs)} ms (${s.rssMB} MB RSS)`).join(', ')}.`);
  return parts.join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await benchSimThroughput();
  publish('sim-throughput', out, simThroughputMarkdown(out));
}

