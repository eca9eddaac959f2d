// Conformance: real kubectl (v1.32) drives the sim with nothing but --kubeconfig.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { KUBECTL, kubectlSim, NAMESPACES, pod, PODS, until } from './sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-kubectl-');
const kubectl = fx.kubectl;
const file = fx.file;

beforeAll(async () => {
  fx.sim.api.create(NAMESPACES, { metadata: { name: 'team' } });
  for (const [n, ns, node] of [['a', 'default', 'n1'], ['b', 'default', 'n2'], ['c', 'team', 'n1'], ['d', 'team', 'n2'], ['e', 'team', 'n1']]) {
    fx.sim.api.create(PODS, pod(n, { namespace: ns, node, labels: { tier: node === 'n1' ? 'front' : 'back' } }));
  }
});

const names = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => l.split(/\s+/));

describe('kubectl against the sim', () => {
  it('get -A lists pods of every namespace', async () => {
    const r = await kubectl('get', 'pods', '-A');
    expect(r.stderr).toBe('');
    const rows = names(r.stdout);
    expect(rows[0].slice(0, 2)).toEqual(['NAMESPACE', 'NAME']);
    expect(rows.slice(1).map((x) => `${x[0]}/${x[1]}`)).toEqual(['default/a', 'default/b', 'team/c', 'team/d', 'team/e']);
  });

  it('get --chunk-size=2 follows continue tokens over several pages', async () => {
    const before = fx.sim.requests().length;
    const r = await kubectl('get', 'pods', '-A', '--chunk-size=2', '-o', 'name');
    expect(r.stdout.trim().split('\n')).toEqual(['pod/a', 'pod/b', 'pod/c', 'pod/d', 'pod/e']);
    const lists = fx.sim.requests().slice(before).filter((q) => q.verb === 'list' && q.url.startsWith('/api/v1/pods'));
    expect(lists).toHaveLength(3);
    expect(lists.every((q) => q.url.includes('limit=2'))).toBe(true);
    expect(lists.slice(1).every((q) => q.url.includes('continue='))).toBe(true);
  });

  it('-l and --field-selector spec.nodeName select on the server', async () => {
    const l = await kubectl('get', 'pods', '-n', 'team', '-l', 'tier=back', '-o', 'name');
    expect(l.stdout.trim()).toBe('pod/d');
    const f = await kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=n1', '-o', 'name');
    expect(f.stdout.trim().split('\n')).toEqual(['pod/a', 'pod/c', 'pod/e']);
    const bad = await kubectl('get', 'pods', '--field-selector', 'spec.bogus=1');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('field label not supported: spec.bogus');
  });

  it('api-resources shows the built-in resources with short names and scope', async () => {
    const r = await kubectl('api-resources');
    const rows = names(r.stdout);
    expect(rows.find((x) => x[0] === 'pods')).toEqual(['pods', 'po', 'v1', 'true', 'Pod']);
    expect(rows.find((x) => x[0] === 'deployments')).toEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
    expect(rows.find((x) => x[0] === 'leases')).toEqual(['leases', 'coordination.k8s.io/v1', 'true', 'Lease']);
    expect(rows.find((x) => x[0] === 'nodes')).toEqual(['nodes', 'no', 'v1', 'false', 'Node']);
  });

  it('create -f and apply -f (client-side and --server-side) of a pod, then delete', async () => {
    const f = file('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers:\n  - name: c\n    image: nginx\n');
    const c = await kubectl('create', '-f', f);
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('pod/web created');
    const again = await kubectl('create', '-f', f);
    expect(again.stderr.trim()).toBe('Error from server (AlreadyExists): error when creating "' + f + '": pods "web" already exists');
    const f2 = file('pod2.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web2\nspec:\n  containers:\n  - name: c\n    image: nginx\n');
    expect((await kubectl('apply', '-f', f2)).stdout.trim()).toBe('pod/web2 created');
    const rv = fx.sim.api.currentRevision();
    expect((await kubectl('apply', '-f', f2)).stdout.trim()).toBe('pod/web2 unchanged');
    expect(fx.sim.api.currentRevision()).toBe(rv);
    file('pod2.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web2\n  labels: {v: "2"}\nspec:\n  containers:\n  - name: c\n    image: nginx\n');
    expect((await kubectl('apply', '-f', f2)).stdout.trim()).toBe('pod/web2 configured');
    expect(fx.sim.api.get(PODS, 'default', 'web2')!.metadata.labels).toEqual({ v: '2' });
    const ssa = await kubectl('apply', '--server-side', '-f', f);
    expect(ssa.stdout.trim()).toBe('pod/web serverside-applied');
    const del = await kubectl('delete', 'pod', 'web', 'web2');
    expect(del.stdout.trim().split('\n')).toEqual(['pod "web" deleted', 'pod "web2" deleted']);
    expect(fx.sim.api.get(PODS, 'default', 'web')).toBeUndefined();
  });

  it('--dry-run=server validates and answers without storing', async () => {
    const rv = fx.sim.api.currentRevision();
    const r = await kubectl('run', 'dry', '--image=nginx', '--dry-run=server', '-o', 'name');
    expect(r.stdout.trim()).toBe('pod/dry');
    const d = await kubectl('delete', 'pod', 'a', '--dry-run=server');
    expect(d.stdout.trim()).toBe('pod "a" deleted (server dry run)');
    expect(fx.sim.api.currentRevision()).toBe(rv);
    expect(fx.sim.api.get(PODS, 'default', 'a')).toBeDefined();
  });

  it('create -f of a CRD and apply -f of its custom resource, usable at once by kind and short name', async () => {
    // Warm kubectl's discovery cache first, so the new kind needs an invalidation.
    await kubectl('get', 'pods');
    const crd = file('crd.yaml', `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`);
    expect((await kubectl('create', '-f', crd)).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    const cr = file('widget.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n');
    const applied = await kubectl('apply', '-f', cr);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('widget.example.com/w1 created');
    expect((await kubectl('apply', '-f', cr)).stdout.trim()).toBe('widget.example.com/w1 unchanged');
    expect((await kubectl('apply', '--server-side', '-f', cr)).stdout.trim()).toBe('widget.example.com/w1 serverside-applied');
    const got = await kubectl('get', 'wd', '-o', 'jsonpath={.items[*].spec.size}');
    expect(got.stdout).toBe('3');
    const res = await kubectl('api-resources', '--api-group=example.com', '-o', 'name');
    expect(res.stdout.trim()).toBe('widgets.example.com');
  });

  it('get -w --output-watch-events prints creates, changes and deletes as they happen', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', fx.kubeconfig, 'get', 'pods', '-n', 'team', '-w', '--output-watch-events', '--no-headers']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      await until(() => out.split('\n').length > 3, 10_000);
      // kubectl prints the listed rows before it opens the watch: wait for the watch request itself.
      await until(() => fx.sim.requests().some((q) => q.verb === 'watch' && q.url.includes('/namespaces/team/pods')), 10_000);
      fx.sim.api.create(PODS, pod('w', { namespace: 'team' }));
      const cur = fx.sim.api.get(PODS, 'team', 'c')!;
      fx.sim.api.update(PODS, { ...cur, status: { phase: 'Running' } });
      fx.sim.api.delete(PODS, 'team', 'd');
      await until(() => /DELETED\s+d\s/.test(out), 10_000);
      const rows = names(out).map((x) => `${x[0]} ${x[1]}`);
      expect(rows).toEqual(['ADDED c', 'ADDED d', 'ADDED e', 'ADDED w', 'MODIFIED c', 'DELETED d']);
    } finally {
      child.kill();
    }
  });

  it('get --raw of a watch from a past resourceVersion replays history; from a compacted one gets the 410 ERROR', async () => {
    const rv = fx.sim.api.currentRevision();
    fx.sim.api.create(PODS, pod('hist', { namespace: 'team' }));
    fx.sim.api.delete(PODS, 'team', 'hist');
    const r = await kubectl('get', '--raw', `/api/v1/namespaces/team/pods?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    const evs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(evs.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED hist', 'DELETED hist']);
    fx.sim.faults.compact();
    const old = await kubectl('get', '--raw', `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    const [err] = old.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(err).toEqual({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${rv} (${fx.sim.api.currentRevision()})`, reason: 'Expired', code: 410 } });
  });

  it('scale changes a deployment\'s replicas through the scale subresource', async () => {
    const deploy = file('deploy.yaml', [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: web', '  namespace: team', 'spec:', '  replicas: 1',
      '  selector:', '    matchLabels:', '      app: web', '  template:', '    metadata:', '      labels:', '      app: web',
      '    spec:', '      containers:', '      - name: web', '        image: nginx',
    ].join('\n').replace('      labels:\n      app: web', '      labels:\n        app: web'));
    expect((await kubectl('apply', '-f', deploy)).code).toBe(0);
    const r = await kubectl('scale', 'deployment', 'web', '-n', 'team', '--replicas=3');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('deployment.apps/web scaled');
    expect((await kubectl('get', 'deployment', 'web', '-n', 'team', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('3');
    const scale = await kubectl('get', '--raw', '/apis/apps/v1/namespaces/team/deployments/web/scale');
    expect(JSON.parse(scale.stdout)).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { selector: 'app=web' } });
  });
});
