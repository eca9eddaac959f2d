// What objects add to ResourceQuota resource names, as kube's quota evaluators count it (pkg/quota/v1/evaluator/core
// and the generic object-count evaluator): object counts (pods, services, configmaps, secrets, persistentvolumeclaims,
// replicationcontrollers, resourcequotas, count/<resource>[.<group>]), pod compute requests and limits (terminal
// pods count for count/pods only), claims' requested storage (also per storage class), load balancers and node ports.
import type { SimObject } from '../api.js';
import { boundedMemo } from '../bounded-memo.js';
import { qosClass } from '../defaults/pod.js';
import type { StoredObject } from '../history.js';
import { addQuantities, parseQuantity, ZERO, type Quantity } from '../kinds/quantity.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';

type Json = Record<string, any>;

const CORE_COUNTS = new Set(['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas']);
const PVC_NAMES = new Set(['persistentvolumeclaims', 'requests.storage']);
const SERVICE_NAMES = new Set(['services', 'services.loadbalancers', 'services.nodeports']);
const STORAGE_CLASS_NAME = /^(.+)\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/;
/** Pod compute resources: cpu, memory, ephemeral-storage, hugepages-*, with or without requests./limits., and extended requests. */
const POD_COMPUTE = /^(?:(requests|limits)\.)?(cpu|memory|ephemeral-storage|hugepages-.+)$|^(requests)\.(.+\/.+)$/;
/** The resources whose quota makes every container state its own request or limit (kube's "must specify"). */
export const MUST_SPECIFY = ['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory'];

/** countedCollection's answers: a quota's few names are asked about on every write. */
const collections = boundedMemo(1024, (name) => {
  const coll = collectionOf(name);
  return coll && Object.freeze(coll);
});

/** The collection (group, resource) whose objects a quota resource name counts, or undefined for a name the sim does not know. */
export function countedCollection(name: string): { group: string; resource: string } | undefined {
  return collections(name);
}

function collectionOf(name: string): { group: string; resource: string } | undefined {
  const count = /^count\/([^.]+)(?:\.(.+))?$/.exec(name);
  if (count) return { group: count[2] ?? '', resource: count[1] };
  if (PVC_NAMES.has(name) || STORAGE_CLASS_NAME.test(name)) return { group: '', resource: 'persistentvolumeclaims' };
  if (SERVICE_NAMES.has(name)) return { group: '', resource: 'services' };
  if (CORE_COUNTS.has(name)) return { group: '', resource: name };
  if (name === 'pods' || POD_COMPUTE.test(name)) return { group: '', resource: 'pods' };
  return undefined;
}

export function podTerminal(pod: SimObject): boolean {
  const phase = (pod.status as Json | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** One container's request or limit of a resource; requests fall back on limits, as SetDefaults_Pod fills them. */
export function containerResource(c: Json, kind: 'requests' | 'limits', resource: string): Quantity | undefined {
  return parseQuantity(c.resources?.[kind]?.[resource] ?? (kind === 'requests' ? c.resources?.limits?.[resource] : undefined));
}

/** A pod's requests or limits of one resource: containers summed, the largest init container if bigger. */
function podResource(pod: SimObject, kind: 'requests' | 'limits', resource: string): Quantity {
  const spec = (pod.spec ?? {}) as Json;
  let sum = ZERO;
  for (const c of (spec.containers ?? []) as Json[]) {
    const q = containerResource(c, kind, resource);
    if (q) sum = addQuantities(sum, q);
  }
  for (const c of (spec.initContainers ?? []) as Json[]) {
    const q = containerResource(c, kind, resource);
    if (q && q.milli > sum.milli) sum = q;
  }
  return sum;
}

const ONE: Quantity = { milli: 1000n, binary: false };
const count = (n: number): Quantity => ({ milli: BigInt(n) * 1000n, binary: false });

function serviceUsage(svc: SimObject, name: string): Quantity {
  const spec = (svc.spec ?? {}) as Json;
  if (name === 'services') return ONE;
  if (name === 'services.loadbalancers') return spec.type === 'LoadBalancer' ? ONE : ZERO;
  const ports = (spec.ports ?? []) as Json[];
  if (spec.type === 'NodePort') return count(ports.length);
  if (spec.type !== 'LoadBalancer') return ZERO;
  // A LoadBalancer that allocates no node ports counts only the ports that name one (services.go, portsWithNodePorts).
  return count(spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => p?.nodePort).length : ports.length);
}

function claimUsage(pvc: SimObject, name: string): Quantity {
  const spec = (pvc.spec ?? {}) as Json;
  const storage = parseQuantity(spec.resources?.requests?.storage) ?? ZERO;
  const perClass = STORAGE_CLASS_NAME.exec(name);
  if (perClass && perClass[1] !== (spec.storageClassName ?? '')) return ZERO;
  const what = perClass ? perClass[2] : name;
  return what === 'persistentvolumeclaims' ? ONE : storage;
}

/** A pod compute name read as (requests or limits, resource): "cpu" → requests of cpu, "limits.memory" → limits of memory. */
const podComputeName = boundedMemo(1024, (name): { kind: 'requests' | 'limits'; resource: string } => {
  const m = POD_COMPUTE.exec(name)!;
  return { kind: (m[1] ?? m[3] ?? 'requests') as 'requests' | 'limits', resource: m[2] ?? m[4] };
});

/** Whether objects of `type` count toward the quota resource `name` (usageOf answers for them, whatever the object). */
export function countsKind(type: ResourceType, name: string): boolean {
  const coll = countedCollection(name);
  if (!coll || coll.group !== type.group || coll.resource !== type.resource) return false;
  return name.startsWith('count/') || type.group === '';
}

/** What `obj` (of `type`) adds to the quota resource `name`; undefined when that name does not count objects of its kind. */
export function usageOf(type: ResourceType, obj: SimObject, name: string): Quantity | undefined {
  const coll = countedCollection(name);
  if (!coll || coll.group !== type.group || coll.resource !== type.resource) return undefined;
  if (name.startsWith('count/')) return ONE;
  if (type.group !== '') return undefined;
  switch (type.resource) {
    case 'pods': {
      if (podTerminal(obj)) return ZERO;
      if (name === 'pods') return ONE;
      const { kind, resource } = podComputeName(name);
      return podResource(obj, kind, resource);
    }
    case 'services': return serviceUsage(obj, name);
    case 'persistentvolumeclaims': return claimUsage(obj, name);
    default: return ONE;
  }
}

/**
 * A stored quota, parsed once per stored version and shared by admission and the controller, which only read it
 * (each write stores a new version, so a stale parse is never handed out). Never change the object returned.
 */
const parsedQuotas = new WeakMap<StoredObject, SimObject>();
export function storedQuota(stored: StoredObject): SimObject {
  let quota = parsedQuotas.get(stored);
  if (!quota) parsedQuotas.set(stored, quota = stored.obj);
  return quota;
}

/** Records `quota` as the parse of `stored`: the object the store answered for the write that stored it (never changed after). */
export function rememberQuota(stored: StoredObject, quota: SimObject): void {
  parsedQuotas.set(stored, quota);
}

/** A collection by group and resource, at whatever version the sim serves it. */
function collection(store: SimStore, group: string, resource: string): ResourceType | undefined {
  return store.registry.lookup(group, 'v1', resource) ?? store.registry.all().find((t) => t.group === group && t.resource === resource);
}

/** A pod in the Terminating scope: one with an activeDeadlineSeconds (kube's IsTerminating, pods.go). */
export function isTerminating(pod: SimObject): boolean {
  const deadline = (pod.spec as Json | undefined)?.activeDeadlineSeconds;
  return typeof deadline === 'number' && deadline >= 0;
}

/** Whether a quota with scopes (spec.scopes, spec.scopeSelector) tracks `obj`: scoped quotas track pods only. */
export function inScope(quota: SimObject, type: ResourceType, obj: SimObject): boolean {
  const spec = (quota.spec ?? {}) as Json;
  // Most quotas have no scopes: answered without building the list (this runs on every create into the namespace).
  if (((spec.scopes ?? []) as string[]).length === 0 && ((spec.scopeSelector?.matchExpressions ?? []) as Json[]).length === 0) return true;
  const scopes: Json[] = [...((spec.scopes ?? []) as string[]).map((scopeName) => ({ scopeName, operator: 'Exists' })), ...((spec.scopeSelector?.matchExpressions ?? []) as Json[])];
  if (type.group !== '' || type.resource !== 'pods') return false;
  const pod = (obj.spec ?? {}) as Json;
  // The pod's QoS class, as kube's isBestEffort reads it (qos.GetPodQOS): cpu and memory above zero only.
  const bestEffort = qosClass(pod) === 'BestEffort';
  return scopes.every((s) => {
    switch (s.scopeName) {
      case 'Terminating': return isTerminating(obj);
      case 'NotTerminating': return !isTerminating(obj);
      case 'BestEffort': return bestEffort;
      case 'NotBestEffort': return !bestEffort;
      case 'PriorityClass': {
        const name = pod.priorityClassName ?? '';
        const values = (s.values ?? []) as string[];
        if (s.operator === 'In') return values.includes(name);
        if (s.operator === 'NotIn') return !values.includes(name);
        if (s.operator === 'DoesNotExist') return name === '';
        return name !== '';
      }
      case 'CrossNamespacePodAffinity': return usesCrossNamespacePodAffinity(pod);
      default: return false;
    }
  });
}

/** A pod (anti-)affinity term that names namespaces or selects them (kube's crossNamespacePodAffinityTerm, pods.go). */
const crossNamespaceTerm = (term: Json | undefined): boolean =>
  (Array.isArray(term?.namespaces) && term.namespaces.length > 0) || (term?.namespaceSelector !== undefined && term.namespaceSelector !== null);

/**
 * kube's usesCrossNamespacePodAffinity: any required or preferred term of the pod's podAffinity or podAntiAffinity
 * reaches beyond its namespace.
 */
function usesCrossNamespacePodAffinity(spec: Json): boolean {
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const affinity = spec.affinity?.[kind] as Json | undefined;
    if (((affinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Json[]).some(crossNamespaceTerm)) return true;
    if (((affinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Json[]).some((w) => crossNamespaceTerm(w?.podAffinityTerm))) return true;
  }
  return false;
}

/** The current usage of a namespace for each of a quota's hard names the sim counts (status.used). */
export function namespaceUsage(store: SimStore, namespace: string, quota: SimObject): Record<string, Quantity> {
  const hard = ((quota.spec as Json | undefined)?.hard ?? {}) as Record<string, unknown>;
  const scoped = (quota.spec as Json | undefined)?.scopes?.length > 0 || (quota.spec as Json | undefined)?.scopeSelector !== undefined;
  const used: Record<string, Quantity> = {};
  const parsed = new Map<ResourceType, SimObject[]>();
  for (const name of Object.keys(hard)) {
    const coll = countedCollection(name);
    const type = coll && collection(store, coll.group, coll.resource);
    if (!type) continue;
    const stored = store.storedIn(type, namespace);
    if (name.startsWith('count/') && !scoped) { used[name] = count(stored.length); continue; }
    let objects = parsed.get(type);
    if (!objects) parsed.set(type, objects = stored.map((o) => o.obj).filter((o) => !scoped || inScope(quota, type, o)));
    used[name] = objects.reduce((sum, o) => addQuantities(sum, usageOf(type, o, name) ?? ZERO), ZERO);
  }
  return used;
}

/** The container names lacking an explicit request or limit per resource of `required` (kube's podEvaluator.Constraints). */
export function missingPodResources(pod: SimObject, required: string[]): Map<string, string[]> {
  const missing = new Map<string, string[]>();
  const spec = (pod.spec ?? {}) as Json;
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Json[]) {
    for (const name of required) {
      const { kind, resource } = requirement(name);
      if (containerResource(c, kind, resource)) continue;
      const list = missing.get(name) ?? [];
      if (!list.includes(String(c.name))) list.push(String(c.name));
      missing.set(name, list);
    }
  }
  return missing;
}

/** A "must specify" name read once: the container field it needs (`cpu` is requests.cpu). */
export interface Requirement { kind: 'requests' | 'limits'; resource: string }

export function requirement(name: string): Requirement {
  const dot = name.indexOf('.');
  return dot < 0 ? { kind: 'requests', resource: name } : { kind: name.slice(0, dot) as Requirement['kind'], resource: name.slice(dot + 1) };
}

/**
 * Whether every container and init container states each requirement: missingPodResources' answer when it is empty,
 * without allocating (the check nearly always passes; the refusal then asks missingPodResources what is missing).
 */
export function meetsRequirements(pod: SimObject, required: Requirement[]): boolean {
  const spec = (pod.spec ?? {}) as Json;
  return containersMeet(spec.containers, required) && containersMeet(spec.initContainers, required);
}

function containersMeet(containers: Json[] | undefined, required: Requirement[]): boolean {
  for (const c of containers ?? []) {
    for (const r of required) if (!containerResource(c, r.kind, r.resource)) return false;
  }
  return true;
}
