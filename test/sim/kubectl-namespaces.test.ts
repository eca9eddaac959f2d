// Conformance: real kubectl (v1.32) deletes a namespace on the sim with its controllers on — the namespace turns
// Terminating, its pods go gracefully, `kubectl delete namespace` waits until it is gone — and a deleted node's pods
// are collected and replaced on the remaining node.
import { describe, expect, it } from 'vitest';
import { NAMESPACES, PODS, kubectlSim, until, watch } from './sim-helpers.js';

// Two nodes from the generator (no pods of its own); 30 s of grace take 0.6 s, pods start after 100 ms.
const fx = kubectlSim({ nodes: 2, pods: 0, churn: 0, controllers: { graceScale: 0.02, podStartMs: 100 } }, 'kwatch-namespaces-');
const kubectl = fx.kubectl;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.split(/\s+/));

describe('kubectl namespaces and nodes against the sim', () => {
  it('delete namespace: Terminating, every pod deleted, then the namespace is gone when kubectl returns', async () => {
    expect((await kubectl('create', 'namespace', 'demo')).stdout.trim()).toBe('namespace/demo created');
    expect((await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'demo')).code).toBe(0);
    expect((await kubectl('rollout', 'status', 'deployment/web', '-n', 'demo', '--timeout=15s')).code).toBe(0);
    const pods = rows((await kubectl('get', 'pods', '-n', 'demo', '--no-headers')).stdout).map((r) => r[0]);
    expect(pods).toHaveLength(2);
    const nsWatch = await watch(fx.sim.url, '/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3Ddemo');
    const podWatch = await watch(fx.sim.url, '/api/v1/namespaces/demo/pods?watch=1');
    try {
      const d = await kubectl('delete', 'namespace', 'demo', '--timeout=20s');
      expect(d.code).toBe(0);
      expect(d.stdout.trim()).toBe('namespace "demo" deleted');
      // kubectl waited: the namespace is gone by now.
      const g = await kubectl('get', 'namespace', 'demo');
      expect(g.stderr.trim()).toBe('Error from server (NotFound): namespaces "demo" not found');
      await until(() => nsWatch.events.some((e) => e.type === 'DELETED'), 5000);
      const ns = nsWatch.events.filter((e) => e.type !== 'ADDED');
      expect(ns[0].type).toBe('MODIFIED');
      expect(ns[0].object.status.phase).toBe('Terminating');
      expect(ns.at(-1)!.type).toBe('DELETED');
      for (const name of pods) {
        expect(podWatch.events.some((e) => e.type === 'MODIFIED' && e.object.metadata.name === name && e.object.metadata.deletionTimestamp)).toBe(true);
        expect(podWatch.events.some((e) => e.type === 'DELETED' && e.object.metadata.name === name)).toBe(true);
      }
    } finally {
      nsWatch.close();
      podWatch.close();
    }
  });

  it('shows Terminating while content remains and refuses new content with kube\'s 403', async () => {
    await kubectl('create', 'namespace', 'held');
    expect((await kubectl('create', 'configmap', 'cfg', '-n', 'held', '--from-literal=a=1')).code).toBe(0);
    expect((await kubectl('patch', 'configmap', 'cfg', '-n', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}')).code).toBe(0);
    const d = await kubectl('delete', 'namespace', 'held', '--wait=false');
    expect(d.stdout.trim()).toBe('namespace "held" deleted');
    const g = rows((await kubectl('get', 'namespace', 'held', '--no-headers')).stdout);
    expect(g[0].slice(0, 2)).toEqual(['held', 'Terminating']);
    const c = await kubectl('create', 'configmap', 'late', '-n', 'held');
    expect(c.code).not.toBe(0);
    expect(c.stderr.trim()).toBe('error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated');
    // The wait reads the sim's store (no kubectl per poll); kubectl judges once it holds.
    await until(() => (fx.sim.api.get(NAMESPACES, undefined, 'held')?.status as any)?.conditions?.some((c: any) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True'), 10_000);
    expect((await kubectl('get', 'namespace', 'held', '-o', 'jsonpath={.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].status}')).stdout).toBe('True');
    expect((await kubectl('patch', 'configmap', 'cfg', '-n', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}')).code).toBe(0);
    expect((await kubectl('wait', '--for=delete', 'namespace/held', '--timeout=15s')).code).toBe(0);
  });

  it('delete namespace default is forbidden', async () => {
    const d = await kubectl('delete', 'namespace', 'default');
    expect(d.code).not.toBe(0);
    expect(d.stderr.trim()).toBe('Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('delete node: its pods are collected and replaced on the other node', async () => {
    expect((await kubectl('create', 'deployment', 'spread', '--image=nginx', '--replicas=4')).code).toBe(0);
    expect((await kubectl('rollout', 'status', 'deployment/spread', '--timeout=15s')).code).toBe(0);
    const before = rows((await kubectl('get', 'pods', '-l', 'app=spread', '-o', 'wide', '--no-headers')).stdout);
    expect(new Set(before.map((r) => r[6]))).toEqual(new Set(['node-001', 'node-002']));
    expect((await kubectl('delete', 'node', 'node-001')).stdout.trim()).toBe('node "node-001" deleted');
    // The wait reads the sim's store (no kubectl per poll); kubectl judges once it holds.
    await until(() => {
      const now = fx.sim.api.list(PODS, 'default').filter((p) => p.metadata.labels?.app === 'spread');
      return now.length === 4 && now.every((p) => !p.metadata.deletionTimestamp && (p.status as any)?.phase === 'Running' && (p.spec as any).nodeName === 'node-002');
    }, 15_000);
    const now = rows((await kubectl('get', 'pods', '-l', 'app=spread', '-o', 'wide', '--no-headers')).stdout);
    expect(now.map((r) => [r[2], r[6]])).toEqual([1, 2, 3, 4].map(() => ['Running', 'node-002']));
    expect((await kubectl('rollout', 'status', 'deployment/spread', '--timeout=15s')).code).toBe(0);
  });
});
