// Conformance: real kubectl (v1.32) against the kinds the sim serves beside pods and deployments — ServiceAccounts,
// RBAC, Ingress, quotas, disruption budgets, StatefulSets, DaemonSets, Endpoints/EndpointSlices — created with
// kubectl's typed commands (protobuf bodies) and from YAML, printed with kubectl's columns, and driven by the sim's
// controllers: rollout status, the default ServiceAccount and root CA per namespace, drain through pods/eviction.
import { describe, expect, it } from 'vitest';
import { PODS, http, kubectlSim, until } from './sim-helpers.js';

// Two nodes from the generator (no pods of its own); 30 s of grace take 60 ms, pods start after 100 ms. No test here is
// about the grace period itself (drain and scale-down wait out graces, one pod after another).
const fx = kubectlSim({ nodes: 2, pods: 0, churn: 0, controllers: { graceScale: 0.002, podStartMs: 100 } }, 'kwatch-kinds-');
const kubectl = fx.kubectl;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s{2,}/));
const ok = async (...args: string[]): Promise<string> => {
  const r = await kubectl(...args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

/*
 * The waits below read the sim's store in process (a kubectl per poll cost more CPU than the controller it waited
 * on); what a test asserts once a wait is over is still read with kubectl.
 */
const core = (resource: string) => ({ group: '', version: 'v1', resource });
const stored = (resource: string, name: string, namespace = 'kinds'): any => fx.sim.api.get(core(resource), namespace, name);
const storedWebPods = () => fx.sim.api.list(PODS, 'kinds').filter((p) => p.metadata.labels?.app === 'web');

const WORKLOADS = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: kinds}
spec:
  replicas: 3
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx, ports: [{containerPort: 8080, name: http}], resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kinds}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: busybox, resources: {requests: {cpu: 50m}}}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: kinds}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http, name: http}]
`;

describe('kubectl and the sim\'s further kinds', () => {
  it('a new namespace gets the default ServiceAccount and the kube-root-ca.crt ConfigMap', async () => {
    expect(await ok('create', 'namespace', 'kinds')).toBe('namespace/kinds created\n');
    await until(() => stored('serviceaccounts', 'default') !== undefined && stored('configmaps', 'kube-root-ca.crt') !== undefined, 5000);
    const out = rows(await ok('get', 'sa,cm', '-n', 'kinds'));
    expect(out[0]).toEqual(['NAME', 'SECRETS', 'AGE']);
    expect(out[1].slice(0, 2)).toEqual(['serviceaccount/default', '0']);
    expect(out[3].slice(0, 2)).toEqual(['configmap/kube-root-ca.crt', '1']);
  });

  it('typed create commands (protobuf) for ServiceAccount, RBAC, quota, pdb and ingress; get prints kubectl\'s columns', async () => {
    expect(await ok('create', 'serviceaccount', 'bot', '-n', 'kinds')).toBe('serviceaccount/bot created\n');
    expect(await ok('create', 'role', 'reader', '--verb=get,list', '--resource=pods', '-n', 'kinds')).toBe('role.rbac.authorization.k8s.io/reader created\n');
    expect(await ok('create', 'rolebinding', 'bot-reads', '--role=reader', '--serviceaccount=kinds:bot', '--user=alice', '-n', 'kinds')).toBe('rolebinding.rbac.authorization.k8s.io/bot-reads created\n');
    expect(await ok('create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes')).toBe('clusterrole.rbac.authorization.k8s.io/node-reader created\n');
    expect(await ok('create', 'clusterrolebinding', 'ops', '--clusterrole=node-reader', '--group=ops')).toBe('clusterrolebinding.rbac.authorization.k8s.io/ops created\n');
    expect(await ok('create', 'quota', 'q', '--hard=pods=10,configmaps=5,requests.cpu=2', '-n', 'kinds')).toBe('resourcequota/q created\n');
    expect(await ok('create', 'pdb', 'web', '--selector=app=web', '--min-available=2', '-n', 'kinds')).toBe('poddisruptionbudget.policy/web created\n');
    expect(await ok('create', 'ingress', 'kinds', '--rule=shop.example.com/=web:80', '-n', 'kinds')).toBe('ingress.networking.k8s.io/kinds created\n');
    expect(await ok('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '-n', 'kinds')).toBe('cronjob.batch/nightly created\n');
    const cj = rows(await ok('get', 'cronjob', 'nightly', '-n', 'kinds'));
    expect(cj[0]).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    expect(cj[1].slice(0, 6)).toEqual(['nightly', '0 3 * * *', '<none>', 'False', '0', '<none>']);

    const got = rows(await ok('get', 'role,rolebinding,ingress,pdb', '-n', 'kinds', '-o', 'wide'));
    expect(got[0]).toEqual(['NAME', 'CREATED AT']);
    expect(got[1][0]).toBe('role.rbac.authorization.k8s.io/reader');
    expect(got[1][1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(got[2]).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect([got[3][0], got[3][1], got[3][3], got[3][4]]).toEqual(['rolebinding.rbac.authorization.k8s.io/bot-reads', 'Role/reader', 'alice', 'kinds:bot']);
    expect(got[4]).toEqual(['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    expect(got[5].slice(0, 4)).toEqual(['ingress.networking.k8s.io/kinds', '<none>', 'shop.example.com', '80']);
    expect(got[6]).toEqual(['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    expect(got[7].slice(0, 4)).toEqual(['poddisruptionbudget.policy/web', '2', 'N/A', '0']);
    const crb = rows(await ok('get', 'clusterrolebinding', 'ops', '-o', 'wide'));
    expect(crb[1].slice(0, 2)).toEqual(['ops', 'ClusterRole/node-reader']);
    // Defaults kube fills: a binding subject's apiGroup.
    expect(await ok('get', 'rolebinding', 'bot-reads', '-n', 'kinds', '-o', 'jsonpath={.subjects[?(@.kind=="User")].apiGroup}')).toBe('rbac.authorization.k8s.io');
  });

  it('StatefulSet and DaemonSet: rollout status completes; pods named as kube names them; get sts,ds,ep,endpointslices', async () => {
    fx.file('workloads.yaml', WORKLOADS);
    expect(await ok('apply', '-f', `${fx.dir}/workloads.yaml`)).toBe('statefulset.apps/web created\ndaemonset.apps/agent created\nservice/web created\n');
    const sts = await kubectl('rollout', 'status', 'statefulset/web', '-n', 'kinds', '--timeout=20s');
    expect(sts.code).toBe(0);
    expect(sts.stdout.trim().split('\n').at(-1)).toBe('partitioned roll out complete: 3 new pods have been updated...');
    const ds = await kubectl('rollout', 'status', 'daemonset/agent', '-n', 'kinds', '--timeout=20s');
    expect(ds.stdout.trim().split('\n').at(-1)).toBe('daemon set "agent" successfully rolled out');

    const pods = rows(await ok('get', 'pods', '-n', 'kinds', '-o', 'wide', '--no-headers'));
    const web = pods.filter((p) => p[0].startsWith('web-')).map((p) => p[0]);
    expect(web).toEqual(['web-0', 'web-1', 'web-2']);
    const agents = pods.filter((p) => p[0].startsWith('agent-'));
    expect(agents.map((p) => p[0])).toEqual(agents.map(() => expect.stringMatching(/^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/)));
    expect(new Set(agents.map((p) => p[6]))).toEqual(new Set(['node-001', 'node-002']));
    // The pod and its set from one kubectl run.
    const [web1, webSet] = JSON.parse(await ok('get', 'pod/web-1', 'sts/web', '-n', 'kinds', '-o', 'json')).items;
    const labels = web1.metadata.labels;
    expect(labels).toMatchObject({ app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-1', 'apps.kubernetes.io/pod-index': '1', 'controller-revision-hash': expect.stringMatching(/^web-/) });
    expect(webSet.status.currentRevision).toBe(labels['controller-revision-hash']);

    const table = rows(await ok('get', 'sts,ds', '-n', 'kinds'));
    expect(table[0]).toEqual(['NAME', 'READY', 'AGE']);
    expect(table[1].slice(0, 2)).toEqual(['statefulset.apps/web', '3/3']);
    expect(table[2]).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    expect(table[3].slice(0, 7)).toEqual(['daemonset.apps/agent', '2', '2', '2', '2', '2', '<none>']);

    // Endpoints and the EndpointSlice carry the ready pods' IPs on the named target port (8080).
    await until(() => stored('endpoints', 'web')?.subsets?.[0]?.addresses?.length === 3, 5000);
    const ips = (await ok('get', 'pods', '-n', 'kinds', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.podIP}')).split(' ').sort();
    const ep = rows(await ok('get', 'endpoints,endpointslices', '-n', 'kinds'));
    expect(ep[0]).toEqual(['NAME', 'ENDPOINTS', 'AGE']);
    expect(ep[1][1].split(',').sort()).toEqual(ips.map((ip) => `${ip}:8080`));
    expect(ep[2]).toEqual(['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    expect(ep[3][0]).toMatch(/^endpointslice\.discovery\.k8s\.io\/web-[a-z0-9]{5}$/);
    expect(ep[3].slice(1, 3)).toEqual(['IPv4', '8080']);
    expect(ep[3][3].split(',').sort()).toEqual(ips);
  });

  it('describe namespace shows the quota with what is used, and the limit range', async () => {
    await until(() => stored('resourcequotas', 'q')?.status?.used?.pods === '5', 5000);
    expect(await ok('describe', 'namespace', 'kinds')).toContain('No LimitRange resource.');
    fx.file('limits.yaml', 'apiVersion: v1\nkind: LimitRange\nmetadata: {name: lim, namespace: kinds}\nspec:\n  limits: [{type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 100m}}]\n');
    await ok('apply', '-f', `${fx.dir}/limits.yaml`);
    const out = await ok('describe', 'namespace', 'kinds');
    expect(out).toMatch(/Resource Quotas\n\s+Name:\s+q\n\s+Resource\s+Used\s+Hard\n\s+-+\s+-+\s+-+\n\s+configmaps\s+1\s+5\n\s+pods\s+5\s+10\n\s+requests\.cpu\s+400m\s+2\n/);
    expect(out).toMatch(/Resource Limits\n\s+Type\s+Resource\s+Min\s+Max\s+Default Request\s+Default Limit\s+Max Limit\/Request Ratio\n\s+-+.*\n\s+Container\s+cpu\s+-\s+-\s+100m\s+500m\s+-/);
    expect(rows(await ok('get', 'limits', '-n', 'kinds'))[0]).toEqual(['NAME', 'CREATED AT']);
  });

  it('drain --ignore-daemonsets evicts through pods/eviction, waiting on the disruption budget', async () => {
    const onNode = async (node: string): Promise<string[]> => rows((await kubectl('get', 'pods', '-n', 'kinds', '--field-selector', `spec.nodeName=${node}`, '-o', 'name')).stdout).map((r) => r[0]);
    await until(() => (fx.sim.api.get({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' }, 'kinds', 'web')?.status as any)?.disruptionsAllowed === 1, 5000);
    expect(await ok('get', 'pdb', 'web', '-n', 'kinds', '-o', 'jsonpath={.status.disruptionsAllowed}')).toBe('1');
    const before = (await onNode('node-001')).filter((p) => p.startsWith('pod/web-'));
    expect(before.length).toBeGreaterThan(0);
    const r = await kubectl('drain', 'node-001', '--ignore-daemonsets', '--timeout=30s');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('node/node-001 cordoned');
    for (const p of before) expect(r.stdout).toContain(`${p} evicted`);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('node/node-001 drained');
    expect(r.stderr).toMatch(/^Warning: ignoring DaemonSet-managed Pods: kinds\/agent-/);
    // Two of the three web pods sit on node-001 and the budget allows one disruption: the second eviction gets the
    // 429 and kubectl retries it once the first pod's replacement is ready.
    expect(before).toHaveLength(2);
    expect(r.stderr).toMatch(/error when evicting pods\/"web-\d" -n "kinds" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    // The StatefulSet brings its pods back on the other node; the daemon pod stays on the cordoned one.
    await until(() => storedWebPods().filter((p) => (p.spec as any).nodeName === 'node-002').length === 3, 15_000);
    expect((await onNode('node-002')).filter((p) => p.startsWith('pod/web-'))).toHaveLength(3);
    expect((await onNode('node-001')).map((p) => p.replace(/-[a-z0-9]{5}$/, ''))).toEqual(['pod/agent']);
  }, 40_000);

  it('eviction of a pod two budgets select is kube\'s 500', async () => {
    await ok('create', 'pdb', 'web-too', '--selector=app=web', '--max-unavailable=1', '-n', 'kinds');
    const r = await http(fx.sim.url, '/api/v1/namespaces/kinds/pods/web-1/eviction', { method: 'POST', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-1' } } });
    expect([r.status, r.json]).toEqual([500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 }]);
    await ok('delete', 'pdb', 'web-too', '-n', 'kinds');
  });

  it('apply --prune with the default allowlist prunes what the applied set dropped', async () => {
    fx.file('two.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {set: p}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, labels: {set: p}}\n');
    fx.file('one.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {set: p}}\n');
    await ok('apply', '-f', `${fx.dir}/two.yaml`);
    const r = await kubectl('apply', '--prune', '-l', 'set=p', '-f', `${fx.dir}/one.yaml`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('configmap/a unchanged\nconfigmap/b pruned\n');
  });

  it('refuses what kube refuses: a StatefulSet whose selector misses its template, a changed roleRef', async () => {
    fx.file('bad.yaml', 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: bad}\nspec:\n  serviceName: x\n  selector: {matchLabels: {app: one}}\n  template:\n    metadata: {labels: {app: two}}\n    spec: {containers: [{name: c, image: nginx}]}\n');
    const bad = await kubectl('apply', '-f', `${fx.dir}/bad.yaml`);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('The StatefulSet "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"two"}: `selector` does not match template `labels`');
    const patch = await kubectl('patch', 'rolebinding', 'bot-reads', '-n', 'kinds', '--type=merge', '-p', '{"roleRef":{"name":"other"}}');
    expect(patch.code).toBe(1);
    expect(patch.stderr).toContain('The RoleBinding "bot-reads" is invalid: roleRef: Invalid value: ');
    expect(patch.stderr).toContain(': cannot change roleRef');
  });

  it('pods/binding binds a pod another scheduler owns, and answers 409 once it is bound', async () => {
    const ns = '/api/v1/namespaces/default/pods';
    await http(fx.sim.url, ns, { method: 'POST', body: { metadata: { name: 'custom' }, spec: { schedulerName: 'my-scheduler', containers: [{ name: 'c', image: 'nginx' }] } } });
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'custom' }, target: { kind: 'Node', name: 'node-002' } };
    const first = await http(fx.sim.url, `${ns}/custom/binding`, { method: 'POST', body: binding });
    expect([first.status, first.json]).toEqual([201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }]);
    await until(() => (stored('pods', 'custom', 'default')?.status as any)?.phase === 'Running', 5000);
    expect(await ok('get', 'pod', 'custom', '-o', 'jsonpath={.status.phase} {.spec.nodeName}')).toBe('Running node-002');
    const again = await http(fx.sim.url, `${ns}/custom/binding`, { method: 'POST', body: binding });
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('Operation cannot be fulfilled on pods/binding "custom": pod custom is already assigned to node "node-002"');
  });

  it('scale statefulset goes through the scale subresource and removes the highest ordinals', async () => {
    expect(await ok('scale', 'statefulset', 'web', '-n', 'kinds', '--replicas=1')).toBe('statefulset.apps/web scaled\n');
    await until(() => storedWebPods().length === 1, 10_000);
    expect(await ok('get', 'pods', '-n', 'kinds', '-l', 'app=web', '-o', 'name')).toBe('pod/web-0\n');
  });
});
