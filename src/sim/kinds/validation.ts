// The important rules of kube 1.32's pkg/apis/{apps,rbac,policy,core,networking}/validation for the kinds in
// resource-types.ts, with kube's field paths and details: what keeps a controller from running away (selectors that
// match their template, immutable selectors) and what users commonly trip over.
import type { FieldError } from '../status.js';
import { jsonEqual } from '../object-meta.js';
import { nonNegative, selectorImmutable, validateReplicatedSpec } from '../validation/replicated-spec.js';
import { validateControllerRevision } from '../validation/controller-revision.js';
import { validateCronJob } from '../validation/cronjob.js';
import { storageKindErrors } from './storage-kinds.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
/** Go's %#v-ish rendering kube uses for a struct value in an Invalid value error: good enough as JSON. */
const goValue = (v: unknown): string => JSON.stringify(v ?? null);

const STATEFULSET_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function statefulSet(next: Json, prev: Json | undefined): FieldError[] {
  const spec = obj(next.spec);
  const errs = validateReplicatedSpec(next).map((e) => (e.detail === 'empty selector is invalid for deployment' ? { ...e, detail: 'empty selector is invalid for statefulset' } : e.detail === 'activeDeadlineSeconds in ReplicaSet is not Supported' ? { ...e, detail: 'activeDeadlineSeconds in StatefulSet is not Supported' } : e));
  const policy = spec.podManagementPolicy;
  if (policy !== undefined && policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push({ field: 'spec.podManagementPolicy', type: 'Unsupported value', value: policy, detail: 'supported values: "OrderedReady", "Parallel"' });
  }
  const strategy = obj(spec.updateStrategy).type;
  if (strategy !== undefined && strategy !== 'RollingUpdate' && strategy !== 'OnDelete') {
    errs.push({ field: 'spec.updateStrategy.type', type: 'Unsupported value', value: strategy, detail: 'supported values: "OnDelete", "RollingUpdate"' });
  }
  if (prev) {
    const old = obj(prev.spec);
    const rest = (s: Json): Json => Object.fromEntries(Object.entries(s).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
    if (!jsonEqual(rest(spec), rest(old))) {
      errs.push({ field: 'spec', type: 'Forbidden', detail: "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden" });
    }
  }
  return errs;
}

function daemonSet(next: Json, prev: Json | undefined): FieldError[] {
  const errs = validateReplicatedSpec(next).map((e) => (e.detail === 'empty selector is invalid for deployment' ? { ...e, detail: 'empty selector is invalid for daemonset' } : e));
  const strategy = obj(obj(next.spec).updateStrategy).type;
  if (strategy !== undefined && strategy !== 'RollingUpdate' && strategy !== 'OnDelete') {
    errs.push({ field: 'spec.updateStrategy.type', type: 'Unsupported value', value: strategy, detail: 'supported values: "OnDelete", "RollingUpdate"' });
  }
  return [...errs, ...(prev ? selectorImmutable(next, prev) : [])];
}

function rules(next: Json): FieldError[] {
  const errs: FieldError[] = [];
  const list = Array.isArray(next.rules) ? next.rules as unknown[] : [];
  list.forEach((r, i) => {
    const rule = obj(r);
    if (!Array.isArray(rule.verbs) || rule.verbs.length === 0) errs.push({ field: `rules[${i}].verbs`, type: 'Required value', detail: 'verbs must contain at least one value' });
    const urls = Array.isArray(rule.nonResourceURLs) && rule.nonResourceURLs.length > 0;
    if (!urls && (!Array.isArray(rule.apiGroups) || rule.apiGroups.length === 0)) errs.push({ field: `rules[${i}].apiGroups`, type: 'Required value', detail: 'resource rules must supply at least one api group' });
    if (!urls && (!Array.isArray(rule.resources) || rule.resources.length === 0)) errs.push({ field: `rules[${i}].resources`, type: 'Required value', detail: 'resource rules must supply at least one resource' });
  });
  return errs;
}

function binding(next: Json, prev: Json | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(next.roleRef);
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (ref.apiGroup !== 'rbac.authorization.k8s.io') errs.push({ field: 'roleRef.apiGroup', type: 'Unsupported value', value: ref.apiGroup ?? '', detail: 'supported values: "rbac.authorization.k8s.io"' });
  if (!kinds.includes(String(ref.kind ?? ''))) errs.push({ field: 'roleRef.kind', type: 'Unsupported value', value: ref.kind ?? '', detail: `supported values: ${kinds.map((k) => `"${k}"`).join(', ')}` });
  if (!ref.name) errs.push({ field: 'roleRef.name', type: 'Required value', detail: '' });
  (Array.isArray(next.subjects) ? next.subjects as unknown[] : []).forEach((s, i) => {
    const sub = obj(s);
    if (!sub.name) errs.push({ field: `subjects[${i}].name`, type: 'Required value', detail: '' });
    if (!['User', 'Group', 'ServiceAccount'].includes(String(sub.kind ?? ''))) errs.push({ field: `subjects[${i}].kind`, type: 'Unsupported value', value: sub.kind ?? '', detail: 'supported values: "Group", "ServiceAccount", "User"' });
  });
  if (prev && !jsonEqual(next.roleRef, prev.roleRef)) errs.push({ field: 'roleRef', type: 'Invalid value', goValue: goValue(next.roleRef), detail: 'cannot change roleRef' });
  return errs;
}

function podDisruptionBudget(next: Json): FieldError[] {
  const spec = obj(next.spec);
  if (spec.minAvailable !== undefined && spec.minAvailable !== null && spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    return [{ field: 'spec', type: 'Invalid value', goValue: goValue(spec), detail: 'minAvailable and maxUnavailable cannot be both set' }];
  }
  return [...nonNegative(spec.minAvailable, 'spec.minAvailable'), ...nonNegative(spec.maxUnavailable, 'spec.maxUnavailable')];
}

function persistentVolumeClaim(next: Json, prev: Json | undefined): FieldError[] {
  const spec = obj(next.spec);
  const errs: FieldError[] = [];
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) errs.push({ field: 'spec.accessModes', type: 'Required value', detail: 'at least 1 access mode is required' });
  if (obj(obj(spec.resources).requests).storage === undefined) errs.push({ field: 'spec.resources[storage]', type: 'Required value', detail: '' });
  if (prev) {
    // ValidatePersistentVolumeClaimUpdate: only requests (growing) and a few fields may change once bound; the sim
    // keeps it simple and refuses changes to the fields kube always refuses.
    const old = obj(prev.spec);
    for (const f of ['accessModes', 'storageClassName', 'volumeMode', 'selector']) {
      if (!jsonEqual(spec[f], old[f])) { errs.push({ field: 'spec', type: 'Forbidden', detail: 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' }); break; }
    }
  }
  return errs;
}

function ingress(next: Json): FieldError[] {
  const spec = obj(next.spec);
  const rulesList = Array.isArray(spec.rules) ? spec.rules : [];
  if (spec.defaultBackend === undefined && rulesList.length === 0) return [{ field: 'spec', type: 'Invalid value', goValue: goValue(spec), detail: 'either `defaultBackend` or `rules` must be specified' }];
  return [];
}

/** Field errors of one write of a kind this file knows, [] for the others. */
export function moreKindErrors(group: string, resource: string, next: Json, prev: Json | undefined): FieldError[] {
  switch (`${group}/${resource}`) {
    case 'apps/statefulsets': return statefulSet(next, prev);
    case 'apps/daemonsets': return daemonSet(next, prev);
    case 'apps/controllerrevisions': return validateControllerRevision(next, prev);
    case 'batch/cronjobs': return validateCronJob(next, prev);
    case 'rbac.authorization.k8s.io/roles':
    case 'rbac.authorization.k8s.io/clusterroles': return rules(next);
    case 'rbac.authorization.k8s.io/rolebindings': return binding(next, prev, true);
    case 'rbac.authorization.k8s.io/clusterrolebindings': return binding(next, prev, false);
    case 'policy/poddisruptionbudgets': return podDisruptionBudget(next);
    case '/persistentvolumeclaims': return persistentVolumeClaim(next, prev);
    case 'networking.k8s.io/ingresses': return ingress(next);
    default: return storageKindErrors(group, resource, next, prev);
  }
}
