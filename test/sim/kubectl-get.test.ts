// Conformance: real kubectl (v1.32) prints the sim's server-side Tables the way it prints a real cluster's.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { humanDuration } from '../../src/sim/table/age.js';
import { DEPLOYMENTS, KUBECTL, kubectlSim, NAMESPACES, pod, PODS, until } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-kubectl-get-');
const kubectl = fx.kubectl;

const MIN = 60_000;
const ref = (group: string, version: string, resource: string) => ({ group, version, resource });

/** kubectl's table output as header names and rows of cells, cut at the header's column starts (cells may be empty). */
function table(out: string): { header: string[]; rows: string[][] } {
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  const head = lines[0];
  const starts = [0];
  for (const m of head.matchAll(/ {2,}(?=\S)/g)) starts.push(m.index! + m[0].length);
  const cut = (l: string) => starts.map((s, i) => l.slice(s, starts[i + 1]).trim());
  return { header: cut(head), rows: lines.slice(1).map(cut) };
}

/** Every age kube could print for an object created at `created` while the command ran. */
function ages(created: string | undefined, r: { t0: number; t1: number }): string[] {
  const c = Date.parse(created!);
  const out = new Set<string>();
  for (let t = r.t0 - 1000; t <= r.t1 + 1000; t += 250) out.add(humanDuration(t - c));
  return [...out];
}
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

beforeAll(async () => {
  const now = Date.now();
  const api = fx.sim.api;
  api.create(NAMESPACES, { metadata: { name: 'team' } });
  api.create(ref('', 'v1', 'nodes'), {
    metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' } },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.22' },
    },
  });
  api.create(ref('', 'v1', 'nodes'), { metadata: { name: 'n2' }, spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
  api.create(PODS, {
    ...pod('api', { namespace: 'team', node: 'n1' }),
    status: {
      phase: 'Running', podIP: '10.64.0.7', podIPs: [{ ip: '10.64.0.7' }], conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'c', ready: true, started: true, restartCount: 3, state: { running: { startedAt: iso(now - MIN) } }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: iso(now - 15 * MIN - 20_000) } } }],
    },
  });
  api.create(PODS, { ...pod('batch', { namespace: 'team', node: 'n2' }), status: { phase: 'Succeeded', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } });
  api.create(PODS, { ...pod('web', { namespace: 'default', node: 'n2' }), status: { phase: 'Pending', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] } });
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
  api.create(DEPLOYMENTS, { metadata: { name: 'web', namespace: 'team' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template }, status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } });
  api.create(ref('apps', 'v1', 'replicasets'), { metadata: { name: 'web-5d8f', namespace: 'team' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d8f' } }, template }, status: { replicas: 3, readyReplicas: 2 } });
  api.create(ref('', 'v1', 'services'), { metadata: { name: 'web', namespace: 'team' }, spec: { type: 'NodePort', clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], selector: { app: 'web' }, ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] } });
  api.create(ref('', 'v1', 'configmaps'), { metadata: { name: 'settings', namespace: 'team' }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } });
  api.create(ref('', 'v1', 'secrets'), { metadata: { name: 'creds', namespace: 'team' }, type: 'Opaque', data: { password: 'cw==' } });
  api.create(ref('', 'v1', 'events'), {
    metadata: { name: 'api.1', namespace: 'team' }, involvedObject: { kind: 'Pod', namespace: 'team', name: 'api', fieldPath: 'spec.containers{c}' },
    reason: 'BackOff', message: 'Back-off restarting failed container', type: 'Warning', source: { component: 'kubelet', host: 'n1' },
    firstTimestamp: iso(now - 3 * 24 * 60 * MIN), lastTimestamp: iso(now - 2 * 24 * 60 * MIN - 10 * MIN), count: 12,
  });
  const crd = (plural: string, kind: string, columns?: object[]) => ({
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, ...(columns ? { additionalPrinterColumns: columns } : {}) }],
    },
  });
  api.create(ref('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'), crd('gadgets', 'Gadget', [
    { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
  ]));
  api.create(ref('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'), crd('widgets', 'Widget'));
  api.create(ref('example.com', 'v1', 'gadgets'), { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1', namespace: 'team' }, spec: { size: 3, color: 'red' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  api.create(ref('example.com', 'v1', 'widgets'), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'team' } });
});

const created = (r: { group: string; version: string; resource: string }, ns: string | undefined, name: string) => fx.sim.api.get(r, ns, name)!.metadata.creationTimestamp;

describe('kubectl get prints server-side Tables', () => {
  it('get pods -A: READY, STATUS and RESTARTS as kube prints them', async () => {
    const r = await kubectl('get', 'pods', '-A');
    expect(r.stderr).toBe('');
    const t = table(r.stdout);
    expect(t.header).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(t.rows.map((x) => x.slice(0, 5))).toEqual([
      ['default', 'web', '0/1', 'ContainerCreating', '0'],
      ['team', 'api', '1/1', 'Running', '3 (15m ago)'],
      ['team', 'batch', '0/1', 'Completed', '0'],
    ]);
    expect(ages(created(PODS, 'team', 'api'), r)).toContain(t.rows[1][5]);
  });

  it('get pods -o wide adds IP, NODE, NOMINATED NODE and READINESS GATES', async () => {
    const r = await kubectl('get', 'pods', '-n', 'team', '-o', 'wide');
    const t = table(r.stdout);
    expect(t.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(t.rows[0].filter((_, i) => i !== 4)).toEqual(['api', '1/1', 'Running', '3 (15m ago)', '10.64.0.7', 'n1', '<none>', '<none>']);
    expect(t.rows[1].slice(5)).toEqual(['<none>', 'n2', '<none>', '<none>']);
  });

  it('get nodes (and -o wide): status, roles, version, addresses and node info', async () => {
    const r = await kubectl('get', 'nodes');
    const t = table(r.stdout);
    expect(t.header).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(t.rows.map((x) => x.filter((_, i) => i !== 3))).toEqual([['n1', 'Ready', 'control-plane', 'v1.32.0'], ['n2', 'NotReady,SchedulingDisabled', '<none>', '']]);
    const w = table((await kubectl('get', 'nodes', '-o', 'wide')).stdout);
    expect(w.header.slice(5)).toEqual(['INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(w.rows[0].slice(5)).toEqual(['10.0.0.1', '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.1.0', 'containerd://1.7.22']);
    expect(w.rows[1].slice(5)).toEqual(['<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  });

  it('get deployments and replicasets (-o wide shows containers, images, selector)', async () => {
    const d = await kubectl('get', 'deployments', '-n', 'team', '-o', 'wide');
    const dt = table(d.stdout);
    expect(dt.header).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(dt.rows[0].filter((_, i) => i !== 4)).toEqual(['web', '2/3', '3', '2', 'web', 'nginx:1.27', 'app=web']);
    expect(ages(created(DEPLOYMENTS, 'team', 'web'), d)).toContain(dt.rows[0][4]);
    const rs = table((await kubectl('get', 'rs', '-n', 'team', '-o', 'wide')).stdout);
    expect(rs.header).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(rs.rows[0].filter((_, i) => i !== 4)).toEqual(['web-5d8f', '3', '3', '2', 'web', 'nginx:1.27', 'app=web,pod-template-hash=5d8f']);
  });

  it('get services, configmaps, secrets, namespaces', async () => {
    const svc = table((await kubectl('get', 'svc', '-n', 'team', '-o', 'wide')).stdout);
    expect(svc.header).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    expect(svc.rows[0].filter((_, i) => i !== 5)).toEqual(['web', 'NodePort', '10.96.0.20', '<none>', '80:30080/TCP', 'app=web']);
    const cm = table((await kubectl('get', 'cm', 'settings', '-n', 'team')).stdout);
    expect(cm.header).toEqual(['NAME', 'DATA', 'AGE']);
    expect(cm.rows[0].slice(0, 2)).toEqual(['settings', '3']);
    const sec = table((await kubectl('get', 'secrets', '-n', 'team')).stdout);
    expect(sec.header).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
    expect(sec.rows[0].slice(0, 3)).toEqual(['creds', 'Opaque', '1']);
    const ns = await kubectl('get', 'ns', 'team');
    const nt = table(ns.stdout);
    expect(nt.header).toEqual(['NAME', 'STATUS', 'AGE']);
    expect(nt.rows[0].slice(0, 2)).toEqual(['team', 'Active']);
    expect(ages(created(NAMESPACES, undefined, 'team'), ns)).toContain(nt.rows[0][2]);
  });

  it('get events: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE (-o wide adds SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME)', async () => {
    const t = table((await kubectl('get', 'events', '-n', 'team')).stdout);
    expect(t.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(t.rows[0]).toEqual(['2d', 'Warning', 'BackOff', 'pod/api', 'Back-off restarting failed container']);
    const w = table((await kubectl('get', 'events', '-n', 'team', '-o', 'wide')).stdout);
    expect(w.header).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    expect(w.rows[0]).toEqual(['2d', 'Warning', 'BackOff', 'pod/api', 'spec.containers{c}', 'kubelet, n1', 'Back-off restarting failed container', '3d', '12', 'api.1']);
  });

  it("custom resources use their CRD's additionalPrinterColumns, or NAME and AGE; CRDs print CREATED AT", async () => {
    const g = table((await kubectl('get', 'gadgets', '-n', 'team')).stdout);
    expect(g.header).toEqual(['NAME', 'SIZE', 'READY']);
    expect(g.rows).toEqual([['g1', '3', 'True']]);
    expect(table((await kubectl('get', 'gadgets', '-n', 'team', '-o', 'wide')).stdout).rows).toEqual([['g1', '3', 'True', 'red']]);
    const w = await kubectl('get', 'widgets', '-n', 'team');
    const wt = table(w.stdout);
    expect(wt.header).toEqual(['NAME', 'AGE']);
    expect(wt.rows[0][0]).toBe('w1');
    expect(ages(created(ref('example.com', 'v1', 'widgets'), 'team', 'w1'), w)).toContain(wt.rows[0][1]);
    const crds = table((await kubectl('get', 'crd')).stdout);
    expect(crds.header).toEqual(['NAME', 'CREATED AT']);
    const crdRef = ref('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    expect(crds.rows).toEqual([['gadgets.example.com', created(crdRef, undefined, 'gadgets.example.com')], ['widgets.example.com', created(crdRef, undefined, 'widgets.example.com')]]);
  });

  it('--chunk-size=2 pages through Tables and prints one header', async () => {
    const before = fx.sim.requests().length;
    const r = await kubectl('get', 'pods', '-A', '--chunk-size=2');
    const t = table(r.stdout);
    expect(t.rows.map((x) => x[1])).toEqual(['web', 'api', 'batch']);
    const lists = fx.sim.requests().slice(before).filter((q) => q.verb === 'list' && q.url.startsWith('/api/v1/pods'));
    expect(lists.map((q) => q.url.includes('continue='))).toEqual([false, true]);
  });

  it('--sort-by=.metadata.name asks for whole objects (includeObject=Object) and sorts the rows', async () => {
    const before = fx.sim.requests().length;
    const t = table((await kubectl('get', 'pods', '-A', '--sort-by=.metadata.name')).stdout);
    expect(t.rows.map((x) => `${x[0]}/${x[1]}`)).toEqual(['team/api', 'team/batch', 'default/web']);
    expect(fx.sim.requests().slice(before).some((q) => q.verb === 'list' && q.url.includes('includeObject=Object'))).toBe(true);
  });

  it('get pod NAME is a one-row Table from a GET', async () => {
    const before = fx.sim.requests().length;
    const t = table((await kubectl('get', 'pod', 'api', '-n', 'team')).stdout);
    expect(t.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(t.rows.map((x) => x.slice(0, 4))).toEqual([['api', '1/1', 'Running', '3 (15m ago)']]);
    expect(fx.sim.requests().slice(before).map((q) => q.verb)).toContain('get');
  });

  it('get -w prints the list, then one row per change without repeating the header', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', fx.kubeconfig, 'get', 'pods', '-n', 'team', '-w']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      await until(() => out.split('\n').length > 3 && fx.sim.requests().some((q) => q.verb === 'watch' && q.url.includes('/namespaces/team/pods')), 10_000);
      fx.sim.api.create(PODS, { ...pod('late', { namespace: 'team' }), status: { phase: 'Pending' } });
      await until(() => /\nlate\s/.test(out), 10_000);
      const t = table(out);
      expect(t.header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      expect(t.rows.map((x) => x.slice(0, 4))).toEqual([
        ['api', '1/1', 'Running', '3 (15m ago)'],
        ['batch', '0/1', 'Completed', '0'],
        ['late', '0/1', 'Pending', '0'],
      ]);
    } finally {
      child.kill();
    }
  });
});
