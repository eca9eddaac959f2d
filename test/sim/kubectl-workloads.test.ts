// Conformance: real kubectl (v1.32) drives workloads on the sim with its controllers on — create, rollout status,
// scale, set image, delete pod (Terminating, then gone), and delete deployment leaving nothing behind.
import { describe, expect, it } from 'vitest';
import { DEPLOYMENTS, PODS, kubectlSim, until } from './sim-helpers.js';

// Two nodes from the generator (no pods of its own); 30 s of grace take 0.9 s (long enough for kubectl to see a pod
// Terminating), pods start after 20 ms (every rollout waits them out; no test is about the start).
const fx = kubectlSim({ nodes: 2, pods: 0, churn: 0, controllers: { graceScale: 0.03, podStartMs: 20 } }, 'kwatch-workloads-');
const kubectl = fx.kubectl;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.split(/\s+/));

/** `kubectl get pods -l app=web` as [name, ready, status] rows (header dropped). */
async function webPods(): Promise<string[][]> {
  const r = await kubectl('get', 'pods', '-l', 'app=web', '--no-headers');
  return rows(r.stdout).map((x) => x.slice(0, 3));
}

/*
 * The waits below read the sim's store in process (a kubectl per poll cost more CPU than the controllers it waited
 * on); what a test asserts once a wait is over is still read with kubectl.
 */
const storedWebPods = () => fx.sim.api.list(PODS, 'default').filter((p) => p.metadata.labels?.app === 'web');
const storedPod = (name: string) => fx.sim.api.get(PODS, 'default', name);

describe('kubectl workloads against the sim', () => {
  it('create deployment --replicas=3: rollout status completes and get deploy,rs,pods shows 3/3 Running', async () => {
    const c = await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    expect(c.stdout.trim()).toBe('deployment.apps/web created');
    const s = await kubectl('rollout', 'status', 'deployment/web', '--timeout=15s');
    expect(s.code).toBe(0);
    expect(s.stdout.trim().split('\n').at(-1)).toBe('deployment "web" successfully rolled out');
    const g = await kubectl('get', 'deploy,rs,pods', '-l', 'app=web');
    expect(g.stderr).toBe('');
    const lines = rows(g.stdout);
    expect(lines[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(lines[1].slice(0, 4)).toEqual(['deployment.apps/web', '3/3', '3', '3']);
    const rs = lines.find((l) => l[0].startsWith('replicaset.apps/web-'))!;
    expect(rs.slice(1, 4)).toEqual(['3', '3', '3']);
    const hash = rs[0].slice('replicaset.apps/web-'.length);
    const pods = lines.filter((l) => l[0].startsWith('pod/'));
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p[0]).toMatch(new RegExp(`^pod/web-${hash}-[a-z0-9]{5}$`));
      expect(p.slice(1, 4)).toEqual(['1/1', 'Running', '0']);
    }
    // Spread over both nodes, each with an IP.
    const wide = rows((await kubectl('get', 'pods', '-l', 'app=web', '-o', 'wide', '--no-headers')).stdout);
    expect(new Set(wide.map((w) => w[6]))).toEqual(new Set(['node-001', 'node-002']));
    for (const w of wide) expect(w[5]).toMatch(/^10\.\d+\.\d+\.\d+$/);
  });

  it('scale --replicas=1 converges', async () => {
    expect((await kubectl('scale', 'deployment', 'web', '--replicas=1')).stdout.trim()).toBe('deployment.apps/web scaled');
    expect((await kubectl('rollout', 'status', 'deployment/web', '--timeout=15s')).code).toBe(0);
    await until(() => storedWebPods().length === 1, 10_000);
    // The deployment's row and its pods' from one run (kubectl names each row with its kind).
    const got = rows((await kubectl('get', 'deploy,pods', '-l', 'app=web', '--no-headers')).stdout);
    const left = got.filter((r) => r[0].startsWith('pod/')).map((x) => x.slice(0, 3));
    expect(left).toHaveLength(1);
    expect(left[0].slice(1)).toEqual(['1/1', 'Running']);
    const d = got.filter((r) => r[0].startsWith('deployment.apps/'));
    expect(d.map((r) => r.slice(0, 4))).toEqual([['deployment.apps/web', '1/1', '1', '1']]);
  });

  it('set image rolls out a new ReplicaSet and scales the old one to 0', async () => {
    const before = rows((await kubectl('get', 'rs', '-l', 'app=web', '--no-headers')).stdout).map((r) => r[0]);
    expect((await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27')).stdout.trim()).toBe('deployment.apps/web image updated');
    const s = await kubectl('rollout', 'status', 'deployment/web', '--timeout=15s');
    expect(s.code).toBe(0);
    const rs = rows((await kubectl('get', 'rs', '-l', 'app=web', '--no-headers')).stdout);
    expect(rs).toHaveLength(2);
    const old = rs.find((r) => r[0] === before[0])!;
    const fresh = rs.find((r) => r[0] !== before[0])!;
    expect(old.slice(1, 4)).toEqual(['0', '0', '0']);
    expect(fresh.slice(1, 4)).toEqual(['1', '1', '1']);
    const history = await kubectl('rollout', 'history', 'deployment/web');
    expect(rows(history.stdout).map((r) => r[0])).toEqual(['deployment.apps/web', 'REVISION', '1', '2']);
    await until(() => storedWebPods().length === 1, 10_000);
    const image = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}');
    expect(image.stdout).toBe('nginx:1.27');
  });

  it('delete pod: Terminating, then gone, and the ReplicaSet replaces it', async () => {
    const [[name]] = await webPods();
    const del = await kubectl('delete', 'pod', name, '--wait=false');
    expect(del.stdout.trim()).toBe(`pod "${name}" deleted`);
    const during = rows((await kubectl('get', 'pod', name, '--no-headers')).stdout)[0];
    expect(during.slice(0, 3)).toEqual([name, '1/1', 'Terminating']);
    await until(() => storedPod(name) === undefined, 10_000);
    expect((await kubectl('get', 'pod', name)).stderr.trim()).toBe(`Error from server (NotFound): pods "${name}" not found`);
    await until(() => {
      const p = storedWebPods();
      return p.length === 1 && p[0].metadata.name !== name && (p[0].status as { phase?: string } | undefined)?.phase === 'Running';
    }, 10_000);
    const replaced = await webPods();
    expect(replaced).toHaveLength(1);
    expect(replaced[0][0]).not.toBe(name);
    expect(replaced[0][2]).toBe('Running');
  });

  it('delete deployment leaves no ReplicaSet and no pod behind', async () => {
    expect((await kubectl('delete', 'deployment', 'web')).stdout.trim()).toBe('deployment.apps "web" deleted');
    const REPLICASETS = { group: 'apps', version: 'v1', resource: 'replicasets' };
    await until(() => [DEPLOYMENTS, REPLICASETS, PODS].every((ref) => fx.sim.api.list(ref, 'default').every((o) => o.metadata.labels?.app !== 'web')), 10_000);
    const r = await kubectl('get', 'deploy,rs,pods', '-l', 'app=web');
    expect([r.stdout.trim(), r.stderr.trim()]).toEqual(['', 'No resources found in default namespace.']);
  });

  it('delete --cascade=foreground removes the deployment only after its pods', async () => {
    await kubectl('create', 'deployment', 'fg', '--image=nginx', '--replicas=2');
    expect((await kubectl('rollout', 'status', 'deployment/fg', '--timeout=15s')).code).toBe(0);
    const del = await kubectl('delete', 'deployment', 'fg', '--cascade=foreground', '--wait=false');
    expect(del.code).toBe(0);
    const fin = await kubectl('get', 'deployment', 'fg', '-o', 'jsonpath={.metadata.finalizers}');
    expect(fin.stdout).toBe('["foregroundDeletion"]');
    await until(() => fx.sim.api.get(DEPLOYMENTS, 'default', 'fg') === undefined, 10_000);
    expect((await kubectl('get', 'deployment', 'fg')).stderr.trim()).toBe('Error from server (NotFound): deployments.apps "fg" not found');
    expect((await kubectl('get', 'rs,pods', '-l', 'app=fg', '-o', 'name')).stdout.trim()).toBe('');
    expect(fx.sim.controllers!.errors).toBe(0);
  });
});
