// Conformance: pods/NAME/log served from the sim's kubelet, judged by real kubectl (logs, -f, --tail, --timestamps,
// -c, --previous, --limit-bytes, --since) and by the wire answers kube gives (400 while a container waits, 422 for bad
// PodLogOptions).
import { execFile, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PODS, http, kubectlSim, KUBECTL, until } from './sim-helpers.js';

// One node; pods start after 100 ms; a running container writes a line every 300 ms; 30 s of grace take 0.3 s (the
// -f test waits them out for the exit line).
const fx = kubectlSim({ nodes: 1, pods: 0, churn: 0, logHeartbeatMs: 300, controllers: { graceScale: 0.01, podStartMs: 100 } }, 'kwatch-logs-');
const kubectl = fx.kubectl;
// Pods here never leave ContainerCreating (a minute to start).
const slow = kubectlSim({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.03, podStartMs: 60_000 } }, 'kwatch-logs-slow-');

const podYaml = (name: string, containers: string[]): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
${containers.map((c) => `  - name: ${c}\n    image: nginx`).join('\n')}
`;

/** Waits on the sim's store (no kubectl per poll), then has kubectl say the pod runs. */
async function running(name: string): Promise<void> {
  await until(() => (fx.sim.api.get(PODS, 'default', name)?.status as { phase?: string } | undefined)?.phase === 'Running', 10_000);
  expect((await kubectl('get', 'pod', name, '-o', 'jsonpath={.status.phase}')).stdout).toBe('Running');
}

const START = /^container (\w+) started \(image docker\.io\/library\/nginx:latest\)$/;

describe('pod logs against the sim', () => {
  it('kubectl logs prints the start line and heartbeats; --tail, --timestamps, -c and --limit-bytes cut them as kube does', async () => {
    expect((await kubectl('create', '-f', fx.file('one.yaml', podYaml('one', ['app'])))).code).toBe(0);
    await running('one');
    // Waits on the log endpoint itself (an HTTP request, not a kubectl per poll); kubectl reads it after.
    await until(async () => (await http(fx.sim.url, '/api/v1/namespaces/default/pods/one/log')).text.trim().split('\n').length >= 3, 10_000);
    const all = (await kubectl('logs', 'one')).stdout.trim().split('\n');
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all[0]).toMatch(START);
    expect(all[1]).toMatch(/^container app running, up \d+s$/);

    const tail = await kubectl('logs', 'one', '--tail=1');
    expect(tail.stdout.trim().split('\n')).toHaveLength(1);
    expect(tail.stdout).toMatch(/^container app running, up \d+s\n$/);

    const ts = (await kubectl('logs', 'one', '--timestamps', '--tail=-1')).stdout.trim().split('\n');
    const startedAt = (await kubectl('get', 'pod', 'one', '-o', 'jsonpath={.status.containerStatuses[0].state.running.startedAt}')).stdout;
    // The kubelet's RFC3339Nano prefix: the first line carries the container's start time.
    expect(ts[0]).toBe(`${startedAt} ${all[0]}`);
    for (const l of ts) expect(l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z container app /);

    expect((await kubectl('logs', 'one', '-c', 'app', '--limit-bytes=9')).stdout).toBe('container');
    expect((await kubectl('logs', 'one', '--since=1h', '--tail=1')).stdout).toMatch(/^container app running/);
  });

  it('kubectl logs -f streams new lines, then SIGTERM and exit lines when the pod is deleted, and ends', async () => {
    expect((await kubectl('create', '-f', fx.file('f.yaml', podYaml('f', ['app'])))).code).toBe(0);
    await running('f');
    const child = spawn(KUBECTL, ['--kubeconfig', fx.kubeconfig, 'logs', '-f', 'f'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; });
    const exited = new Promise<number>((r) => child.on('exit', (code) => r(code ?? -1)));
    try {
      await until(() => out.split('\n').filter(Boolean).length >= 3, 10_000);
      expect(out.split('\n')[0]).toMatch(START);
      expect((await kubectl('delete', 'pod', 'f', '--wait=false')).code).toBe(0);
      expect(await Promise.race([exited, new Promise<number>((r) => setTimeout(() => r(-2), 15_000))])).toBe(0);
      const lines = out.trim().split('\n');
      expect(lines.at(-2)).toBe('container app received SIGTERM, shutting down');
      expect(lines.at(-1)).toBe('container app exited with code 0');
    } finally {
      child.kill();
    }
  });

  it('two containers: kubectl picks one with -c; the wire asks for a container name as kube does; unknown container and --previous are 400s', async () => {
    expect((await kubectl('create', '-f', fx.file('two.yaml', podYaml('two', ['a', 'b'])))).code).toBe(0);
    await running('two');
    expect((await kubectl('logs', 'two', '-c', 'b')).stdout.split('\n')[0]).toBe('container b started (image docker.io/library/nginx:latest)');
    const none = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log');
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message: 'a container name must be specified for pod two, choose one of: [a b]' });
    // kubectl refuses an unknown container itself; the wire answers kube's 400.
    const bad = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log?container=zz');
    expect(bad.json).toMatchObject({ reason: 'BadRequest', code: 400, message: 'container zz is not valid for pod two' });
    const prev = await kubectl('logs', 'two', '-c', 'a', '--previous');
    expect(prev.stderr.trim()).toBe('Error from server (BadRequest): previous terminated container "a" in pod "two" not found');
    const missing = await kubectl('logs', 'nope');
    // kubectl reads the pod first; its own wording of that 404.
    expect(missing.stderr.trim()).toBe('error: error from server (NotFound): pods "nope" not found in namespace "default"');
    const wire404 = await http(fx.sim.url, '/api/v1/namespaces/default/pods/nope/log');
    expect(wire404.json).toMatchObject({ reason: 'NotFound', code: 404, message: 'pods "nope" not found', details: { name: 'nope', kind: 'pods' } });
  });

  it('bad PodLogOptions are 422 PodLogOptions "<pod>" is invalid, bad integers 400', async () => {
    const neg = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log?container=a&tailLines=-2');
    expect(neg.status).toBe(422);
    expect(neg.json).toMatchObject({ reason: 'Invalid', message: 'PodLogOptions "two" is invalid: tailLines: Invalid value: -2: must be greater than or equal to 0', details: { name: 'two', kind: 'PodLogOptions', causes: [{ reason: 'FieldValueInvalid', field: 'tailLines' }] } });
    const both = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log?container=a&sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z');
    expect(both.status).toBe(422);
    expect(both.json.message).toBe('PodLogOptions "two" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
    const limit = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log?container=a&limitBytes=0');
    expect(limit.json.message).toBe('PodLogOptions "two" is invalid: limitBytes: Invalid value: 0: must be greater than 0');
    const word = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log?container=a&tailLines=x');
    expect(word.status).toBe(400);
    const ok = await http(fx.sim.url, '/api/v1/namespaces/default/pods/two/log?container=a&tailLines=1');
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('text/plain');
  });

  it('a waiting container: kube\'s 400 "is waiting to start: ContainerCreating"; an unscheduled pod logs nothing', async () => {
    expect((await slow.kubectl('create', '-f', slow.file('w.yaml', podYaml('w', ['app'])))).code).toBe(0);
    await until(() => (slow.sim.api.get(PODS, 'default', 'w')?.status as any)?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating', 10_000);
    expect((await slow.kubectl('get', 'pod', 'w', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.reason}')).stdout).toBe('ContainerCreating');
    const r = await slow.kubectl('logs', 'w');
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('Error from server (BadRequest): container "app" in pod "w" is waiting to start: ContainerCreating');
    const wire = await http(slow.sim.url, '/api/v1/namespaces/default/pods/w/log');
    expect(wire.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400, message: 'container "app" in pod "w" is waiting to start: ContainerCreating' });
    // No scheduler picks this one: kube's LogLocation has no node to ask and answers an empty 200.
    const unscheduled = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'u' }, spec: { schedulerName: 'elsewhere', containers: [{ name: 'app', image: 'nginx' }] } };
    expect((await http(slow.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: unscheduled })).status).toBe(201);
    const empty = await http(slow.sim.url, '/api/v1/namespaces/default/pods/u/log');
    expect([empty.status, empty.text]).toEqual([200, '']);
  });

  it('the Python client reads the log as a string', async () => {
    const script = `
import sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
print(client.CoreV1Api().read_namespaced_pod_log("one", "default", tail_lines=1, timestamps=True), end="")
`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', script, fx.kubeconfig], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    });
    expect(out).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z container app running, up \d+s\n$/);
  });
});
