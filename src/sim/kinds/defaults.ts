// SetDefaults_* of kube 1.32 (pkg/apis/{apps,core,batch,rbac}/v1/defaults.go) for the kinds in resource-types.ts:
// what kube fills on every decode (create and update), in Go struct order so the stored JSON reads like kube's.
// Pod-template defaults are not here: one function applies those to every kind with a template.
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import { applyStorageDefaults } from './storage-kinds.js';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const copy = (v: unknown): Json => (isObj(v) ? { ...v } : {});

/** The fields of `src` in `order` first, then the rest as they came. */
function ordered(src: Json, order: string[]): Json {
  const out: Json = {};
  for (const k of order) if (src[k] !== undefined) out[k] = src[k];
  for (const k of Object.keys(src)) if (!(k in out) && src[k] !== undefined) out[k] = src[k];
  return out;
}

const STATEFULSET_ORDER = ['replicas', 'selector', 'template', 'volumeClaimTemplates', 'serviceName', 'podManagementPolicy', 'updateStrategy', 'revisionHistoryLimit', 'minReadySeconds', 'persistentVolumeClaimRetentionPolicy', 'ordinals'];
const DAEMONSET_ORDER = ['selector', 'template', 'updateStrategy', 'minReadySeconds', 'revisionHistoryLimit'];
const CRONJOB_ORDER = ['schedule', 'timeZone', 'startingDeadlineSeconds', 'concurrencyPolicy', 'suspend', 'jobTemplate', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'];

function statefulSetSpec(spec: unknown): Json {
  const s = copy(spec);
  s.replicas ??= 1;
  s.podManagementPolicy ??= 'OrderedReady';
  const strategy = copy(s.updateStrategy);
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { partition: 0, ...copy(strategy.rollingUpdate) };
  s.updateStrategy = strategy;
  s.revisionHistoryLimit ??= 10;
  s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Retain', ...copy(s.persistentVolumeClaimRetentionPolicy) };
  return ordered(s, STATEFULSET_ORDER);
}

function daemonSetSpec(spec: unknown): Json {
  const s = copy(spec);
  const strategy = copy(s.updateStrategy);
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...copy(strategy.rollingUpdate) };
  s.updateStrategy = strategy;
  s.revisionHistoryLimit ??= 10;
  return ordered(s, DAEMONSET_ORDER);
}

function cronJobSpec(spec: unknown): Json {
  const s = copy(spec);
  s.concurrencyPolicy ||= 'Allow';
  s.suspend ??= false;
  s.successfulJobsHistoryLimit ??= 3;
  s.failedJobsHistoryLimit ??= 1;
  return ordered(s, CRONJOB_ORDER);
}

function replicationControllerSpec(spec: unknown): Json {
  const s = copy(spec);
  s.replicas ??= 1;
  // SetDefaults_ReplicationController: the selector and the template's labels stand in for each other.
  const labels = isObj(s.template) && isObj((s.template as Json).metadata) ? ((s.template as Json).metadata as Json).labels : undefined;
  if (!isObj(s.selector) || Object.keys(s.selector).length === 0) { if (isObj(labels)) s.selector = { ...labels }; }
  return ordered(s, ['replicas', 'minReadySeconds', 'selector', 'template']);
}

/** rbac/v1 SetDefaults_Subject and the roleRef's group: users and groups are RBAC subjects. */
function defaultBinding(obj: SimObject): void {
  const ref = copy(obj.roleRef);
  ref.apiGroup ||= 'rbac.authorization.k8s.io';
  obj.roleRef = ordered(ref, ['apiGroup', 'kind', 'name']);
  if (!Array.isArray(obj.subjects)) return;
  obj.subjects = (obj.subjects as unknown[]).map((sub) => {
    if (!isObj(sub)) return sub;
    const s = { ...sub };
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = 'rbac.authorization.k8s.io';
    return ordered(s, ['kind', 'apiGroup', 'name', 'namespace']);
  });
}

/** SetDefaults_EndpointPort / ServicePort-alikes: a port's protocol is TCP unless set. */
function defaultPortProtocols(ports: unknown): unknown {
  if (!Array.isArray(ports)) return ports;
  return ports.map((p) => (isObj(p) ? { ...p, protocol: p.protocol || 'TCP' } : p));
}

/** Defaults kube applies on every write of these kinds (create and update). */
export function applyKindWriteDefaults(type: ResourceType, obj: SimObject): void {
  switch (`${type.group}/${type.resource}`) {
    case 'apps/statefulsets': obj.spec = statefulSetSpec(obj.spec); break;
    case 'apps/daemonsets': obj.spec = daemonSetSpec(obj.spec); break;
    case 'batch/cronjobs': obj.spec = cronJobSpec(obj.spec); break;
    case '/replicationcontrollers': obj.spec = replicationControllerSpec(obj.spec); break;
    case '/persistentvolumeclaims': { const s = copy(obj.spec); s.volumeMode ||= 'Filesystem'; obj.spec = s; break; }
    case '/persistentvolumes': {
      const s = copy(obj.spec);
      s.persistentVolumeReclaimPolicy ||= 'Retain';
      s.volumeMode ||= 'Filesystem';
      obj.spec = s;
      break;
    }
    case '/endpoints':
      if (Array.isArray(obj.subsets)) obj.subsets = (obj.subsets as unknown[]).map((s) => (isObj(s) ? { ...s, ...(s.ports ? { ports: defaultPortProtocols(s.ports) } : {}) } : s));
      break;
    case 'discovery.k8s.io/endpointslices':
      if (obj.ports) obj.ports = defaultPortProtocols(obj.ports);
      break;
    case 'rbac.authorization.k8s.io/rolebindings':
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      defaultBinding(obj);
      break;
    default: applyStorageDefaults(type, obj);
  }
}

/** Status kube's strategies set on create (PrepareForCreate). */
export function applyKindCreateDefaults(type: ResourceType, obj: SimObject): void {
  const id = `${type.group}/${type.resource}`;
  if (id === '/persistentvolumeclaims' || id === '/persistentvolumes') obj.status = { phase: 'Pending' };
  else if (id === 'policy/poddisruptionbudgets') obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  else if (id === 'networking.k8s.io/ingresses') obj.status = { loadBalancer: {} };
  else if (id === 'apps/statefulsets') obj.status = { replicas: 0, availableReplicas: 0 };
  else if (id === 'apps/daemonsets') obj.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
  // A quota's status is the quota controller's alone (pkg/registry/core/resourcequota/strategy.go): a client's
  // status.hard on create would otherwise be enforced by admission before the controller's first sync.
  else if (id === '/resourcequotas') obj.status = {};
}

/** Kinds whose strategies keep metadata.generation (bumped on spec changes). */
export const GENERATION_KINDS = ['statefulsets', 'daemonsets', 'poddisruptionbudgets', 'replicationcontrollers', 'cronjobs', 'ingresses'];
