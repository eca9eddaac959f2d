// Conformance: kube-apiserver stores every resource.Quantity field of a built-in kind in canonical form (its decoder
// parses it, its encoder prints it back: apimachinery/pkg/api/resource/quantity.go), so a controller that writes
// `1000m` and compares the string it reads back sees `1`. Judged by real kubectl, and over HTTP for the patch kinds.
import { describe, expect, it } from 'vitest';
import { http, kubectlSim, quotaSynced, until } from './sim-helpers.js';

const fx = kubectlSim({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.002, podStartMs: 20 } }, 'kwatch-quantities-');
const { kubectl, file } = fx;

const podYaml = (name: string, cpu: string | number, memory: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default}
spec:
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: ${typeof cpu === 'number' ? cpu : JSON.stringify(cpu)}, memory: ${JSON.stringify(memory)}}
      limits: {cpu: "2000m", memory: "2048Mi"}
  volumes:
  - name: scratch
    emptyDir: {sizeLimit: "1000Mi"}
`;
const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

describe('resource quantities read back in canonical form', () => {
  it('a pod created with cpu 1000m and memory 1.5Gi reads back 1 and 1536Mi (limits and emptyDir too)', async () => {
    const r = await kubectl('create', '-f', file('pod.yaml', podYaml('q1', '1000m', '1.5Gi')));
    expect(r.stderr).toBe('');
    const got = await kubectl('get', 'pod', 'q1', '-o', 'jsonpath={.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory} {.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.limits.memory} {.spec.volumes[0].emptyDir.sizeLimit}');
    expect(got.stdout).toBe('1 1536Mi 2 2Gi 1000Mi');
  });

  it('a number reads back as a string, 0.5 as 500m', async () => {
    await kubectl('create', '-f', file('pod2.yaml', podYaml('q2', 1, '0.5Ki')));
    await kubectl('create', '-f', file('pod3.yaml', podYaml('q3', '0.5', '1000')));
    const pods = JSON.parse((await kubectl('get', 'pod', 'q2', 'q3', '-o', 'json')).stdout).items;
    expect(pods.map((p: any) => p.spec.containers[0].resources.requests)).toEqual([{ cpu: '1', memory: '512' }, { cpu: '500m', memory: '1k' }]);
    // A null in a map of quantities decodes as the zero Quantity, which prints "0".
    const nulls = await http(fx.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q4' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: null, memory: 2e3 } } }] } } });
    expect([nulls.status, nulls.json.spec.containers[0].resources.requests]).toEqual([201, { cpu: '0', memory: '2k' }]);
    // A value far below a nano rounds up to one (the sim used to build 10^(its exponent) to divide by, and fail).
    const tiny = await http(fx.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q5' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1e-2000000000' } } }] } } });
    expect([tiny.status, tiny.json.spec?.containers[0].resources.requests]).toEqual([201, { cpu: '1e-9' }]);
  });

  it('a resourceFieldRef without a divisor reads back divisor "0" (a Quantity is a struct: Go writes it though omitempty)', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'downward', namespace: 'default' }, spec: {
      containers: [{ name: 'c', image: 'nginx', env: [
        { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: null } } },
        { name: 'MILLI', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1000m' } } },
      ] }],
      volumes: [{ name: 'info', downwardAPI: { items: [{ path: 'mem', resourceFieldRef: { containerName: 'c', resource: 'requests.memory' } }] } }],
    } };
    expect((await kubectl('create', '-f', file('downward.json', JSON.stringify(pod)))).stderr).toBe('');
    const got = JSON.parse((await kubectl('get', 'pod', 'downward', '-o', 'json')).stdout);
    expect(got.spec.containers[0].env.map((e: any) => e.valueFrom.resourceFieldRef.divisor)).toEqual(['0', '0', '1']);
    expect(got.spec.volumes[0].downwardAPI.items[0].resourceFieldRef).toEqual({ containerName: 'c', resource: 'requests.memory', divisor: '0' });
  });

  it("an invalid quantity is refused with kube's decode error", async () => {
    const r = await kubectl('create', '-f', file('bad.yaml', podYaml('bad', 'lots', '1Gi')));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`Error from server (BadRequest): error when creating "${fx.dir}/bad.yaml": Pod in version "v1" cannot be handled as a Pod: ${QUANTITY_ERROR}`);
    const suffix = await http(fx.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: JSON.parse(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad2' }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { memory: '1.5ki' } } }] } })) });
    expect([suffix.status, suffix.json.reason, suffix.json.message]).toEqual([400, 'BadRequest', 'Pod in version "v1" cannot be handled as a Pod: unable to parse quantity\'s suffix']);
    // Past a nano, ParseQuantity reads the number with inf.Dec, which wants a digit: kube's ErrNumeric.
    const numeric = await http(fx.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad3' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '.e-10' } } }] } } });
    expect([numeric.status, numeric.json.message]).toEqual([400, 'Pod in version "v1" cannot be handled as a Pod: unable to parse numeric part of quantity']);
    // An exponent past int64 is no suffix (strconv.ParseInt fails); the sim used to spin on it for good.
    const exponent = await http(fx.sim.url, '/api/v1/namespaces/default/pods', { method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad4' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1e99999999999999999999' } } }] } } });
    expect([exponent.status, exponent.json.message]).toEqual([400, 'Pod in version "v1" cannot be handled as a Pod: unable to parse quantity\'s suffix']);
  });

  it("a Deployment's pod template, and the pods its ReplicaSet makes, hold canonical quantities", async () => {
    const r = await kubectl('create', 'deployment', 'web', '--image=nginx', '--dry-run=client', '-o', 'json');
    const d = JSON.parse(r.stdout);
    d.spec.template.spec.containers[0].resources = { requests: { cpu: '0.25', memory: '0.5Gi' } };
    expect((await kubectl('create', '-f', file('deploy.json', JSON.stringify(d)))).stderr).toBe('');
    const got = await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].resources.requests}');
    expect(JSON.parse(got.stdout)).toEqual({ cpu: '250m', memory: '512Mi' });
    const webPods = () => fx.sim.api.list({ group: '', version: 'v1', resource: 'pods' }, 'default').filter((p: any) => p.metadata.labels?.app === 'web');
    await until(() => webPods().length > 0, 10_000);
    const pod = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].spec.containers[0].resources.requests}');
    expect(JSON.parse(pod.stdout)).toEqual({ cpu: '250m', memory: '512Mi' });
  });

  it('a ResourceQuota: spec.hard and the status the controller writes are canonical', async () => {
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard: { 'requests.cpu': '10000m', 'requests.memory': '4096Mi', pods: '1e3' } } };
    expect((await kubectl('create', '-f', file('quota.json', JSON.stringify(quota)))).stderr).toBe('');
    await quotaSynced(fx.sim.url, 'default', 'q');
    const q = JSON.parse((await kubectl('get', 'resourcequota', 'q', '-o', 'json')).stdout);
    expect(q.spec.hard).toEqual({ 'requests.cpu': '10', 'requests.memory': '4Gi', pods: '1e3' });
    expect(q.status.hard).toEqual(q.spec.hard);
  });

  it('strategic merge patch, JSON patch, server-side apply and the status subresource canonicalize too', async () => {
    const smp = await kubectl('patch', 'deployment', 'web', '-p', JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'nginx', resources: { limits: { cpu: '1500m', memory: '1024Mi' } } }] } } } }));
    expect(smp.stderr).toBe('');
    const applied = `apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: default}
spec:
  limits:
  - type: Container
    default: {cpu: "1000m", memory: "0.25Gi"}
`;
    expect((await kubectl('apply', '--server-side', '-f', file('lr.yaml', applied))).stderr).toBe('');
    const node = (await kubectl('get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}')).stdout;
    const status = await kubectl('patch', 'node', node, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { capacity: { 'example.com/widgets': '5000m' } } }));
    expect(status.stderr).toBe('');
    const all = JSON.parse((await kubectl('get', 'deployment/web', 'limitrange/lr', `node/${node}`, '-o', 'json')).stdout).items;
    expect(all[0].spec.template.spec.containers[0].resources.limits).toEqual({ cpu: '1500m', memory: '1Gi' });
    expect(all[1].spec.limits[0].default).toEqual({ cpu: '1', memory: '256Mi' });
    expect(all[2].status.capacity['example.com/widgets']).toBe('5');

    const jsonPatch = await http(fx.sim.url, '/apis/apps/v1/namespaces/default/deployments/web', {
      method: 'PATCH', headers: { 'Content-Type': 'application/json-patch+json' },
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/resources/limits/cpu', value: 'x1' }],
    });
    expect([jsonPatch.status, jsonPatch.json.reason, jsonPatch.json.details?.causes?.[0]?.field]).toEqual([422, 'Invalid', 'patch']);
    expect(jsonPatch.json.message).toContain(QUANTITY_ERROR);
  });

  it("a claim's storage request and an HPA's metric target are quantities too", async () => {
    const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'none', resources: { requests: { storage: '0.5Gi' } } } };
    const hpa = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1000m' } } }] },
    };
    expect((await kubectl('create', '-f', file('pvc.json', JSON.stringify(pvc)), '-f', file('hpa.json', JSON.stringify(hpa)))).stderr).toBe('');
    const got = await kubectl('get', 'pvc/data', 'hpa.v2.autoscaling/web', '-o', 'jsonpath={.items[0].spec.resources.requests.storage} {.items[1].spec.metrics[0].pods.target.averageValue}');
    expect(got.stdout).toBe('512Mi 1');
  });

  it('kubectl explain names the Quantity type as kube serves it (v3: a string or a number; v2: a string)', async () => {
    const v3 = await kubectl('explain', 'pod.spec.containers.resources');
    expect(v3.stdout).toMatch(/limits\t<map\[string\]Quantity>/);
    expect((await kubectl('explain', 'pod.spec.volumes.emptyDir.sizeLimit')).stdout).toContain('FIELD: sizeLimit <Quantity>');
    const v2 = await kubectl('explain', 'resourcequota.spec', '--output=plaintext-openapiv2');
    expect(v2.stdout).toMatch(/hard\t<map\[string\]string>/);
  });

  it('a custom resource keeps what was sent', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cpu: { type: 'string' } } } } } } }],
      },
    };
    expect((await http(fx.sim.url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', body: crd })).status).toBe(201);
    const made = await http(fx.sim.url, '/apis/example.com/v1/namespaces/default/widgets', { method: 'POST', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { cpu: '1000m' } } });
    expect([made.status, made.json.spec.cpu]).toEqual([201, '1000m']);
  });
});
