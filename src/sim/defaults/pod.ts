// Pods: SetDefaults_Pod on every write (requests from limits, enableServiceLinks, the deprecated serviceAccount
// mirror) over the pod spec defaults, and on create what kube's admission plugins add: ServiceAccount (the default
// account and its kube-api-access token volume), DefaultTolerationSeconds, Priority — and the QoS class.
import { parseQuantity } from '../kinds/quantity.js';
import { mapChanged } from './copy-on-write.js';
import { defaultPodSpec } from './pod-spec.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
const TOLERATION_SECONDS = 300;
/** The two built-in PriorityClasses; any other name has no class in the sim (a pod gets priority 0). */
const SYSTEM_PRIORITIES: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

/** SetDefaults_Pod: a container's limits fill its missing requests. */
function requestsFromLimits(container: unknown): unknown {
  if (!isObject(container) || !isObject(container.resources) || !isObject(container.resources.limits)) return container;
  const limits = container.resources.limits;
  const requests: Json = isObject(container.resources.requests) ? { ...container.resources.requests } : {};
  let changed = false;
  for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) { requests[k] = v; changed = true; }
  return changed ? { ...container, resources: { ...container.resources, requests } } : container;
}

/** The spec of a pod after SetDefaults_Pod and the pod spec defaults (every create, update and patch). */
export function defaultPod(pod: Json): void {
  const base = defaultPodSpec(pod.spec);
  const initContainers = mapChanged(base.initContainers, requestsFromLimits);
  const containers = mapChanged(base.containers, requestsFromLimits);
  // v1 conversion keeps the deprecated serviceAccount equal to serviceAccountName.
  const mirror = !!base.serviceAccountName && !base.serviceAccount;
  if (initContainers === base.initContainers && containers === base.containers && base.enableServiceLinks !== undefined && !mirror) {
    pod.spec = base;
    return;
  }
  const spec: Json = { ...base };
  if (initContainers !== undefined) spec.initContainers = initContainers;
  if (containers !== undefined) spec.containers = containers;
  spec.enableServiceLinks ??= true;
  if (mirror) spec.serviceAccount = spec.serviceAccountName;
  pod.spec = spec;
}

/** The projected volume of a pod's service account token that the ServiceAccount admission plugin adds. */
export function serviceAccountTokenVolume(name: string): Json {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  };
}

/** The ServiceAccount admission plugin: the default account, and its token mounted in every container that lacks one. */
function admitServiceAccount(spec: Json, randomSuffix: () => string): void {
  if (!spec.serviceAccountName) spec.serviceAccountName = 'default';
  spec.serviceAccount = spec.serviceAccountName;
  if (spec.automountServiceAccountToken === false) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as Json[] : [];
  const existing = volumes.find((v) => isObject(v) && typeof v.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const name = existing ? existing.name as string : TOKEN_VOLUME_PREFIX + randomSuffix();
  let needed = false;
  for (const list of ['initContainers', 'containers']) {
    if (!Array.isArray(spec[list])) continue;
    spec[list] = (spec[list] as unknown[]).map((c) => {
      if (!isObject(c)) return c;
      const mounts = Array.isArray(c.volumeMounts) ? c.volumeMounts as Json[] : [];
      if (mounts.some((m) => isObject(m) && m.mountPath === TOKEN_MOUNT_PATH)) return c;
      needed = true;
      return { ...c, volumeMounts: [...mounts, serviceAccountTokenMount(name)] };
    });
  }
  if (needed && !existing) spec.volumes = [...volumes, serviceAccountTokenVolume(name)];
}

/** Where every container gets the token volume mounted. */
export function serviceAccountTokenMount(volumeName: string): Json {
  return { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH };
}

/** The taints DefaultTolerationSeconds makes every pod tolerate for a while. */
export const NODE_PROBLEM_TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/** The toleration DefaultTolerationSeconds adds for one of NODE_PROBLEM_TAINTS. */
export function defaultToleration(key: string): Json {
  return { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: TOLERATION_SECONDS };
}

/** The DefaultTolerationSeconds admission plugin: 300 s on not-ready and unreachable nodes unless the pod says otherwise. */
function admitDefaultTolerations(spec: Json): void {
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations as Json[] : [];
  const tolerates = (key: string): boolean => tolerations.some((t) => isObject(t) && (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const added: Json[] = [];
  for (const key of NODE_PROBLEM_TAINTS) if (!tolerates(key)) added.push(defaultToleration(key));
  if (added.length) spec.tolerations = [...tolerations, ...added];
}

/** The Priority admission plugin, with no global default PriorityClass: 0, or a system class's value. */
function admitPriority(spec: Json): void {
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  spec.priority ??= SYSTEM_PRIORITIES[className] ?? 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
}

/** A request or limit GetPodQOS counts: one above zero (pkg/apis/core/v1/helper/qos/qos.go skips "0"). */
const aboveZero = (v: unknown): boolean => v !== undefined && (parseQuantity(v)?.milli ?? 1n) > 0n;

/** GetPodQOS: BestEffort without any cpu/memory request or limit above zero, Guaranteed when every container's equal, else Burstable. */
export function qosClass(spec: Json): string {
  const all = [...(Array.isArray(spec.initContainers) ? spec.initContainers : []), ...(Array.isArray(spec.containers) ? spec.containers : [])] as Json[];
  let any = false;
  let guaranteed = all.length > 0;
  for (const c of all) {
    const r = isObject(c.resources) ? c.resources : {};
    const requests = isObject(r.requests) ? r.requests : {};
    const limits = isObject(r.limits) ? r.limits : {};
    for (const res of ['cpu', 'memory']) {
      if (aboveZero(requests[res]) || aboveZero(limits[res])) any = true;
      if (limits[res] === undefined || (requests[res] !== undefined && String(requests[res]) !== String(limits[res]))) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** What a pod gets on create only: the admission plugins' additions and its QoS class. */
export function admitPod(pod: Json, randomSuffix: () => string): void {
  // A copy: the spec may still be the caller's own object (defaulting copies only what it changes).
  const spec: Json = (pod.spec = { ...(isObject(pod.spec) ? pod.spec : {}) });
  admitServiceAccount(spec, randomSuffix);
  admitDefaultTolerations(spec);
  admitPriority(spec);
  const status: Json = { ...(isObject(pod.status) ? pod.status : {}) };
  status.phase ??= 'Pending';
  status.qosClass ??= qosClass(spec);
  pod.status = status;
}
