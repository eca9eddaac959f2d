// Benchmark: `kwatch events pods --max-events 1` with a warm vs a cold discovery cache, and
// `kubectl get pods` on the same embedded server (kubectl keeps a warm cache of its own).
// Run after `npm run build`: node bench/discovery.js [--runs N] [--pods N]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));

function time(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    execFile(cmd, args, { env: { ...process.env, ...env }, timeout: 120_000 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(performance.now() - start);
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Returns { coldMs, warmMs, kubectlMs, warmVsCold, warmVsKubectl } (medians of `runs` runs each). */
export async function benchDiscovery({ runs = 5, pods = 100 } = {}) {
  const { startSimServer } = await import('../dist/sim/server.js');
  const sim = await startSimServer({ port: 0, nodes: 3, pods, churn: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'kwatch-bench-disc-'));
  const kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
  let events = ['events', 'pods', '-A', '--max-events', '1'];
  try {
    const cold = [];
    const warm = [];
    const kubectl = [];
    const warmEnv = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'warm') };
    const kubectlEnv = { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'kubectl') };
    // prime kwatch's cache (falling back to --raw while the pipeline view is not available)
    await time(process.execPath, [BIN, ...events], warmEnv).catch(async () => {
      events = [...events, '--raw'];
      await time(process.execPath, [BIN, ...events], warmEnv);
    });
    await time('kubectl', ['get', 'pods', '-A'], kubectlEnv); // prime kubectl's cache
    for (let i = 0; i < runs; i++) {
      const coldDir = join(dir, `cold-${i}`);
      cold.push(await time(process.execPath, [BIN, ...events], { KUBECONFIG: kubeconfig, KUBECACHEDIR: coldDir }));
      warm.push(await time(process.execPath, [BIN, ...events], warmEnv));
      kubectl.push(await time('kubectl', ['get', 'pods', '-A'], kubectlEnv));
    }
    const r = { runs, pods, command: `kwatch ${events.join(' ')}`, coldMs: Math.round(median(cold)), warmMs: Math.round(median(warm)), kubectlMs: Math.round(median(kubectl)) };
    return { ...r, warmVsCold: +(r.warmMs / r.coldMs).toFixed(2), warmVsKubectl: +(r.warmMs / r.kubectlMs).toFixed(2) };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? def : Number(process.argv[i + 1]);
  };
  const r = await benchDiscovery({ runs: arg('--runs', 5), pods: arg('--pods', 100) });
  console.log(`kwatch events pods --max-events 1, cold discovery cache: ${r.coldMs} ms (median of ${r.runs})`);
  console.log(`kwatch events pods --max-events 1, warm discovery cache: ${r.warmMs} ms (${r.warmVsCold}x of cold)`);
  console.log(`kubectl get pods -A, warm cache:                        ${r.kubectlMs} ms (kwatch warm = ${r.warmVsKubectl}x kubectl)`);
  console.log(JSON.stringify(r));
}
