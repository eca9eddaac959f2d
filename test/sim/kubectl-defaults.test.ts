// Conformance: the defaults kube 1.32 gives pods, containers, pod templates and Services, seen through real kubectl
// (`get -o yaml`), `rollout undo` reusing the old ReplicaSet once templates are defaulted alike, and a failed JSON
// patch `test` op's cause.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubectlSim, until } from './sim-helpers.js';

const REPLICASETS = { group: 'apps', version: 'v1', resource: 'replicasets' };

const fx = kubectlSim({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.01, podStartMs: 50 } }, 'kwatch-defaults-');
const kubectl = fx.kubectl;

async function yamlOf(...args: string[]): Promise<any> {
  const r = await kubectl('get', ...args, '-o', 'yaml');
  expect(r.stderr).toBe('');
  return parse(r.stdout);
}

describe('kube 1.32 defaults through kubectl', () => {
  it('a pod from `kubectl run` gets the pod, container and admission defaults', async () => {
    expect((await kubectl('run', 'p1', '--image=nginx', '--restart=Never', '--port=80')).stdout.trim()).toBe('pod/p1 created');
    const pod = await yamlOf('pod', 'p1');
    const { containers, volumes, ...spec } = pod.spec;
    expect(spec).toMatchObject({
      restartPolicy: 'Never', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30,
      securityContext: {}, enableServiceLinks: true, priority: 0, preemptionPolicy: 'PreemptLowerPriority',
      serviceAccountName: 'default', serviceAccount: 'default',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
    const [c] = containers;
    expect(c).toMatchObject({
      name: 'p1', image: 'nginx', imagePullPolicy: 'Always', resources: {}, ports: [{ containerPort: 80, protocol: 'TCP' }],
      terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    });
    const token = volumes.find((v: any) => v.name.startsWith('kube-api-access-'));
    expect(token.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(token.projected.defaultMode).toBe(420);
    expect(token.projected.sources.map((s: any) => Object.keys(s)[0])).toEqual(['serviceAccountToken', 'configMap', 'downwardAPI']);
    expect(c.volumeMounts).toEqual([{ name: token.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    expect(pod.status.qosClass).toBe('BestEffort');
  });

  it('a tagged image pulls IfNotPresent; limits fill requests and make the pod Guaranteed', async () => {
    await kubectl('run', 'p2', '--image=nginx:1.27', '--restart=Never', '--overrides', JSON.stringify({ spec: { containers: [{ name: 'p2', image: 'nginx:1.27', resources: { limits: { cpu: '100m', memory: '64Mi' } } }] } }));
    const pod = await yamlOf('pod', 'p2');
    expect(pod.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
    expect(pod.spec.containers[0].resources).toEqual({ limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
    expect(pod.status.qosClass).toBe('Guaranteed');
  });

  it('a Deployment template gets the pod spec defaults, not the Pod-only or admission ones', async () => {
    await kubectl('create', 'deployment', 'd1', '--image=busybox:1.36', '--replicas=0');
    const d = await yamlOf('deploy', 'd1');
    expect(d.spec.template.metadata.creationTimestamp).toBeNull();
    expect(d.spec.template.spec).toEqual({
      containers: [{ name: 'busybox', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {},
    });
  });

  it('a ClusterIP Service gets a cluster IP from 10.96.0.0/12 and the IPv4 single-stack defaults', async () => {
    expect((await kubectl('create', 'service', 'clusterip', 's1', '--tcp=80:8080')).stdout.trim()).toBe('service/s1 created');
    const s = await yamlOf('svc', 's1');
    expect(s.spec).toMatchObject({
      type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
      ports: [{ name: '80-8080', port: 80, targetPort: 8080, protocol: 'TCP' }],
    });
    expect(s.spec.clusterIP).toMatch(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    expect(s.spec.clusterIPs).toEqual([s.spec.clusterIP]);
    // `get svc` shows it; an update that leaves it out keeps it (kubectl replace of the original manifest).
    const row = (await kubectl('get', 'svc', 's1', '--no-headers')).stdout.trim().split(/\s+/);
    expect(row.slice(0, 3)).toEqual(['s1', 'ClusterIP', s.spec.clusterIP]);
    const manifest = fx.file('s1.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: s1\nspec:\n  ports:\n  - port: 81\n');
    expect((await kubectl('replace', '-f', manifest)).stdout.trim()).toBe('service/s1 replaced');
    const after = await yamlOf('svc', 's1');
    expect(after.spec.clusterIP).toBe(s.spec.clusterIP);
    expect(after.spec.ports).toEqual([{ port: 81, targetPort: 81, protocol: 'TCP' }]);
  });

  it('NodePort Services get distinct node ports in 30000-32767; a taken cluster IP is a 422', async () => {
    await kubectl('create', 'service', 'nodeport', 'n1', '--tcp=80:80');
    await kubectl('create', 'service', 'nodeport', 'n2', '--tcp=80:80');
    const [a, b] = [await yamlOf('svc', 'n1'), await yamlOf('svc', 'n2')];
    for (const s of [a, b]) {
      expect(s.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
      expect(s.spec.ports[0].nodePort).toBeLessThanOrEqual(32767);
      expect(s.spec.externalTrafficPolicy).toBe('Cluster');
    }
    expect(a.spec.ports[0].nodePort).not.toBe(b.spec.ports[0].nodePort);
    const r = await kubectl('create', 'service', 'clusterip', 'n3', '--tcp=80:80', `--clusterip=${a.spec.clusterIP}`);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`error: failed to create ClusterIP service: Service "n3" is invalid: spec.clusterIPs: Invalid value: []string{"${a.spec.clusterIP}"}: failed to allocate IP ${a.spec.clusterIP}: provided IP is already allocated`);
  });

  it('rollout undo reuses the old ReplicaSet (same pod-template-hash) instead of making a new one', async () => {
    // Applied from a manifest (no Go zero values in it): undo sends the old template as kubectl's Go types print it
    // (`resources: {}`, `creationTimestamp: null`), which only defaulting makes equal to the stored one.
    const manifest = fx.file('web.yaml', [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: web', 'spec:', '  replicas: 1',
      '  selector:', '    matchLabels: {app: web}', '  template:', '    metadata:', '      labels: {app: web}',
      '    spec:', '      containers:', '      - name: nginx', '        image: nginx:1.26', '',
    ].join('\n'));
    expect((await kubectl('apply', '-f', manifest)).stdout.trim()).toBe('deployment.apps/web created');
    expect((await kubectl('rollout', 'status', 'deployment/web', '--timeout=15s')).code).toBe(0);
    const rsNames = async (): Promise<string[]> => (await kubectl('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}')).stdout.split(' ').filter(Boolean).sort();
    const [first] = await rsNames();
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    expect((await kubectl('rollout', 'status', 'deployment/web', '--timeout=15s')).code).toBe(0);
    const two = await rsNames();
    expect(two).toHaveLength(2);
    const u = await kubectl('rollout', 'undo', 'deployment/web');
    expect(u.stdout.trim()).toBe('deployment.apps/web rolled back');
    expect((await kubectl('rollout', 'status', 'deployment/web', '--timeout=15s')).code).toBe(0);
    expect(await rsNames()).toEqual(two);
    // The first ReplicaSet is the live one again, at revision 3.
    // The wait reads the sim's store (no kubectl per poll); kubectl judges once it holds.
    await until(() => (fx.sim.api.get(REPLICASETS, 'default', first)?.spec as { replicas?: number } | undefined)?.replicas === 1, 10_000);
    expect((await kubectl('get', 'rs', first, '-o', 'jsonpath={.spec.replicas} {.metadata.annotations.deployment\\.kubernetes\\.io/revision}')).stdout).toBe('1 3');
  });

  it('a failed JSON patch test op answers 422 with the patch library\'s cause', async () => {
    await kubectl('create', 'configmap', 'jp', '--from-literal=a=1');
    const r = await kubectl('patch', 'cm', 'jp', '--type', 'json', '-p', '[{"op":"test","path":"/data/a","value":"2"},{"op":"replace","path":"/data/a","value":"3"}]');
    expect(r.code).toBe(1);
    // kubectl prints the cause (it has no field, hence the empty one before the colon), as against a cluster.
    expect(r.stderr.trim()).toBe('The request is invalid: : testing value /data/a failed: test failed');
    expect((await kubectl('get', 'cm', 'jp', '-o', 'jsonpath={.data.a}')).stdout).toBe('1');
    const raw = await fetch(`${fx.sim.url}/api/v1/namespaces/default/configmaps/jp`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/json-patch+json' }, body: '[{"op":"test","path":"/data/a","value":"2"}]',
    });
    expect(raw.status).toBe(422);
    expect(await raw.json()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: 'the server rejected our request due to an error in our request',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'testing value /data/a failed: test failed' }] },
    });
  });
});
