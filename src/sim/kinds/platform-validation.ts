// The rules of kube 1.32's pkg/apis/{autoscaling,networking,scheduling,admissionregistration,certificates,node,
// flowcontrol}/validation for the kinds in platform-kinds.ts, with kube's field paths and details: what users and
// controllers commonly trip over (replica bounds, ports and peers, reserved priorities, webhook essentials, CSR
// approval conditions). CEL expressions are stored unchecked: the sim compiles none.
import { isIP } from 'node:net';
import type { FieldError } from '../status.js';
import { jsonEqual } from '../object-meta.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const goValue = (v: unknown): string => JSON.stringify(v ?? null);
const supported = (values: string[]): string => `supported values: ${values.map((v) => `"${v}"`).join(', ')}`;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const IANA_SVC_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function crossVersionRef(ref: unknown, path: string): FieldError[] {
  const r = obj(ref);
  const errs: FieldError[] = [];
  if (!r.kind) errs.push({ field: `${path}.kind`, type: 'Required value', detail: '' });
  if (!r.name) errs.push({ field: `${path}.name`, type: 'Required value', detail: '' });
  return errs;
}

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const TARGET_TYPES = ['AverageValue', 'Utilization', 'Value'];

function metricTarget(target: unknown, path: string): FieldError[] {
  const t = obj(target);
  if (!t.type) return [{ field: `${path}.type`, type: 'Required value', detail: 'must specify a metric target type' }];
  if (!TARGET_TYPES.includes(String(t.type))) return [{ field: `${path}.type`, type: 'Unsupported value', value: t.type, detail: supported(TARGET_TYPES) }];
  if (typeof t.averageUtilization === 'number' && t.averageUtilization < 1) return [{ field: `${path}.averageUtilization`, type: 'Invalid value', value: t.averageUtilization, detail: 'must be greater than 0' }];
  return [];
}

/** ValidateHorizontalPodAutoscalerSpec (on the v2 shape the sim stores). */
function hpa(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const errs = crossVersionRef(spec.scaleTargetRef, 'spec.scaleTargetRef');
  const min = spec.minReplicas, max = spec.maxReplicas;
  if (typeof min === 'number' && min < 1) errs.push({ field: 'spec.minReplicas', type: 'Invalid value', value: min, detail: 'must be greater than or equal to 1' });
  if (typeof max === 'number' && max < 1) errs.push({ field: 'spec.maxReplicas', type: 'Invalid value', value: max, detail: 'must be greater than 0' });
  if (typeof min === 'number' && typeof max === 'number' && max < min) errs.push({ field: 'spec.maxReplicas', type: 'Invalid value', value: max, detail: 'must be greater than or equal to `minReplicas`' });
  arr(spec.metrics).forEach((m, i) => {
    const metric = obj(m), path = `spec.metrics[${i}]`;
    if (!metric.type) { errs.push({ field: `${path}.type`, type: 'Required value', detail: 'must specify a metric source type' }); return; }
    if (!METRIC_TYPES.includes(String(metric.type))) { errs.push({ field: `${path}.type`, type: 'Unsupported value', value: metric.type, detail: supported(METRIC_TYPES) }); return; }
    const key = String(metric.type).charAt(0).toLowerCase() + String(metric.type).slice(1);
    const source = metric[key];
    if (source === undefined) { errs.push({ field: `${path}.${key}`, type: 'Required value', detail: `must populate information for the given metric source (only allowed when type is ${String(metric.type)})` }); return; }
    if ((key === 'resource' || key === 'containerResource') && !obj(source).name) errs.push({ field: `${path}.${key}.name`, type: 'Required value', detail: 'must specify a resource name' });
    errs.push(...metricTarget(obj(source).target, `${path}.${key}.target`));
  });
  return errs;
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];

function portNumberErrors(v: number, path: string): FieldError[] {
  return Number.isInteger(v) && v >= 1 && v <= 65535 ? [] : [{ field: path, type: 'Invalid value', value: v, detail: 'must be between 1 and 65535, inclusive' }];
}

function networkPolicyPort(p: unknown, path: string): FieldError[] {
  const port = obj(p);
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(String(port.protocol))) errs.push({ field: `${path}.protocol`, type: 'Unsupported value', value: port.protocol, detail: supported(PROTOCOLS) });
  if (typeof port.port === 'number') errs.push(...portNumberErrors(port.port, `${path}.port`));
  else if (typeof port.port === 'string') {
    if (port.port.length > 15 || !IANA_SVC_NAME.test(port.port) || !/[a-z]/.test(port.port)) errs.push({ field: `${path}.port`, type: 'Invalid value', value: port.port, detail: 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), at most 15 characters, with at least one letter' });
  }
  if (port.endPort !== undefined && port.endPort !== null) {
    if (port.port === undefined || port.port === null) errs.push({ field: `${path}.port`, type: 'Required value', detail: 'must be specified when endPort is specified' });
    else if (typeof port.port === 'string') errs.push({ field: `${path}.endPort`, type: 'Forbidden', detail: 'may not be specified when port is non-numeric' });
    else if (typeof port.endPort === 'number' && port.endPort < (port.port as number)) errs.push({ field: `${path}.endPort`, type: 'Invalid value', value: port.endPort, detail: 'must be greater than or equal to `port`' });
    if (typeof port.endPort === 'number') errs.push(...portNumberErrors(port.endPort, `${path}.endPort`));
  }
  return errs;
}

/** A CIDR as Go's net.ParseCIDR reads it: [ip, prefix length, address bits], or undefined. */
function parseCidr(cidr: string): [string, number, number] | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  if (!m) return undefined;
  const family = isIP(m[1]);
  const bits = family === 4 ? 32 : family === 6 ? 128 : 0;
  const len = Number(m[2]);
  return bits && len <= bits ? [m[1], len, bits] : undefined;
}

function ipBits(ip: string, bits: number): bigint {
  if (bits === 32) return ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  const [head, tail = ''] = ip.split('::');
  const parts = (s: string) => (s ? s.split(':') : []);
  const h = parts(head), t = parts(tail);
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Whether `inner` lies inside `outer` and is strictly smaller (ValidateIPBlock's except rule). */
function strictSubset(inner: [string, number, number], outer: [string, number, number]): boolean {
  if (inner[2] !== outer[2] || inner[1] <= outer[1]) return false;
  const shift = BigInt(outer[2] - outer[1]);
  return (ipBits(inner[0], inner[2]) >> shift) === (ipBits(outer[0], outer[2]) >> shift);
}

function ipBlock(b: unknown, path: string): FieldError[] {
  const block = obj(b);
  if (!block.cidr) return [{ field: `${path}.cidr`, type: 'Required value', detail: '' }];
  const cidr = parseCidr(String(block.cidr));
  if (!cidr) return [{ field: `${path}.cidr`, type: 'Invalid value', value: block.cidr, detail: 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' }];
  const errs: FieldError[] = [];
  arr(block.except).forEach((e, i) => {
    const except = parseCidr(String(e));
    if (!except) errs.push({ field: `${path}.except[${i}]`, type: 'Invalid value', value: e, detail: 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' });
    else if (!strictSubset(except, cidr)) errs.push({ field: `${path}.except[${i}]`, type: 'Invalid value', value: e, detail: 'must be a strict subset of `cidr`' });
  });
  return errs;
}

function networkPolicyPeer(p: unknown, path: string): FieldError[] {
  const peer = obj(p);
  const kinds = ['podSelector', 'namespaceSelector', 'ipBlock'].filter((k) => peer[k] !== undefined && peer[k] !== null);
  if (kinds.length === 0) return [{ field: path, type: 'Required value', detail: 'must specify a peer' }];
  if (kinds.length > 1 && kinds.includes('ipBlock')) return [{ field: path, type: 'Forbidden', detail: 'may not specify both ipBlock and another peer' }];
  return peer.ipBlock !== undefined ? ipBlock(peer.ipBlock, `${path}.ipBlock`) : [];
}

/** ValidateNetworkPolicySpec: ports, peers and policy types of each rule. */
function networkPolicy(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  for (const [dir, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    arr(spec[dir]).forEach((r, i) => {
      const rule = obj(r);
      arr(rule.ports).forEach((p, j) => errs.push(...networkPolicyPort(p, `spec.${dir}[${i}].ports[${j}]`)));
      arr(rule[peers]).forEach((p, j) => errs.push(...networkPolicyPeer(p, `spec.${dir}[${i}].${peers}[${j}]`)));
    });
  }
  const types = arr(spec.policyTypes);
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push({ field: `spec.policyTypes[${i}]`, type: 'Unsupported value', value: t, detail: supported(['Ingress', 'Egress']) });
  });
  if (types.length > 2) errs.push({ field: 'spec.policyTypes', type: 'Invalid value', value: goValue(types), detail: 'may not specify more than two policyTypes' });
  return errs;
}

/** kube's two built-in priority classes (pkg/apis/scheduling SystemPriorityClasses). */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];
const HIGHEST_USER_PRIORITY = 1000000000;

/** ValidatePriorityClass and ValidatePriorityClassUpdate. */
function priorityClass(next: Json, prev: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(obj(next.metadata).name ?? '');
  const value = typeof next.value === 'number' ? next.value : 0;
  if (name.startsWith('system-')) {
    const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
    const why = !known ? `${name} is not a known system priority class` : known.value !== value ? `value of ${name} PriorityClass must be ${known.value}` : next.globalDefault === true ? `globalDefault of ${name} PriorityClass must be false` : undefined;
    if (why) errs.push({ field: 'metadata.name', type: 'Forbidden', detail: `priority class names with 'system-' prefix are reserved for system use only. error: ${why}` });
  } else if (value > HIGHEST_USER_PRIORITY) {
    errs.push({ field: 'value', type: 'Forbidden', detail: `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}` });
  }
  const policy = next.preemptionPolicy;
  if (policy !== undefined && policy !== 'Never' && policy !== 'PreemptLowerPriority') errs.push({ field: 'preemptionPolicy', type: 'Unsupported value', value: policy, detail: supported(['Never', 'PreemptLowerPriority']) });
  if (prev) {
    if (prev.value !== next.value) errs.push({ field: 'value', type: 'Forbidden', detail: 'may not be changed in an update.' });
    if (prev.preemptionPolicy !== next.preemptionPolicy) errs.push({ field: 'preemptionPolicy', type: 'Invalid value', value: next.preemptionPolicy, detail: 'field is immutable' });
  }
  return errs;
}

const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration (v1 requirements). */
function webhooks(next: Json, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(next.webhooks).forEach((w, i) => {
    const hook = obj(w), path = `webhooks[${i}]`;
    const name = String(hook.name ?? '');
    if (!name) errs.push({ field: `${path}.name`, type: 'Required value', detail: '' });
    else if (name.split('.').length < 3 || !name.split('.').every((l) => DNS1123_LABEL.test(l))) errs.push({ field: `${path}.name`, type: 'Invalid value', value: name, detail: 'should be a domain with at least three segments separated by dots' });
    else if (seen.has(name)) errs.push({ field: `${path}.name`, type: 'Duplicate value', value: name, detail: '' });
    seen.add(name);
    const config = obj(hook.clientConfig);
    const targets = ['url', 'service'].filter((k) => config[k] !== undefined);
    if (targets.length !== 1) errs.push({ field: `${path}.clientConfig`, type: 'Required value', detail: 'exactly one of url or service is required' });
    if (typeof config.url === 'string' && !config.url.startsWith('https://')) errs.push({ field: `${path}.clientConfig.url`, type: 'Invalid value', value: config.url, detail: "'https' is the only allowed URL scheme" });
    if (hook.sideEffects === undefined) errs.push({ field: `${path}.sideEffects`, type: 'Required value', detail: `must specify one of ${SIDE_EFFECTS.join(', ')}` });
    else if (!SIDE_EFFECTS.includes(String(hook.sideEffects))) errs.push({ field: `${path}.sideEffects`, type: 'Unsupported value', value: hook.sideEffects, detail: supported(SIDE_EFFECTS) });
    const versions = arr(hook.admissionReviewVersions);
    if (versions.length === 0) errs.push({ field: `${path}.admissionReviewVersions`, type: 'Required value', detail: `must specify one of ${REVIEW_VERSIONS.join(', ')}` });
    else if (!versions.some((v) => REVIEW_VERSIONS.includes(String(v)))) errs.push({ field: `${path}.admissionReviewVersions`, type: 'Invalid value', value: goValue(versions), detail: `must include at least one of ${REVIEW_VERSIONS.join(', ')}` });
    for (const [field, values] of [['failurePolicy', ['Fail', 'Ignore']], ['matchPolicy', ['Equivalent', 'Exact']], ...(mutating ? [['reinvocationPolicy', ['IfNeeded', 'Never']] as const] : [])] as const) {
      if (hook[field] !== undefined && !(values as readonly string[]).includes(String(hook[field]))) errs.push({ field: `${path}.${field}`, type: 'Unsupported value', value: hook[field], detail: supported([...values]) });
    }
    const timeout = hook.timeoutSeconds;
    if (typeof timeout === 'number' && (timeout < 1 || timeout > 30)) errs.push({ field: `${path}.timeoutSeconds`, type: 'Invalid value', value: timeout, detail: 'the timeout value must be between 1 and 30 seconds' });
  });
  return errs;
}

function admissionPolicy(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  if (spec.matchConstraints === undefined) errs.push({ field: 'spec.matchConstraints', type: 'Required value', detail: '' });
  if (arr(spec.validations).length === 0 && arr(spec.auditAnnotations).length === 0) errs.push({ field: 'spec.validations', type: 'Required value', detail: 'validations or auditAnnotations must contain at least one item' });
  arr(spec.validations).forEach((v, i) => { if (!obj(v).expression) errs.push({ field: `spec.validations[${i}].expression`, type: 'Required value', detail: '' }); });
  return errs;
}

function admissionPolicyBinding(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push({ field: 'spec.policyName', type: 'Required value', detail: '' });
  const actions = arr(spec.validationActions);
  if (actions.length === 0) errs.push({ field: 'spec.validationActions', type: 'Required value', detail: 'at least one validation action is required' });
  actions.forEach((a, i) => {
    if (!['Audit', 'Deny', 'Warn'].includes(String(a))) errs.push({ field: `spec.validationActions[${i}]`, type: 'Unsupported value', value: a, detail: supported(['Audit', 'Deny', 'Warn']) });
  });
  return errs;
}

const USAGES = ['any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping'];

/** ValidateCertificateSigningRequestCreate: a PEM CERTIFICATE REQUEST, a signer name, known usages. */
function certificateSigningRequest(next: Json, prev: Json | undefined): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  const pem = typeof spec.request === 'string' ? Buffer.from(spec.request, 'base64').toString('utf8') : '';
  if (!/-----BEGIN CERTIFICATE REQUEST-----[\s\S]+-----END CERTIFICATE REQUEST-----/.test(pem)) {
    errs.push({ field: 'spec.request', type: 'Invalid value', value: '[]byte{...}', detail: 'PEM block type must be CERTIFICATE REQUEST' });
  }
  const signer = String(spec.signerName ?? '');
  if (!signer) errs.push({ field: 'spec.signerName', type: 'Required value', detail: '' });
  else if (!/^[a-z0-9.-]+\/[A-Za-z0-9._-]+$/.test(signer)) errs.push({ field: 'spec.signerName', type: 'Invalid value', value: signer, detail: 'must be a fully qualified domain and path of the form \'example.com/signer-name\'' });
  const usages = arr(spec.usages);
  if (usages.length === 0) errs.push({ field: 'spec.usages', type: 'Required value', detail: '' });
  usages.forEach((u, i) => { if (!USAGES.includes(String(u))) errs.push({ field: `spec.usages[${i}]`, type: 'Unsupported value', value: u, detail: supported(USAGES) }); });
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) errs.push({ field: 'spec.expirationSeconds', type: 'Invalid value', value: spec.expirationSeconds, detail: 'may not specify a duration less than 600 seconds (10 minutes)' });
  if (prev && !jsonEqual(prev.spec, next.spec)) errs.push({ field: 'spec', type: 'Invalid value', goValue: goValue(next.spec), detail: 'field is immutable' });
  return [...errs, ...csrConditions(next, prev)];
}

/** The approval rules of every CSR write: Approved and Denied exclude each other and, once set, stay. */
export function csrConditions(next: Json, prev: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const types = (o: Json | undefined) => arr(obj(o?.status).conditions).map((c) => String(obj(c).type ?? ''));
  const now = types(next), before = types(prev);
  arr(obj(next.status).conditions).forEach((c, i) => {
    const cond = obj(c);
    if (!cond.type) errs.push({ field: `status.conditions[${i}].type`, type: 'Required value', detail: '' });
    if (cond.status !== undefined && !['True', 'False', 'Unknown'].includes(String(cond.status))) errs.push({ field: `status.conditions[${i}].status`, type: 'Unsupported value', value: cond.status, detail: supported(['False', 'True', 'Unknown']) });
  });
  if (now.includes('Approved') && now.includes('Denied')) errs.push({ field: 'status.conditions', type: 'Invalid value', goValue: goValue(obj(next.status).conditions), detail: 'Approved and Denied conditions are mutually exclusive' });
  for (const t of ['Approved', 'Denied']) {
    if (before.includes(t) && !now.includes(t)) errs.push({ field: 'status.conditions', type: 'Forbidden', detail: `updates may not remove a condition of type "${t}"` });
    if (now.filter((x) => x === t).length > 1) errs.push({ field: 'status.conditions', type: 'Forbidden', detail: `duplicate conditions of type "${t}"` });
  }
  return errs;
}

function flowSchema(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  if (!obj(spec.priorityLevelConfiguration).name) errs.push({ field: 'spec.priorityLevelConfiguration.name', type: 'Required value', detail: 'must reference a priority level' });
  const precedence = spec.matchingPrecedence;
  if (typeof precedence === 'number' && (precedence < 1 || precedence > 10000)) errs.push({ field: 'spec.matchingPrecedence', type: 'Invalid value', value: precedence, detail: 'must be between 1 and 10000 inclusively' });
  return errs;
}

function priorityLevel(next: Json): FieldError[] {
  const spec = obj(next.spec);
  if (spec.type !== 'Limited' && spec.type !== 'Exempt') return [{ field: 'spec.type', type: 'Unsupported value', value: spec.type ?? '', detail: supported(['Exempt', 'Limited']) }];
  if (spec.type === 'Limited' && spec.limited === undefined) return [{ field: 'spec.limited', type: 'Required value', detail: 'must not be empty when type is Limited' }];
  return [];
}

/** ValidateRuntimeClass / ValidateRuntimeClassUpdate: a DNS label handler that never changes. */
function runtimeClass(next: Json, prev: Json | undefined): FieldError[] {
  const handler = String(next.handler ?? '');
  const errs: FieldError[] = [];
  if (!handler) errs.push({ field: 'handler', type: 'Required value', detail: '' });
  else if (handler.length > 63 || !DNS1123_LABEL.test(handler)) errs.push({ field: 'handler', type: 'Invalid value', value: handler, detail: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" });
  if (prev && prev.handler !== next.handler) errs.push({ field: 'handler', type: 'Invalid value', value: handler, detail: 'field is immutable' });
  return errs;
}

function apiService(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  const name = String(obj(next.metadata).name ?? '');
  const expected = `${String(spec.version ?? '')}.${String(spec.group ?? '')}`;
  if (name !== expected) errs.push({ field: 'metadata.name', type: 'Invalid value', value: name, detail: `must be \`spec.version+"."+spec.group\`: "${expected}"` });
  if (!spec.version) errs.push({ field: 'spec.version', type: 'Required value', detail: '' });
  if (typeof spec.groupPriorityMinimum !== 'number' || spec.groupPriorityMinimum <= 0 || spec.groupPriorityMinimum > 20000) errs.push({ field: 'spec.groupPriorityMinimum', type: 'Invalid value', value: spec.groupPriorityMinimum ?? 0, detail: 'must be positive and less than 20000' });
  if (typeof spec.versionPriority !== 'number' || spec.versionPriority <= 0 || spec.versionPriority > 1000) errs.push({ field: 'spec.versionPriority', type: 'Invalid value', value: spec.versionPriority ?? 0, detail: 'must be positive and less than 1000' });
  return errs;
}

/** Field errors of one write of a kind this file knows, [] for the others. */
export function platformKindErrors(group: string, resource: string, next: Json, prev: Json | undefined): FieldError[] {
  switch (`${group}/${resource}`) {
    case 'autoscaling/horizontalpodautoscalers': return hpa(next);
    case 'networking.k8s.io/networkpolicies': return networkPolicy(next);
    case 'scheduling.k8s.io/priorityclasses': return priorityClass(next, prev);
    case 'admissionregistration.k8s.io/validatingwebhookconfigurations': return webhooks(next, false);
    case 'admissionregistration.k8s.io/mutatingwebhookconfigurations': return webhooks(next, true);
    case 'admissionregistration.k8s.io/validatingadmissionpolicies': return admissionPolicy(next);
    case 'admissionregistration.k8s.io/validatingadmissionpolicybindings': return admissionPolicyBinding(next);
    case 'certificates.k8s.io/certificatesigningrequests': return certificateSigningRequest(next, prev);
    case 'flowcontrol.apiserver.k8s.io/flowschemas': return flowSchema(next);
    case 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': return priorityLevel(next);
    case 'node.k8s.io/runtimeclasses': return runtimeClass(next, prev);
    case 'apiregistration.k8s.io/apiservices': return apiService(next);
    default: return [];
  }
}
