// Benchmark (issue 15): relist after 410 Gone at 20k and 100k pods. A fresh process syncs kwatch's informer, then the
// sim (its own process) ends every watch, writes a few updates and compacts its history in one turn, so the
// reflector's resumed watch gets 410 and relists; the worker measures the time from the expiry to a synced cache
// and the peak RSS meanwhile. Medians and min–max of interleaved runs.
// Run after `npm run build`: node bench/relist.js     (BENCH_QUICK=1: smaller sizes)
import { fileURLToPath } from 'node:url';
import { QUICK, startLoadNote, fmtInt, fmtSpread, publish, spread, table } from './lib/common.js';
import { startChild } from './lib/child.js';
import { sharedSimOptions, startSim } from './lib/sim.js';

const WORKER = fileURLToPath(new URL('./lib/relist-worker.js', import.meta.url));
const SIZES = QUICK ? [4000, 20000] : [20000, 100000];
// No goal rides on it (it is reported); 3 runs at the large size keep the full bench within its 15 minutes.
const REPS = QUICK ? [2, 2] : [5, 3];

export async function benchRelist(log = console.log) {
  const out = { sizes: SIZES, reps: REPS, bySize: {} };
  for (const [si, pods] of SIZES.entries()) {
    // Shared with sync and end-to-end when run.js runs them; run.js runs relist last of the three, since expiring ends
    // every watch and compacts the history.
    const sim = await startSim(sharedSimOptions(pods));
    const runs = [];
    try {
      for (let r = 0; r < REPS[si]; r++) {
        const w = startChild(['--max-old-space-size=8192', WORKER, JSON.stringify({ url: sim.url, pods })]);
        if (await w.line((m) => m.synced)) await sim.command({ cmd: 'expire', n: 10 });
        const res = await w.result;
        runs.push(res);
        log(`  relist ${pods} pods run ${r + 1}: ${res.ok ? `${res.relistMs} ms, peak ${res.peakDuringMB} MB (before ${res.rssBeforeMB} MB)` : `failed: ${res.reason}`}`);
      }
    } finally {
      await sim.close();
    }
    const ok = runs.filter((x) => x.ok);
    out.bySize[pods] = { runs, ms: spread(ok.map((x) => x.relistMs)), peakMB: spread(ok.map((x) => x.peakDuringMB)), beforeMB: spread(ok.map((x) => x.rssBeforeMB)), failed: runs.length - ok.length, reason: runs.find((x) => !x.ok)?.reason };
  }
  return out;
}

export function relistMarkdown(out) {
  const mb = (x) => `${fmtInt(x)} MB`;
  const ms = (x) => `${fmtInt(x)} ms`;
  return [
    `### Relist after 410 Gone (kwatch informer, tracing off; from the watch ERROR event (410 Gone) to a synced cache; median and min–max of ${[].concat(out.reps).map((n, i) => `${n} runs at ${fmtInt(out.sizes[i])}`).join(', ')}, each in a fresh process)`,
    table(
      ['pods', '410 ERROR event → synced', 'peak RSS during the relist', 'RSS before it (synced)', 'failed runs'],
      Object.entries(out.bySize).map(([pods, r]) => [fmtInt(+pods), fmtSpread(r.ms, ms), fmtSpread(r.peakMB, mb), fmtSpread(r.beforeMB, mb), r.failed ? `${r.failed}: ${r.reason}` : '0']),
    ),
    `The time includes the reflector's backoff before it relists (client-go's: 800 ms doubling, jittered up to 2x), which is most of it at small sizes. The relist keeps the old cache until the new list has replaced it (as client-go's does), so its peak holds both for a moment. ${startLoadNote()}`,
  ].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await benchRelist();
  publish('relist', out, relistMarkdown(out));
}
