// Benchmark (issue 15): what users wait for — whole commands, each in a fresh process, at 20k and 100k pods (and
// kwatch's index at 150k): wall time and peak RSS (/usr/bin/time's maximum resident set) of kwatch's commands next
// to kubectl's and a client-node informer script, with the floor (undici + JSON.parse of pages of 500, nothing
// else) as the reference. The sim runs in its own process with 1000 pods per node (100 nodes at 100k); discovery
// caches are warm (one unmeasured run each first). Runs are interleaved; figures are medians with min–max.
// kubectl is the reference, not a goal (it takes 10x kwatch's time and more): it runs once at each size.
// Run after `npm run build`: node bench/end-to-end.js    (BENCH_QUICK=1: 4k and 20k pods, 2 runs;
// BENCH_E2E_KUBECTL_LARGE=0 skips kubectl at the large size: ~90 s and ~11 GB a run there;
// BENCH_E2E_KUBECTL_JSON_LARGE=1 adds `kubectl get -o json --chunk-size=500` there: ~160 s and ~14 GB)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUICK, startLoadNote, fmtInt, fmtSpread, publish, round, spread, table, verdictUnderLoad, writeKubeconfig } from './lib/common.js';
import { sharedSimOptions, startSim } from './lib/sim.js';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const BIN = here('../bin/run.js');
const SIZES = QUICK ? [4000, 20000] : [20000, 100000];
const HUGE = QUICK ? undefined : 150000;
const REPS = QUICK ? 2 : 5;
const KUBECTL_REPS = 1;
const KUBECTL_LARGE = process.env.BENCH_E2E_KUBECTL_LARGE !== '0';
const KUBECTL_JSON_LARGE = process.env.BENCH_E2E_KUBECTL_JSON_LARGE === '1';

/** Every command measured; `node: true` runs under the same Node as the benchmark. */
function commands(kubeconfig, url, pods) {
  const k = ['--kubeconfig', kubeconfig];
  return [
    { id: 'events', label: 'kwatch events pods -A --until-synced -o ndjson', node: true, args: [BIN, 'events', 'pods', '-A', '--until-synced', '-o', 'ndjson', ...k] },
    { id: 'index', label: 'kwatch index pods -A --by nodeName', node: true, args: [BIN, 'index', 'pods', '-A', '--by', 'nodeName', ...k] },
    { id: 'list', label: 'kwatch list pods -A -o name', node: true, args: [BIN, 'list', 'pods', '-A', '-o', 'name', ...k] },
    { id: 'floor', label: 'floor: undici + JSON.parse, pages of 500 (a Node script)', node: true, args: ['--max-old-space-size=8192', here('lib/sync-worker.js'), JSON.stringify({ mode: 'floor-paged', url })] },
    { id: 'client-node', label: '@kubernetes/client-node makeInformer, synced, exit', node: true, args: ['--max-old-space-size=8192', here('lib/client-node-sync.js'), kubeconfig, String(pods)] },
    { id: 'kubectl-name', label: 'kubectl get pods -A -o name', kubectl: true, args: ['get', 'pods', '-A', '-o', 'name', ...k] },
    { id: 'kubectl-json', label: 'kubectl get pods -A --chunk-size=500 -o json', kubectl: true, args: ['get', 'pods', '-A', '--chunk-size=500', '-o', 'json', ...k] },
  ];
}

/** One fresh-process run under /usr/bin/time: { ok, ms, rssMB } (output discarded, as a pipe to a file would). */
function measure(cmd, env, dir) {
  const timeFile = join(dir, 'time.out');
  const exe = cmd.kubectl ? 'kubectl' : process.execPath;
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, exe, ...cmd.args], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-1000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      let rssMB;
      try {
        rssMB = Math.round(Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1000);
      } catch {
        /* no figure: time itself failed */
      }
      if (code === 0) resolve({ ok: true, ms, rssMB });
      else resolve({ ok: false, reason: stderr.trim().split('\n').filter((l) => !l.startsWith('Command ')).pop() || `exit ${code}` });
    });
  });
}

export async function benchEndToEnd(log = console.log) {
  const dir = mkdtempSync(join(tmpdir(), 'kwatch-bench-e2e-'));
  const home = join(dir, 'home'); // never the user's ~/.kube: both tools' discovery caches live here
  mkdirSync(home);
  const env = { ...process.env, HOME: home, NO_COLOR: '1', KUBECACHEDIR: join(home, '.kube', 'cache') };
  const out = { reps: REPS, kubectlReps: KUBECTL_REPS, kubectlJsonLarge: KUBECTL_LARGE && KUBECTL_JSON_LARGE, sizes: {} };
  try {
    for (const pods of [...SIZES, ...(HUGE ? [HUGE] : [])]) {
      const huge = pods === HUGE;
      const large = pods === SIZES.at(-1);
      log(`end-to-end: starting the sim with ${fmtInt(pods)} pods…`);
      // 20k and 100k: shared with sync and relist when run.js runs them (populated once); end-to-end only reads.
      const sim = await startSim(huge ? { ...sharedSimOptions(pods), historyEvents: 1000 } : sharedSimOptions(pods));
      const kubeconfig = join(dir, `kubeconfig-${pods}`);
      await writeKubeconfig(kubeconfig, sim.url);
      const all = commands(kubeconfig, sim.url, pods);
      const chosen = huge ? all.filter((c) => c.id === 'index' || c.id === 'floor') : all.filter((c) => !(large && c.kubectl && (!KUBECTL_LARGE || (c.id === 'kubectl-json' && !KUBECTL_JSON_LARGE))));
      const runs = Object.fromEntries(chosen.map((c) => [c.id, []]));
      try {
        // Warm the discovery caches (kubectl's and kwatch's share ~/.kube/cache/discovery) and the file cache.
        await measure({ kubectl: true, args: ['api-resources', '--kubeconfig', kubeconfig] }, env, dir);
        await measure({ node: true, args: [BIN, 'api-resources', '--kubeconfig', kubeconfig] }, env, dir);
        const reps = huge ? 1 : REPS;
        for (let r = 0; r < reps; r++) {
          for (const cmd of chosen) {
            // The slow, memory-hungry references run once at the large size; a failure is not repeated.
            if ((large && (cmd.kubectl || cmd.id === 'client-node') && runs[cmd.id].length) || runs[cmd.id].some((x) => !x.ok)) continue;
            if (cmd.kubectl && runs[cmd.id].length >= KUBECTL_REPS) continue;
            const res = await measure(cmd, env, dir);
            runs[cmd.id].push(res);
            log(`  ${fmtInt(pods)} pods, ${cmd.label}: ${res.ok ? `${fmtInt(res.ms)} ms, ${fmtInt(res.rssMB)} MB` : `failed: ${res.reason}`}`);
          }
        }
      } finally {
        await sim.close();
      }
      out.sizes[pods] = Object.fromEntries(
        chosen.map((c) => {
          const ok = runs[c.id].filter((x) => x.ok);
          return [c.id, { label: c.label, ok: ok.length > 0, reason: runs[c.id].find((x) => !x.ok)?.reason, ms: spread(ok.map((x) => x.ms)), rssMB: spread(ok.map((x) => x.rssMB)) }];
        }),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  out.targets = targets(out);
  return out;
}

function targets(out) {
  const t = [];
  const large = out.sizes[SIZES.at(-1)] ?? {};
  const ratio = (a, b) => (a?.ok && b?.ok ? a.ms.median / b.ms.median : undefined);
  const idx = ratio(large.index, large.floor);
  t.push({ target: `index pods --by nodeName -A at ${fmtInt(SIZES.at(-1))}: wall at most 0.95x the paged floor`, met: idx !== undefined && idx <= 0.95, figure: idx === undefined ? 'not measured' : `${round(idx, 2)}x (${fmtInt(large.index.ms.median)} vs ${fmtInt(large.floor.ms.median)} ms)` });
  t.push({ target: `index pods --by nodeName -A at ${fmtInt(SIZES.at(-1))}: peak RSS at most 1 GB`, met: !!large.index?.ok && large.index.rssMB.median <= 1000, figure: large.index?.ok ? `${fmtInt(large.index.rssMB.median)} MB (${fmtInt(large.index.rssMB.min)}–${fmtInt(large.index.rssMB.max)})` : 'not measured' });
  const lst = ratio(large.list, large.events);
  t.push({ target: `list -A -o name at ${fmtInt(SIZES.at(-1))}: at most 1.1x events --until-synced`, met: lst !== undefined && lst <= 1.1, figure: lst === undefined ? 'not measured' : `${round(lst, 2)}x (${fmtInt(large.list.ms.median)} vs ${fmtInt(large.events.ms.median)} ms)` });
  const huge = HUGE && out.sizes[HUGE]?.index;
  if (HUGE) t.push({ target: `${fmtInt(HUGE)} pods sync (index pods --by nodeName -A)`, met: !!huge?.ok, figure: huge?.ok ? `${fmtInt(huge.ms.median)} ms, peak RSS ${fmtInt(huge.rssMB.median)} MB` : `failed: ${huge?.reason ?? 'not run'}` });
  return t;
}

export function endToEndMarkdown(out) {
  const parts = [];
  for (const [pods, res] of Object.entries(out.sizes)) {
    const base = res['kubectl-name'];
    const floor = res.floor;
    const vs = (r, ref) => (r?.ok && ref?.ok ? `${round(r.ms.median / ref.ms.median, 2)}x` : '—');
    const runs = Object.values(res).map((r) => r.ms?.n ?? 0).reduce((a, b) => Math.max(a, b), 0);
    const refs = { [SIZES[0]]: out.kubectlReps === 1 ? '; kubectl once' : `; kubectl ${out.kubectlReps} runs`, [SIZES[1]]: '; kubectl and client-node once' }[pods] ?? '';
    parts.push(`### ${fmtInt(+pods)} pods: whole commands (median and min–max of ${runs} interleaved runs${refs})`);
    parts.push(
      table(
        ['command', 'wall ms', 'peak RSS MB', 'vs kubectl -o name', 'vs floor'],
        Object.values(res).map((r) => [r.label, r.ok ? fmtSpread(r.ms) : `failed: ${r.reason}`, r.ok ? fmtSpread(r.rssMB) : '—', vs(r, base), vs(r, floor)]),
      ),
    );
    if (+pods === SIZES[1] && base && !out.kubectlJsonLarge) parts.push('`kubectl get pods -A --chunk-size=500 -o json` is not run at this size by default (at 100k pods it takes about 160 s and 14 GB; `BENCH_E2E_KUBECTL_JSON_LARGE=1` runs it).');
  }
  parts.push('What each side does: kwatch `events`/`index`/`list` start the CLI (module loading, kubeconfig, discovery from the warm cache), list as client-go does (one `resourceVersion=0` body) and cut managedFields without parsing them; `events -o ndjson` also writes a trace line per stage per object to /dev/null. The floor only fetches pages of 500 and `JSON.parse`s them, everything included. kubectl decodes every object in full and prints; client-node parses everything and keeps it.');
  parts.push(table(['target', 'verdict (from medians)', 'figure'], out.targets.map((t) => [t.target, verdictUnderLoad(t.met), t.figure])));
  parts.push(startLoadNote());
  return parts.join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await benchEndToEnd();
  publish('end-to-end', out, endToEndMarkdown(out));
}
