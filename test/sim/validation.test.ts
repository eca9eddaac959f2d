// Client writes are validated like kube-apiserver 1.32 validates them: a Deployment whose selector misses its own
// template, a changed selector, a pod without containers, a write to an immutable ConfigMap — each gets kube's 422
// Status and nothing is stored (issue 11: such a Deployment once made the sim create ~14,000 pods).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, pod } from './sim-helpers.js';
import { writeValidator } from '../../src/sim/validation/index.js';
import type { SimStore } from '../../src/sim/store.js';

let sim: SimServer;
beforeAll(async () => { sim = await startSimServer(); });
afterAll(() => sim.close());

const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(sim.url, path, { method, body, headers });
const DEP = '/apis/apps/v1/namespaces/default/deployments';
const RS = '/apis/apps/v1/namespaces/default/replicasets';
const PODS = '/api/v1/namespaces/default/pods';
const CM = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

function deployment(name: string, selector: unknown, labels: Record<string, string> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas: 2, selector, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } }, ...extra },
  };
}

const MISMATCH = 'Deployment.apps "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`';

describe('Deployment and ReplicaSet validation', () => {
  it('refuses a create whose selector does not match the template labels with kube\'s 422, and stores nothing', async () => {
    const r = await req('POST', DEP, deployment('bad', { matchLabels: { app: 'web' } }, { app: 'other' }));
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422, message: MISMATCH,
      details: { name: 'bad', group: 'apps', kind: 'Deployment', causes: [{ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: 'Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`' }] },
    });
    expect((await req('GET', `${DEP}/bad`)).status).toBe(404);
    // dry runs are validated too
    expect((await req('POST', `${DEP}?dryRun=All`, deployment('bad', { matchLabels: { app: 'web' } }, { app: 'other' }))).status).toBe(422);
  });

  it('requires a selector, refuses an empty one, negative replicas and a template without containers', async () => {
    const missing = await req('POST', DEP, deployment('nosel', undefined, { app: 'x' }));
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe('Deployment.apps "nosel" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`]');
    const empty = await req('POST', DEP, deployment('empty', {}, { app: 'x' }));
    expect(empty.json.message).toBe('Deployment.apps "empty" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment');
    const negative = await req('POST', DEP, deployment('neg', { matchLabels: { app: 'x' } }, { app: 'x' }, { replicas: -1 }));
    expect(negative.json.message).toBe('Deployment.apps "neg" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const noContainers = deployment('empty-pod', { matchLabels: { app: 'x' } }, { app: 'x' });
    (noContainers.spec as { template: { spec: unknown } }).template.spec = { containers: [] };
    const r = await req('POST', DEP, noContainers);
    expect(r.json.message).toBe('Deployment.apps "empty-pod" is invalid: spec.template.spec.containers: Required value');
    expect(r.json.details.causes).toEqual([{ reason: 'FieldValueRequired', field: 'spec.template.spec.containers', message: 'Required value' }]);
  });

  it('refuses a negative minReadySeconds on a Deployment and a ReplicaSet, create and patch, and stores nothing', async () => {
    const dep = await req('POST', DEP, deployment('slow', { matchLabels: { app: 'slow' } }, { app: 'slow' }, { minReadySeconds: -5 }));
    expect(dep.status).toBe(422);
    expect(dep.json.message).toBe('Deployment.apps "slow" is invalid: spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0');
    expect((await req('GET', `${DEP}/slow`)).status).toBe(404);
    const rs = { ...deployment('slow-rs', { matchLabels: { app: 'slow' } }, { app: 'slow' }, { minReadySeconds: -1 }), kind: 'ReplicaSet' };
    expect((await req('POST', RS, rs)).json.message).toBe('ReplicaSet.apps "slow-rs" is invalid: spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0');
    expect((await req('POST', DEP, deployment('ready', { matchLabels: { app: 'ready' } }, { app: 'ready' }, { minReadySeconds: 0 }))).status).toBe(201);
    const patched = await req('PATCH', `${DEP}/ready`, { spec: { minReadySeconds: -1 } }, MERGE);
    expect(patched.status).toBe(422);
    expect(patched.json.message).toBe('Deployment.apps "ready" is invalid: spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0');
    expect((await req('GET', `${DEP}/ready`)).json.spec.minReadySeconds).toBe(0);
  });

  it('refuses a changed selector (PUT, merge patch, apply) with field is immutable, and a selector change that misses the template', async () => {
    expect((await req('POST', DEP, deployment('web', { matchLabels: { app: 'web' } }, { app: 'web', tier: 'fe' }))).status).toBe(201);
    const cur = (await req('GET', `${DEP}/web`)).json;
    const put = await req('PUT', `${DEP}/web`, { ...cur, spec: { ...cur.spec, selector: { matchLabels: { app: 'web', tier: 'fe' } } } });
    expect(put.status).toBe(422);
    expect(put.json.message).toBe('Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"fe"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
    const patch = await req('PATCH', `${DEP}/web`, { spec: { selector: { matchLabels: { app: 'other' } } } }, MERGE);
    expect(patch.json.message).toBe('Deployment.apps "web" is invalid: [spec.template.metadata.labels: Invalid value: map[string]string{"app":"web", "tier":"fe"}: `selector` does not match template `labels`, spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable]');
    const labels = await req('PATCH', `${DEP}/web`, { spec: { template: { metadata: { labels: { app: 'moved' } } } } }, MERGE);
    expect(labels.status).toBe(422);
    const apply = await req('PATCH', `${DEP}/web?fieldManager=t&force=true`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'x' } } } }, { 'Content-Type': 'application/apply-patch+yaml' });
    expect(apply.status).toBe(422);
    expect(apply.json.details.causes.map((c: { field: string }) => c.field)).toContain('spec.selector');
    const strategic = await req('PATCH', `${DEP}/web`, { spec: { replicas: -3 } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    expect(strategic.json.message).toBe('Deployment.apps "web" is invalid: spec.replicas: Invalid value: -3: must be greater than or equal to 0');
    const recreate = await req('PATCH', `${DEP}/web`, { spec: { strategy: { type: 'Recreate' } } }, MERGE);
    expect(recreate.json.message).toBe("Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
    const stuck = await req('PATCH', `${DEP}/web`, { spec: { strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } } }, MERGE);
    expect(stuck.json.message).toBe('Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0');
    // a valid change still goes through
    const ok = await req('PATCH', `${DEP}/web`, { spec: { replicas: 5 } }, MERGE);
    expect(ok.status).toBe(200);
    expect(ok.json.spec.selector).toEqual({ matchLabels: { app: 'web' } });
  });

  it('applies the same rules to ReplicaSets (kube\'s message says "deployment" there too)', async () => {
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs1' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a'] }] }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    const r = await req('POST', RS, rs);
    expect(r.json.message).toBe('ReplicaSet.apps "rs1" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`');
    const e = await req('POST', RS, { ...rs, spec: { ...rs.spec, selector: {} } });
    expect(e.json.message).toContain('spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment');
  });

  it('keeps the scale subresource\'s 422 for negative replicas and lets a valid scale through (the deployment it writes is validated)', async () => {
    const r = await req('PATCH', `${DEP}/web/scale`, { spec: { replicas: -1 } }, MERGE);
    expect(r.status).toBe(422);
    const ok = await req('PATCH', `${DEP}/web/scale`, { spec: { replicas: 1 } }, MERGE);
    expect(ok.status).toBe(200);
  });
});

describe('Pod validation', () => {
  it('refuses a pod without containers, and container names that are not DNS-1123 labels or repeat', async () => {
    const none = await req('POST', PODS, { metadata: { name: 'p0' }, spec: { containers: [] } });
    expect(none.status).toBe(422);
    expect(none.json.message).toBe('Pod "p0" is invalid: spec.containers: Required value');
    expect(none.json.details).toEqual({ name: 'p0', kind: 'Pod', causes: [{ reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' }] });
    const bad = await req('POST', PODS, { metadata: { name: 'p1' }, spec: { containers: [{ name: 'Web_1', image: 'x' }, { name: 'a', image: 'x' }, { name: 'a', image: 'y' }] } });
    const noImage = await req('POST', PODS, { metadata: { name: 'p3' }, spec: { containers: [{ name: 'c' }] } });
    expect(noImage.json.message).toBe('Pod "p3" is invalid: spec.containers[0].image: Required value');
    const templateNoImage = await req('POST', DEP, deployment('noimage', { matchLabels: { app: 'x' } }, { app: 'x' }, { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: '' }] } } }));
    expect(templateNoImage.json.message).toBe('Deployment.apps "noimage" is invalid: spec.template.spec.containers[0].image: Required value');
    expect(bad.json.message).toBe(`Pod "p1" is invalid: [spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.containers[2].name: Duplicate value: "a"]`);
  });

  it('lets an update change images, activeDeadlineSeconds and add tolerations, and refuses any other spec change', async () => {
    const created = await req('POST', PODS, pod('p2'));
    expect(created.status).toBe(201);
    // tolerations replace as a whole: an addition keeps the ones admission gave the pod (DefaultTolerationSeconds).
    const tolerations = [...created.json.spec.tolerations, { key: 'k', operator: 'Exists' }];
    const image = await req('PATCH', `${PODS}/p2`, { spec: { containers: [{ name: 'c', image: 'nginx:2' }], activeDeadlineSeconds: 60, tolerations } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    expect(image.status).toBe(200);
    expect(image.json.spec.containers[0].image).toBe('nginx:2');
    const labels = await req('PATCH', `${PODS}/p2`, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(labels.status).toBe(200);
    const node = await req('PATCH', `${PODS}/p2`, { spec: { nodeName: 'elsewhere' } }, MERGE);
    expect(node.status).toBe(422);
    expect(node.json.message).toMatch(/^Pod "p2" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` \(only additions to existing tolerations\),`spec.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/);
    expect(node.json.message).toContain('\n  core.PodSpec{\n- \tNodeName: null,\n+ \tNodeName: "elsewhere",\n  }');
    const removed = await req('PATCH', `${PODS}/p2`, [{ op: 'remove', path: '/spec/tolerations/0' }], { 'Content-Type': 'application/json-patch+json' });
    expect(removed.json.message).toBe('Pod "p2" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
    const later = await req('PATCH', `${PODS}/p2`, { spec: { activeDeadlineSeconds: 120 } }, MERGE);
    expect(later.json.message).toBe('Pod "p2" is invalid: spec.activeDeadlineSeconds: Invalid value: 120: must be less than or equal to previous value');
    const added = await req('PATCH', `${PODS}/p2`, { spec: { containers: [{ name: 'c', image: 'nginx:2' }, { name: 'd', image: 'x' }] } }, MERGE);
    expect(added.json.message).toBe('Pod "p2" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers');
  });

  it('accepts a PUT of the manifest as sent (the defaults kube would add are not a change), and status writes', async () => {
    const cur = (await req('GET', `${PODS}/p2`)).json;
    const { restartPolicy: _r, dnsPolicy: _d, schedulerName: _s, terminationGracePeriodSeconds: _t, securityContext: _c, ...bare } = cur.spec;
    const put = await req('PUT', `${PODS}/p2`, { ...cur, spec: bare });
    expect(put.status).toBe(200);
    const status = await req('PATCH', `${PODS}/p2/status`, { status: { phase: 'Running' } }, MERGE);
    expect(status.status).toBe(200);
  });
});

describe('ConfigMap and Secret validation', () => {
  it('freezes data, binaryData and immutable itself once immutable is true', async () => {
    expect((await req('POST', CM, { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true })).status).toBe(201);
    const data = await req('PATCH', `${CM}/frozen`, { data: { a: '2' } }, MERGE);
    expect(data.status).toBe(422);
    expect(data.json.message).toBe('ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    const unfreeze = await req('PATCH', `${CM}/frozen`, { immutable: false }, MERGE);
    expect(unfreeze.json.message).toBe('ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
    const labels = await req('PATCH', `${CM}/frozen`, { metadata: { labels: { ok: 'yes' } } }, MERGE);
    expect(labels.status).toBe(200);
    expect((await req('POST', SECRETS, { metadata: { name: 'frozen' }, stringData: { p: 'q' }, immutable: true })).status).toBe(201);
    const secret = await req('PATCH', `${SECRETS}/frozen`, { stringData: { p: 'changed' } }, MERGE);
    expect(secret.json.message).toBe('Secret "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
  });

  it('refuses data keys that are not valid config keys', async () => {
    const r = await req('POST', CM, { metadata: { name: 'keys' }, data: { 'a/b': '1', ok: '2' } });
    expect(r.json.message).toBe(`ConfigMap "keys" is invalid: data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`);
    const s = await req('POST', SECRETS, { metadata: { name: 'keys' }, data: { '..x': 'eA==' } });
    expect(s.json.message).toBe(`Secret "keys" is invalid: data[..x]: Invalid value: "..x": must not start with '..'`);
  });
});

describe('labels and annotations', () => {
  it('refuses label keys and values and annotation keys kube refuses, on any kind and in pod templates', async () => {
    const cm = await req('POST', CM, { metadata: { name: 'lab', labels: { 'bad key': 'v', ok: 'bad value!' }, annotations: { 'Example.COM/Fine': 'x', '/x': 'y' } } });
    expect(cm.json.message).toBe(`ConfigMap "lab" is invalid: [metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), metadata.annotations: Invalid value: "/x": prefix part must be non-empty]`);
    // Go's %q, not JSON: a bell is \a.
    const bell = await req('POST', CM, { metadata: { name: 'bell', labels: { k: 'a\u0007b' } } });
    expect(bell.json.message).toMatch(/^ConfigMap "bell" is invalid: metadata\.labels: Invalid value: "a\\ab": /);
    const big = await req('POST', CM, { metadata: { name: 'big', annotations: { a: 'x'.repeat(256 * 1024) } } });
    expect(big.json.message).toBe('ConfigMap "big" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    const template = deployment('tl', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, { app: 'x', 'a/b/c': 'd' });
    const r = await req('POST', DEP, template);
    expect(r.json.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.template.labels']);
    const label = await req('PATCH', `${PODS}/p2`, { metadata: { labels: { x: '-' } } }, MERGE);
    expect(label.status).toBe(422);
  });
});

describe('names', () => {
  it('checks services as DNS-1035 labels, pods and deployments as DNS-1123 subdomains', async () => {
    const svc = await req('POST', '/api/v1/namespaces/default/services', { metadata: { name: '1web' }, spec: { ports: [{ port: 80 }] } });
    expect(svc.json.message).toBe(`Service "1web" is invalid: metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`);
    expect((await req('POST', PODS, pod('1web.a'))).status).toBe(201);
    const dep = await req('POST', DEP, deployment('Web', { matchLabels: { app: 'x' } }, { app: 'x' }));
    expect(dep.json.message).toMatch(/^Deployment\.apps "Web" is invalid: metadata\.name: Invalid value: "Web": a lowercase RFC 1123 subdomain/);
  });
});

describe('the sim\'s own objects', () => {
  it('every object the workload generator and the controllers write would pass validation as a client update', async () => {
    const busy = await startSimServer({ nodes: 3, pods: 60, seed: 7, controllers: true });
    try {
      // The server's api is its store (the same object the write handlers use).
      const store = busy.api as SimStore;
      let checked = 0;
      for (const type of store.registry.all()) {
        for (const o of store.storedIn(type)) {
          const obj = o.obj;
          expect(() => writeValidator(type)(obj, obj), `${type.resource} ${o.key}`).not.toThrow();
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(100);
    } finally {
      busy.close();
    }
  });
});

describe('Job validation', () => {
  const JOBS = '/apis/batch/v1/namespaces/default/jobs';
  const job = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }, ...spec } });

  it('refuses a manual selector that misses the template, negative counts, and a template without containers', async () => {
    const manual = await req('POST', JOBS, job('manual', { manualSelector: true, selector: { matchLabels: { run: 'x' } } }));
    expect(manual.status).toBe(422);
    expect(manual.json.message).toBe('Job.batch "manual" is invalid: spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`');
    const negative = await req('POST', JOBS, job('neg', { parallelism: -2 }));
    expect(negative.json.message).toBe('Job.batch "neg" is invalid: spec.parallelism: Invalid value: -2: must be greater than or equal to 0');
    const empty = await req('POST', JOBS, { ...job('empty', {}), spec: { template: { spec: { restartPolicy: 'Never', containers: [] } } } });
    expect(empty.json.message).toBe('Job.batch "empty" is invalid: spec.template.spec.containers: Required value');
  });

  it('keeps the generated selector: a change is field is immutable, a label on the Job is fine', async () => {
    const created = await req('POST', JOBS, job('j1', {}));
    expect(created.status).toBe(201);
    const uid = created.json.metadata.uid;
    const changed = await req('PATCH', `${JOBS}/j1`, { spec: { selector: { matchLabels: { other: 'x' } } } }, MERGE);
    expect(changed.status).toBe(422);
    expect(changed.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`)).toContain(
      `spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"${uid}", "other":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`);
    expect((await req('PATCH', `${JOBS}/j1`, { metadata: { labels: { team: 'a' } } }, MERGE)).status).toBe(200);
  });
});
