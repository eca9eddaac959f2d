// bench/lib/client-node-sync.js is end-to-end.js's client-node row, which judges each run by its exit status: a sync
// that ends with fewer pods than the cluster holds (client-node's start() resolves after a failed list at 100k pods)
// must exit non-zero with its reason, not pass for a fast sync.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigYaml } from '../../src/sim/kubeconfig.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { tempDir } from '../temp-dir.js';

const SCRIPT = fileURLToPath(new URL('../../bench/lib/client-node-sync.js', import.meta.url));

function run(kubeconfig: string, pods: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, kubeconfig, String(pods)], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('bench client-node sync script', () => {
  let sim: SimServer;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    sim = await startSimServer({ port: 0, churn: 0, pods: 30, nodes: 1 });
    dir = tempDir('kwatch-client-node-sync-');
    kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, kubeconfigYaml(sim.url));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 with the pod count when it synced every pod', async () => {
    const r = await run(kubeconfig, 30);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ ok: true, items: 30 });
  });

  it('exits 1 with a one-line reason when it synced fewer pods than the cluster holds', async () => {
    const r = await run(kubeconfig, 1000);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('synced 30 of 1000 pods');
  });
});
