// SetDefaults_* of kube 1.32 for the kinds in platform-kinds.ts (pkg/apis/{autoscaling/v2,networking/v1,
// scheduling/v1,admissionregistration/v1,flowcontrol/v1}/defaults.go), applied on every write, and what their
// strategies set on create (PrepareForCreate), in Go struct order so the stored JSON reads like kube's.
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const copy = (v: unknown): Json => (isObj(v) ? { ...v } : {});
const mapList = (v: unknown, f: (item: Json) => Json): unknown => (Array.isArray(v) ? v.map((x) => (isObj(x) ? f({ ...x }) : x)) : v);

function ordered(src: Json, order: string[]): Json {
  const out: Json = {};
  for (const k of order) if (src[k] !== undefined) out[k] = src[k];
  for (const k of Object.keys(src)) if (!(k in out) && src[k] !== undefined) out[k] = src[k];
  return out;
}

/** autoscaling/v2 GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: a rule's unset fields from kube's defaults. */
function scalingRules(rules: unknown, up: boolean): Json {
  const r = copy(rules);
  r.stabilizationWindowSeconds ??= up ? 0 : 300;
  r.selectPolicy ??= 'Max';
  r.policies ??= up
    ? [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]
    : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  return ordered(r, ['stabilizationWindowSeconds', 'selectPolicy', 'policies']);
}

/** SetDefaults_HorizontalPodAutoscaler (v2): one replica at least, 80% CPU without metrics, behavior filled in when set. */
function hpaSpec(spec: unknown): Json {
  const s = copy(spec);
  s.minReplicas ??= 1;
  if (!Array.isArray(s.metrics) || s.metrics.length === 0) s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  if (isObj(s.behavior)) s.behavior = { scaleUp: scalingRules(s.behavior.scaleUp, true), scaleDown: scalingRules(s.behavior.scaleDown, false) };
  return ordered(s, ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics', 'behavior']);
}

/** SetDefaults_NetworkPolicy and _NetworkPolicyPort: TCP ports; policyTypes Ingress, plus Egress with egress rules. */
function networkPolicySpec(spec: unknown): Json {
  const s = copy(spec);
  s.podSelector ??= {};
  const port = (p: Json): Json => ordered({ ...p, protocol: p.protocol ?? 'TCP' }, ['protocol', 'port', 'endPort']);
  const rule = (r: Json): Json => (r.ports ? { ...r, ports: mapList(r.ports, port) } : r);
  if (s.ingress) s.ingress = mapList(s.ingress, rule);
  if (s.egress) s.egress = mapList(s.egress, rule);
  if (!Array.isArray(s.policyTypes) || s.policyTypes.length === 0) {
    s.policyTypes = Array.isArray(s.egress) && s.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  return ordered(s, ['podSelector', 'ingress', 'egress', 'policyTypes']);
}

const WEBHOOK_ORDER = ['name', 'clientConfig', 'rules', 'failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector', 'sideEffects', 'timeoutSeconds', 'admissionReviewVersions', 'reinvocationPolicy', 'matchConditions'];

/** SetDefaults_ValidatingWebhook / _MutatingWebhook, _Rule and _ServiceReference. */
function webhook(w: Json, mutating: boolean): Json {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= 'Never';
  if (w.rules) w.rules = mapList(w.rules, (r) => ordered({ ...r, scope: r.scope ?? '*' }, ['operations', 'apiGroups', 'apiVersions', 'resources', 'scope']));
  const config = copy(w.clientConfig);
  if (isObj(config.service)) config.service = ordered({ ...config.service, port: config.service.port ?? 443 }, ['namespace', 'name', 'path', 'port']);
  if (w.clientConfig !== undefined) w.clientConfig = config;
  return ordered(w, WEBHOOK_ORDER);
}

/** SetDefaults_MatchResources: Equivalent matching, empty selectors match everything; rules scoped "*". */
function matchResources(m: unknown): Json {
  const r = copy(m);
  r.namespaceSelector ??= {};
  r.objectSelector ??= {};
  r.matchPolicy ??= 'Equivalent';
  const rule = (x: Json): Json => ({ ...x, scope: x.scope ?? '*' });
  if (r.resourceRules) r.resourceRules = mapList(r.resourceRules, rule);
  if (r.excludeResourceRules) r.excludeResourceRules = mapList(r.excludeResourceRules, rule);
  return ordered(r, ['namespaceSelector', 'objectSelector', 'resourceRules', 'excludeResourceRules', 'matchPolicy']);
}

/** flowcontrol/v1 SetDefaults_LimitedPriorityLevelConfiguration and _QueuingConfiguration. */
function priorityLevelSpec(spec: unknown): Json {
  const s = copy(spec);
  if (s.type === 'Limited' || isObj(s.limited)) {
    const l = copy(s.limited);
    l.nominalConcurrencyShares ??= 30;
    l.lendablePercent ??= 0;
    const response = copy(l.limitResponse);
    if (response.type === 'Queue') response.queuing = ordered({ queues: 64, handSize: 8, queueLengthLimit: 50, ...copy(response.queuing) }, ['queues', 'handSize', 'queueLengthLimit']);
    if (l.limitResponse !== undefined) l.limitResponse = response;
    s.limited = ordered(l, ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent', 'borrowingLimitPercent']);
  }
  if (s.type === 'Exempt' || isObj(s.exempt)) s.exempt = { nominalConcurrencyShares: 0, lendablePercent: 0, ...copy(s.exempt) };
  return ordered(s, ['type', 'limited', 'exempt']);
}

/** Defaults kube applies on every write of these kinds (create and update). */
export function applyPlatformWriteDefaults(type: ResourceType, obj: SimObject): void {
  const o = obj as unknown as Json;
  switch (`${type.group}/${type.resource}`) {
    case 'autoscaling/horizontalpodautoscalers': o.spec = hpaSpec(o.spec); break;
    case 'networking.k8s.io/networkpolicies': o.spec = networkPolicySpec(o.spec); break;
    case 'scheduling.k8s.io/priorityclasses': o.preemptionPolicy ??= 'PreemptLowerPriority'; break;
    case 'admissionregistration.k8s.io/validatingwebhookconfigurations': if (o.webhooks) o.webhooks = mapList(o.webhooks, (w) => webhook(w, false)); break;
    case 'admissionregistration.k8s.io/mutatingwebhookconfigurations': if (o.webhooks) o.webhooks = mapList(o.webhooks, (w) => webhook(w, true)); break;
    case 'admissionregistration.k8s.io/validatingadmissionpolicies': {
      const s = copy(o.spec);
      s.failurePolicy ??= 'Fail';
      if (s.matchConstraints !== undefined) s.matchConstraints = matchResources(s.matchConstraints);
      o.spec = ordered(s, ['paramKind', 'matchConstraints', 'validations', 'failurePolicy', 'auditAnnotations', 'matchConditions', 'variables']);
      break;
    }
    case 'admissionregistration.k8s.io/validatingadmissionpolicybindings': {
      const s = copy(o.spec);
      if (isObj(s.paramRef)) s.paramRef = { ...s.paramRef, parameterNotFoundAction: s.paramRef.parameterNotFoundAction ?? 'Deny' };
      if (s.matchResources !== undefined) s.matchResources = matchResources(s.matchResources);
      o.spec = s;
      break;
    }
    case 'flowcontrol.apiserver.k8s.io/flowschemas': {
      const s = copy(o.spec);
      s.matchingPrecedence ??= 1000;
      o.spec = ordered(s, ['priorityLevelConfiguration', 'matchingPrecedence', 'distinguisherMethod', 'rules']);
      break;
    }
    case 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': o.spec = priorityLevelSpec(o.spec); break;
    case 'apiregistration.k8s.io/apiservices': {
      const s = copy(o.spec);
      if (isObj(s.service)) s.service = { ...s.service, port: s.service.port ?? 443 };
      o.spec = s;
      break;
    }
  }
}

/** The user the sim's API answers as (its admin; kube takes a CSR's requester from the request's credentials). */
const REQUESTER = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

/** What these kinds' strategies set on create (PrepareForCreate): status cleared, a CSR's requester recorded. */
export function applyPlatformCreateDefaults(type: ResourceType, obj: SimObject): void {
  const o = obj as unknown as Json;
  switch (`${type.group}/${type.resource}`) {
    case 'autoscaling/horizontalpodautoscalers': o.status = { desiredReplicas: 0 }; break;
    case 'certificates.k8s.io/certificatesigningrequests': {
      const s = copy(o.spec);
      delete s.uid;
      delete s.extra;
      o.spec = ordered({ ...s, ...REQUESTER }, ['request', 'signerName', 'expirationSeconds', 'usages', 'username', 'uid', 'groups', 'extra']);
      o.status = {};
      break;
    }
    case 'admissionregistration.k8s.io/validatingadmissionpolicies':
    case 'flowcontrol.apiserver.k8s.io/flowschemas':
    case 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations':
      o.status = {};
      break;
  }
}

/** Kinds whose strategies keep metadata.generation. */
export const PLATFORM_GENERATION_KINDS = ['horizontalpodautoscalers', 'networkpolicies', 'mutatingwebhookconfigurations', 'validatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'flowschemas', 'prioritylevelconfigurations'];
