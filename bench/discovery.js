// Benchmark (issue 4): wall time of `kwatch events pods -A --max-events 1 --kubeconfig K` with a warm discovery
// cache vs a cold one (an empty KUBECACHEDIR), next to `kubectl get pods -A --kubeconfig K` (with its own warm
// cache) on the same sim. Runs are interleaved (cold, warm, kubectl, cold, …) so machine load hits all alike;
// each figure is the median of `runs`. The sim (its own process) churns 200 writes/s so that the first
// watch event — what --max-events 1 waits for after the initial list — comes within milliseconds.
// Run after `npm run build`: node bench/discovery.js [--runs N]     (BENCH_QUICK=1: 3 runs)
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUICK, fmtInt, median, publish, round, table, writeKubeconfig } from './lib/common.js';
import { startSim } from './lib/sim.js';

const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));

function time(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    execFile(cmd, args, { env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000, maxBuffer: 16 << 20 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${(stderr || err.message).trim().split('\n').pop()}`));
      else resolve(performance.now() - start);
    });
  });
}

/** Returns { coldMs, warmMs, kubectlMs, … } (medians of `runs` interleaved runs each). */
export async function benchDiscovery({ runs = QUICK ? 3 : 7, log = console.log } = {}) {
  const sim = await startSim({ pods: 200, nodes: 5, churn: 200 });
  const dir = mkdtempSync(join(tmpdir(), 'kwatch-bench-disc-'));
  const kubeconfig = join(dir, 'config');
  await writeKubeconfig(kubeconfig, sim.url);
  const home = join(dir, 'home'); // never the user's ~/.kube
  mkdirSync(home);
  const kwatchArgs = [BIN, 'events', 'pods', '-A', '--max-events', '1', '--kubeconfig', kubeconfig];
  const kubectlArgs = ['get', 'pods', '-A', '--kubeconfig', kubeconfig];
  try {
    const warmEnv = { HOME: home, KUBECACHEDIR: join(dir, 'warm') };
    const kubectlEnv = { HOME: home, KUBECACHEDIR: join(dir, 'kubectl') };
    await time(process.execPath, kwatchArgs, warmEnv); // fills kwatch's cache
    let kubectl = true;
    await time('kubectl', kubectlArgs, kubectlEnv).catch((err) => {
      kubectl = false;
      log(`discovery: kubectl unavailable (${err.message}); skipping it`);
    });
    const samples = { cold: [], warm: [], kubectl: [] };
    for (let i = 0; i < runs; i++) {
      const coldDir = join(dir, `cold-${i}`);
      samples.cold.push(await time(process.execPath, kwatchArgs, { HOME: home, KUBECACHEDIR: coldDir }));
      if (i === 0 && !existsSync(join(coldDir, 'discovery'))) log(`discovery: warning: kwatch wrote no cache under ${coldDir}`);
      samples.warm.push(await time(process.execPath, kwatchArgs, warmEnv));
      if (kubectl) samples.kubectl.push(await time('kubectl', kubectlArgs, kubectlEnv));
    }
    const kubectlCache = existsSync(join(dir, 'kubectl', 'discovery')) ? readdirSync(join(dir, 'kubectl', 'discovery')) : [];
    const r = {
      runs,
      command: 'kwatch events pods -A --max-events 1 --kubeconfig K',
      kubectlCommand: 'kubectl get pods -A --kubeconfig K',
      coldMs: round(median(samples.cold)),
      warmMs: round(median(samples.warm)),
      kubectlMs: kubectl ? round(median(samples.kubectl)) : null,
      kubectlUsedKUBECACHEDIR: kubectlCache.length > 0,
      samples: Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, xs.map((x) => round(x))])),
    };
    return { ...r, warmVsCold: round(r.warmMs / r.coldMs, 2), warmVsKubectl: r.kubectlMs ? round(r.warmMs / r.kubectlMs, 2) : null };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function discoveryMarkdown(r) {
  return [
    `### Discovery: first event with a warm vs a cold discovery cache, and kubectl (median of ${r.runs} interleaved runs; 200 pods, churn 200/s)`,
    table(
      ['command', 'median', 'runs (ms)'],
      [
        [`${r.command}, cold cache (empty KUBECACHEDIR)`, `${fmtInt(r.coldMs)} ms`, r.samples.cold.join(', ')],
        [`${r.command}, warm cache`, `${fmtInt(r.warmMs)} ms (${r.warmVsCold}x cold)`, r.samples.warm.join(', ')],
        [`${r.kubectlCommand}, warm cache`, r.kubectlMs ? `${fmtInt(r.kubectlMs)} ms (kwatch warm = ${r.warmVsKubectl}x)` : 'kubectl unavailable', r.samples.kubectl.join(', ')],
      ],
    ),
  ].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const r = await benchDiscovery(i > 0 ? { runs: Number(process.argv[i + 1]) } : {});
  publish('discovery', r, discoveryMarkdown(r));
}
