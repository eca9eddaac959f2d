// End to end through the built CLI (node bin/run.js): kwatch api-resources / discovery against the
// embedded server, judged by real kubectl sharing the same cache directory.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { tempDir } from '../temp-dir.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
const dir = tempDir('kwatch-e2e-disc-');
let sim: SimServer;
let kubeconfig: string;

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, KUBECONFIG: kubeconfig, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
  });
}
const kwatch = (args: string[], env?: Record<string, string>) => run(process.execPath, [BIN, ...args], env);
const kubectl = (args: string[], env?: Record<string, string>) => run(process.env.KUBECTL ?? 'kubectl', args, env);

beforeAll(async () => {
  sim = await startSimServer({ port: 0 });
  kubeconfig = join(dir, 'config');
  await sim.writeKubeconfig(kubeconfig);
});
afterAll(() => sim?.close());

describe('kwatch api-resources and kwatch discovery (built CLI)', () => {
  it('kwatch api-resources -o wide prints exactly what kubectl prints', async () => {
    const env = { KUBECACHEDIR: join(dir, 'c1') };
    const [ours, theirs] = await Promise.all([kwatch(['api-resources', '-o', 'wide'], env), kubectl(['api-resources', '-o', 'wide'], env)]);
    expect(ours.stderr).toBe('');
    expect(ours.code).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
  });

  it('kwatch discovery -o json reads the cache kubectl wrote as hits, then explains a name', async () => {
    const env = { KUBECACHEDIR: join(dir, 'c2') };
    expect((await kubectl(['get', 'pods'], env)).code).toBe(0);
    const res = await kwatch(['discovery', '-o', 'json', '--explain', 'deploy'], env);
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report.mode).toBe('cache');
    expect(report.requests).toEqual([]);
    expect(report.files.map((f: { state: string }) => f.state)).not.toContain('miss');
    expect(report.explain.resources[0]).toMatchObject({ group: 'apps', version: 'v1', resource: 'deployments', source: 'cache apps/v1/serverresources.json' });
  });

  it('an unknown resource type is one kubectl-worded line and exit code 1', async () => {
    const res = await kwatch(['discovery', '--explain', 'foo', '--cache-dir', join(dir, 'c3')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('error: the server doesn\'t have a resource type "foo"\n');
  });
});
