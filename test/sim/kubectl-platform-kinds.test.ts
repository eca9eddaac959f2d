// Conformance: real kubectl (v1.32) against the platform kinds of issue 30 — HPAs (kubectl autoscale, autoscaling/v2
// and v1 of one object), NetworkPolicies, PriorityClasses, admission registration, CSRs (kubectl certificate
// approve|deny), API priority and fairness, RuntimeClasses and APIServices: created or applied, printed with kube's
// columns, explained from the OpenAPI, refused where kube refuses, deleted; and api-resources as on a 1.32 server.
import { describe, expect, it } from 'vitest';
import { CSR_PEM, http, kubectlSim, until } from './sim-helpers.js';

// A 1.32 server (the default is the newest release, which serves more kinds: kube-versions.test.ts).
const fx = kubectlSim({ kubeVersion: '1.32', nodes: 0, pods: 0, churn: 0, controllers: { graceScale: 0.03, podStartMs: 100 } }, 'kwatch-platform-');
const kubectl = fx.kubectl;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s{2,}/));
const ok = async (...args: string[]): Promise<string> => {
  const r = await kubectl(...args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};
/** kubectl's answer to something kube refuses: non-zero exit, and its one-line (or bulleted) error on stderr. */
const refused = async (...args: string[]): Promise<string> => {
  const r = await kubectl(...args);
  expect(r.code).not.toBe(0);
  return r.stderr;
};
const apply = (name: string, yaml: string) => kubectl('apply', '-f', fx.file(name, yaml));

const csr = (name: string) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec:
  request: ${Buffer.from(CSR_PEM).toString('base64')}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`;

describe('kubectl and the sim\'s platform kinds', () => {
  it('kubectl autoscale creates an HPA (autoscaling/v1 protobuf) that get hpa prints with kube\'s columns; v2 and v1 are one object', async () => {
    expect(await ok('create', 'deployment', 'web', '--image=nginx')).toBe('deployment.apps/web created\n');
    expect(await ok('autoscale', 'deployment/web', '--min=2', '--max=5', '--cpu-percent=80')).toBe('horizontalpodautoscaler.autoscaling/web autoscaled\n');
    const got = rows(await ok('get', 'hpa'));
    expect(got[0]).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    expect(got[1].slice(0, 6)).toEqual(['web', 'Deployment/web', 'cpu: <unknown>/80%', '2', '5', '0']);

    const v2 = JSON.parse(await ok('get', 'hpa', 'web', '-o', 'json'));
    expect(v2.apiVersion).toBe('autoscaling/v2');
    expect(v2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    const v1 = JSON.parse(await ok('get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web'));
    expect(v1).toMatchObject({ apiVersion: 'autoscaling/v1', spec: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 }, status: { currentReplicas: 0, desiredReplicas: 0 } });
    expect(v1.metadata.resourceVersion).toBe(v2.metadata.resourceVersion);

    // A v2-only metric and behavior: defaulted, shown to v1 readers in kube's annotations, kept by a v1 read-modify-write.
    expect((await apply('hpa.yaml', `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: mem}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 4
  metrics: [{type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}}]
  behavior: {scaleDown: {stabilizationWindowSeconds: 60}}
`)).stdout).toBe('horizontalpodautoscaler.autoscaling/mem created\n');
    const mem = JSON.parse(await ok('get', 'hpa', 'mem', '-o', 'json'));
    expect(mem.spec.minReplicas).toBe(1);
    expect(mem.spec.behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    const memV1 = await http(fx.sim.url, '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/mem');
    expect(memV1.json.spec.targetCPUUtilizationPercentage).toBeUndefined();
    expect(JSON.parse(memV1.json.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual(mem.spec.metrics);
    const put = await http(fx.sim.url, '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/mem', { method: 'PUT', body: { ...memV1.json, spec: { ...memV1.json.spec, maxReplicas: 6 } } });
    expect(put.status).toBe(200);
    const after = JSON.parse(await ok('get', 'hpa', 'mem', '-o', 'json'));
    expect(after.spec.maxReplicas).toBe(6);
    expect(after.spec.metrics).toEqual(mem.spec.metrics);
    expect(Object.keys(after.metadata.annotations)).toEqual(['kubectl.kubernetes.io/last-applied-configuration']);
    expect(rows(await ok('get', 'hpa', 'mem'))[1].slice(0, 3)).toEqual(['mem', 'Deployment/web', 'memory: <unknown>/500Mi']);

    expect(await ok('explain', 'hpa.spec.behavior')).toContain('HorizontalPodAutoscalerBehavior');
    expect(await refused('patch', 'hpa', 'web', '--type=merge', '-p', '{"spec":{"minReplicas":6}}'))
      .toBe('The HorizontalPodAutoscaler "web" is invalid: spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`\n');
    expect(await ok('delete', 'hpa', 'web', 'mem')).toBe('horizontalpodautoscaler.autoscaling "web" deleted\nhorizontalpodautoscaler.autoscaling "mem" deleted\n');
  });

  it('kubectl apply of a NetworkPolicy with ingress and egress rules: defaults, columns, explain, port and peer validation', async () => {
    expect((await apply('netpol.yaml', `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db}
spec:
  podSelector: {matchLabels: {app: db}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: api}}}, {ipBlock: {cidr: 10.0.0.0/16, except: [10.0.1.0/24]}}]
    ports: [{port: 5432}]
  egress:
  - to: [{namespaceSelector: {}}]
    ports: [{protocol: UDP, port: 53}]
`)).stdout).toBe('networkpolicy.networking.k8s.io/db created\n');
    const got = rows(await ok('get', 'netpol'));
    expect(got[0]).toEqual(['NAME', 'POD-SELECTOR', 'AGE']);
    expect(got[1].slice(0, 2)).toEqual(['db', 'app=db']);
    const np = JSON.parse(await ok('get', 'netpol', 'db', '-o', 'json'));
    expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(np.spec.ingress[0].ports).toEqual([{ protocol: 'TCP', port: 5432 }]);
    expect(np.metadata.generation).toBe(1);
    expect(await ok('explain', 'networkpolicy.spec.ingress.from.ipBlock')).toContain('cidr');

    const bad = await refused('apply', '-f', fx.file('bad-netpol.yaml', `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: bad}
spec:
  podSelector: {}
  ingress:
  - ports: [{protocol: ICMP, port: 70000}, {port: http, endPort: 90}]
    from: [{ipBlock: {cidr: 10.0.0.0/16}, podSelector: {}}, {ipBlock: {cidr: 10.0.0.0/16, except: [192.168.0.0/24]}}, {}]
`));
    expect(bad).toContain('The NetworkPolicy "bad" is invalid: \n');
    expect(bad).toContain('* spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"\n');
    expect(bad).toContain('* spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n');
    expect(bad).toContain('* spec.ingress[0].ports[1].endPort: Forbidden: may not be specified when port is non-numeric\n');
    expect(bad).toContain('* spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer\n');
    expect(bad).toContain('* spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/24": must be a strict subset of `cidr`\n');
    expect(bad).toContain('* spec.ingress[0].from[2]: Required value: must specify a peer');
    expect(await ok('delete', 'netpol', 'db')).toBe('networkpolicy.networking.k8s.io "db" deleted\n');
  });

  it('PriorityClasses: kube\'s two system classes, at most one global default, reserved names and values', async () => {
    const got = rows(await ok('get', 'pc'));
    expect(got[0]).toEqual(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    expect(got.slice(1).map((r) => [r[0], r[1], r[2], r[4]])).toEqual([
      ['system-cluster-critical', '2000000000', 'false', 'PreemptLowerPriority'],
      ['system-node-critical', '2000001000', 'false', 'PreemptLowerPriority'],
    ]);
    expect(await ok('create', 'priorityclass', 'high', '--value=1000', '--global-default', '--description=first')).toBe('priorityclass.scheduling.k8s.io/high created\n');
    expect(await refused('create', 'priorityclass', 'higher', '--value=2000', '--global-default'))
      .toBe('error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "higher" is forbidden: PriorityClass high is already marked as default. Only one default can exist\n');
    expect(await refused('create', 'priorityclass', 'huge', '--value=2000000000'))
      .toBe('error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000\n');
    expect(await refused('create', 'priorityclass', 'system-mine', '--value=10'))
      .toContain("metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only.");
    expect(await refused('patch', 'pc', 'high', '-p', '{"value":5}')).toContain('value: Forbidden: may not be changed in an update.');
    expect(await ok('explain', 'priorityclass.preemptionPolicy')).toContain('PreemptLowerPriority');
    expect(await ok('delete', 'pc', 'high')).toBe('priorityclass.scheduling.k8s.io "high" deleted\n');
  });

  it('admissionregistration: webhook configurations and ValidatingAdmissionPolicies are stored with kube\'s defaults and columns', async () => {
    expect((await apply('admission.yaml', `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: vw}
webhooks:
- name: check.example.com
  clientConfig: {service: {namespace: default, name: hook}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mw}
webhooks:
- {name: a.example.com, clientConfig: {url: "https://hook.example.com/a"}, sideEffects: None, admissionReviewVersions: [v1]}
- {name: b.example.com, clientConfig: {url: "https://hook.example.com/b"}, sideEffects: NoneOnDryRun, admissionReviewVersions: [v1]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny], paramRef: {name: limits, namespace: default}}
`)).stdout).toBe([
      'validatingwebhookconfiguration.admissionregistration.k8s.io/vw created',
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/mw created',
      'validatingadmissionpolicy.admissionregistration.k8s.io/replicas created',
      'validatingadmissionpolicybinding.admissionregistration.k8s.io/replicas created', '',
    ].join('\n'));
    const got = rows(await ok('get', 'validatingwebhookconfigurations,mutatingwebhookconfigurations,validatingadmissionpolicies,validatingadmissionpolicybindings'));
    expect(got[0]).toEqual(['NAME', 'WEBHOOKS', 'AGE']);
    expect(got[1].slice(0, 2)).toEqual(['validatingwebhookconfiguration.admissionregistration.k8s.io/vw', '1']);
    expect(got[3].slice(0, 2)).toEqual(['mutatingwebhookconfiguration.admissionregistration.k8s.io/mw', '2']);
    expect(got[4]).toEqual(['NAME', 'VALIDATIONS', 'PARAMKIND', 'AGE']);
    expect(got[5].slice(0, 3)).toEqual(['validatingadmissionpolicy.admissionregistration.k8s.io/replicas', '1', 'v1/ConfigMap']);
    expect(got[6]).toEqual(['NAME', 'POLICYNAME', 'PARAMREF', 'AGE']);
    expect(got[7].slice(0, 3)).toEqual(['validatingadmissionpolicybinding.admissionregistration.k8s.io/replicas', 'replicas', 'default/limits']);
    // The three objects' defaults from one kubectl run (a List, in the order asked).
    const [vw, mw, vap] = JSON.parse(await ok('get', 'validatingwebhookconfiguration/vw', 'mutatingwebhookconfiguration/mw', 'validatingadmissionpolicy/replicas', '-o', 'json')).items;
    expect([vw.kind, mw.kind, vap.kind]).toEqual(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy']);
    expect(vw.webhooks[0]).toEqual({
      name: 'check.example.com', clientConfig: { service: { namespace: 'default', name: 'hook', port: 443 } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, sideEffects: 'None', timeoutSeconds: 10, admissionReviewVersions: ['v1'],
    });
    expect(mw.webhooks[0].reinvocationPolicy).toBe('Never');
    expect(vap.spec.failurePolicy).toBe('Fail');
    const bad = await refused('apply', '-f', fx.file('bad-hook.yaml', `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bad}
webhooks: [{name: check.example.com, clientConfig: {url: "http://hook.example.com"}}]
`));
    expect(bad).toContain('* webhooks[0].clientConfig.url: Invalid value: "http://hook.example.com": \'https\' is the only allowed URL scheme\n');
    expect(bad).toContain('* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun\n');
    expect(bad).toContain('* webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1');
    expect(await ok('explain', 'validatingadmissionpolicy.spec.validations.expression')).toContain('CEL');
    expect(await ok('delete', 'validatingwebhookconfiguration,mutatingwebhookconfiguration,validatingadmissionpolicy,validatingadmissionpolicybinding', '--all')).toContain('deleted');
  });

  it('CertificateSigningRequests: kubectl certificate approve and deny through the approval subresource; the decisions exclude each other', async () => {
    expect((await apply('csr.yaml', csr('jane') + '---\n' + csr('joe'))).stdout).toBe('certificatesigningrequest.certificates.k8s.io/jane created\ncertificatesigningrequest.certificates.k8s.io/joe created\n');
    const got = rows(await ok('get', 'csr'));
    expect(got[0]).toEqual(['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    expect([got[1][0], ...got[1].slice(2)]).toEqual(['jane', 'kubernetes.io/kube-apiserver-client', 'admin', '24h', 'Pending']);
    expect(await ok('certificate', 'approve', 'jane')).toBe('certificatesigningrequest.certificates.k8s.io/jane approved\n');
    expect(await ok('certificate', 'deny', 'joe')).toBe('certificatesigningrequest.certificates.k8s.io/joe denied\n');
    const conditions = rows(await ok('get', 'csr', '-o', 'custom-columns=NAME:.metadata.name,CONDITION:.status.conditions[*].type,REASON:.status.conditions[*].reason'));
    expect(conditions.slice(1)).toEqual([['jane', 'Approved', 'KubectlApprove'], ['joe', 'Denied', 'KubectlDeny']]);
    // The sim signs nothing: an approved request stays without a certificate.
    const jane = JSON.parse(await ok('get', 'csr', 'jane', '-o', 'json'));
    expect(jane.status.certificate).toBeUndefined();

    const both = { ...jane, status: { conditions: [...jane.status.conditions, { type: 'Denied', status: 'True', reason: 'Changed' }] } };
    const r = await http(fx.sim.url, '/apis/certificates.k8s.io/v1/certificatesigningrequests/jane/approval', { method: 'PUT', body: both });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('Approved and Denied conditions are mutually exclusive');
    // The approval subresource changes conditions only; the spec stays as created.
    const spec = await http(fx.sim.url, '/apis/certificates.k8s.io/v1/certificatesigningrequests/jane/approval', { method: 'PUT', body: { ...jane, spec: { ...jane.spec, signerName: 'example.com/other' } } });
    expect(spec.status).toBe(200);
    expect(spec.json.spec.signerName).toBe('kubernetes.io/kube-apiserver-client');

    expect(await refused('apply', '-f', fx.file('bad-csr.yaml', 'apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: bad}\nspec: {request: aGVsbG8=, usages: [client auth]}\n')))
      .toContain('* spec.request: Invalid value: "[]byte{...}": PEM block type must be CERTIFICATE REQUEST\n* spec.signerName: Required value');
    expect(await ok('delete', 'csr', 'jane', 'joe')).toContain('"joe" deleted');
  });

  it('API priority and fairness: the mandatory exempt and catch-all objects, stored FlowSchemas and PriorityLevelConfigurations with defaults', async () => {
    expect((await apply('apf.yaml', `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: batch}
spec: {type: Limited, limited: {limitResponse: {type: Queue}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: batch}
spec:
  priorityLevelConfiguration: {name: batch}
  distinguisherMethod: {type: ByNamespace}
  rules: [{subjects: [{kind: ServiceAccount, serviceAccount: {namespace: default, name: default}}], resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]}]
`)).stdout).toBe('prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/batch created\nflowschema.flowcontrol.apiserver.k8s.io/batch created\n');
    // Both tables from one run: kubectl names each row with its kind.
    const both = rows(await ok('get', 'prioritylevelconfigurations,flowschemas'));
    const levels = both.slice(0, 4);
    expect(levels[0]).toEqual(['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    const level = 'prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/';
    expect(levels.slice(1).map((r) => r.slice(0, 6))).toEqual([
      [`${level}batch`, 'Limited', '30', '64', '8', '50'], [`${level}catch-all`, 'Limited', '5', '<none>', '<none>', '<none>'], [`${level}exempt`, 'Exempt', '<none>', '<none>', '<none>', '<none>'],
    ]);
    const schemas = both.slice(4);
    expect(schemas[0]).toEqual(['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    const schema = 'flowschema.flowcontrol.apiserver.k8s.io/';
    expect(schemas.slice(1).map((r) => r.slice(0, 4))).toEqual([[`${schema}batch`, 'batch', '1000', 'ByNamespace'], [`${schema}catch-all`, 'catch-all', '10000', 'ByUser'], [`${schema}exempt`, 'exempt', '1', '*']]);
    expect(await refused('patch', 'flowschema', 'batch', '--type=merge', '-p', '{"spec":{"matchingPrecedence":20000}}'))
      .toBe('The FlowSchema "batch" is invalid: spec.matchingPrecedence: Invalid value: 20000: must be between 1 and 10000 inclusively\n');
    expect(await ok('delete', 'flowschema,prioritylevelconfiguration', 'batch')).toContain('deleted');
  });

  it('RuntimeClass: apply, columns, an immutable handler, delete', async () => {
    expect((await apply('rc.yaml', 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\n')).stdout).toBe('runtimeclass.node.k8s.io/gvisor created\n');
    const got = rows(await ok('get', 'runtimeclass'));
    expect(got[0]).toEqual(['NAME', 'HANDLER', 'AGE']);
    expect(got[1].slice(0, 2)).toEqual(['gvisor', 'runsc']);
    expect(await refused('apply', '-f', fx.file('rc2.yaml', 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: kata\n')))
      .toContain('The RuntimeClass "gvisor" is invalid: handler: Invalid value: "kata": field is immutable');
    expect(await refused('apply', '-f', fx.file('rc3.yaml', 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: bad}\nhandler: Run_SC\n')))
      .toContain('handler: Invalid value: "Run_SC": a lowercase RFC 1123 label must consist of');
    expect(await ok('explain', 'runtimeclass.handler')).toContain('handler');
    expect(await ok('delete', 'runtimeclass', 'gvisor')).toBe('runtimeclass.node.k8s.io "gvisor" deleted\n');
  });

  it('APIServices: one Local, Available APIService per served group version, following CRDs', async () => {
    const got = rows(await ok('get', 'apiservices'));
    expect(got[0]).toEqual(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const names = got.slice(1).map((r) => r[0]);
    expect(names).toEqual(expect.arrayContaining(['v1.', 'v1.apps', 'v2.autoscaling', 'v1.autoscaling', 'v1.apiregistration.k8s.io', 'v1.certificates.k8s.io', 'v1.flowcontrol.apiserver.k8s.io']));
    for (const r of got.slice(1)) expect(r.slice(1, 3)).toEqual(['Local', 'True']);
    // Every group version discovery serves has its APIService, and no other.
    const served = (await ok('api-versions')).trim().split('\n').map((gv) => (gv.includes('/') ? `${gv.split('/')[1]}.${gv.split('/')[0]}` : `${gv}.`));
    expect([...names].sort()).toEqual([...served].sort());
    const apps = JSON.parse(await ok('get', 'apiservice', 'v1.apps', '-o', 'json'));
    expect(apps.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });

    expect((await apply('crd.yaml', `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`)).code).toBe(0);
    // The waits ask the sim over HTTP (no kubectl per poll); kubectl judges once they hold.
    const apiService = '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com';
    await until(async () => (await http(fx.sim.url, apiService)).status === 200, 5000);
    expect(rows(await ok('get', 'apiservice', 'v1.example.com'))[1].slice(0, 3)).toEqual(['v1.example.com', 'Local', 'True']);
    await ok('delete', 'crd', 'widgets.example.com');
    await until(async () => (await http(fx.sim.url, apiService)).status === 404, 5000);
    expect((await kubectl('get', 'apiservice', 'v1.example.com')).stderr.trim()).toBe('Error from server (NotFound): apiservices.apiregistration.k8s.io "v1.example.com" not found');
  });

  it('kubectl api-resources lists these groups as a 1.32 server does', async () => {
    const out = rows(await ok('api-resources', '-o', 'wide', '--sort-by=name'));
    const platform = new Set(['admissionregistration.k8s.io/v1', 'apiregistration.k8s.io/v1', 'autoscaling/v2', 'certificates.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1', 'networking.k8s.io/v1', 'node.k8s.io/v1', 'scheduling.k8s.io/v1']);
    const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'].join(',');
    // NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES, with the empty cells kubectl leaves.
    const ours = out.slice(1).filter((r) => r.some((c) => platform.has(c)) && r[0] !== 'ingresses' && r[0] !== 'ingressclasses');
    expect(ours.map((r) => r.join(' | '))).toEqual([
      ['apiservices', 'apiregistration.k8s.io/v1', 'false', 'APIService', all, 'api-extensions'],
      ['certificatesigningrequests', 'csr', 'certificates.k8s.io/v1', 'false', 'CertificateSigningRequest', all],
      ['flowschemas', 'flowcontrol.apiserver.k8s.io/v1', 'false', 'FlowSchema', all],
      ['horizontalpodautoscalers', 'hpa', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler', all, 'all'],
      ['mutatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'false', 'MutatingWebhookConfiguration', all, 'api-extensions'],
      ['networkpolicies', 'netpol', 'networking.k8s.io/v1', 'true', 'NetworkPolicy', all],
      ['priorityclasses', 'pc', 'scheduling.k8s.io/v1', 'false', 'PriorityClass', all],
      ['prioritylevelconfigurations', 'flowcontrol.apiserver.k8s.io/v1', 'false', 'PriorityLevelConfiguration', all],
      ['runtimeclasses', 'node.k8s.io/v1', 'false', 'RuntimeClass', all],
      ['validatingadmissionpolicies', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingAdmissionPolicy', all, 'api-extensions'],
      ['validatingadmissionpolicybindings', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingAdmissionPolicyBinding', all, 'api-extensions'],
      ['validatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingWebhookConfiguration', all, 'api-extensions'],
    ].map((r) => r.join(' | ')));
    // autoscaling/v1 is served too (kubectl autoscale writes it), behind v2 as the preferred version.
    expect((await ok('api-versions')).split('\n')).toEqual(expect.arrayContaining(['autoscaling/v1', 'autoscaling/v2']));
  });
});
