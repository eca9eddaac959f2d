// What kube's OpenAPI schema says about the shape of built-in fields, as far as field ownership needs it: which
// lists are keyed (and by what), which are sets, which structs are atomic. Everything else: maps are granular,
// lists are atomic (as for custom resources without list-type markers).

/** How a list is tracked: item by item under its key fields, as a set of scalars, or as one atomic value. */
export type ListType = KeyedList | 'set' | 'atomic';

/** A keyed list: its key fields and the schema defaults of key fields an item may omit (ports' protocol: TCP). */
export interface KeyedList { keys: readonly string[]; defaults?: Readonly<Record<string, unknown>> }

const KEYED: Record<string, readonly string[]> = {
  containers: ['name'], initContainers: ['name'], ephemeralContainers: ['name'],
  env: ['name'], volumes: ['name'], volumeMounts: ['mountPath'], volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'], hostAliases: ['ip'], resourceClaims: ['name'], schedulingGates: ['name'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
  conditions: ['type'], podIPs: ['ip'], hostIPs: ['ip'], addresses: ['type'],
};

/**
 * The list type of the list at `fields` (the field names leading to it, list items skipped) holding `items`.
 * `builtIn` is false for custom resources, whose lists are atomic unless their schema says otherwise.
 */
export function listType(fields: readonly string[], items: readonly unknown[], builtIn: boolean): ListType {
  const name = fields[fields.length - 1];
  // metadata is the same ObjectMeta for every kind, custom ones included.
  const inMeta = fields[fields.length - 2] === 'metadata';
  if (inMeta && name === 'ownerReferences') return keyedIfPresent(items, ['uid']);
  if (inMeta && name === 'finalizers') return 'set';
  if (!builtIn) return 'atomic';
  if (name === 'ports') {
    // Container ports are keyed by containerPort+protocol, service ports by port+protocol.
    const containerPorts = items.some((i) => isObject(i) && 'containerPort' in i);
    const lt = keyedIfPresent(items, containerPorts ? ['containerPort', 'protocol'] : ['port', 'protocol'], 1);
    return typeof lt === 'object' ? { ...lt, defaults: PORT_DEFAULTS } : lt;
  }
  const keys = KEYED[name];
  return keys ? keyedIfPresent(items, keys) : 'atomic';
}

/** Keyed only when every item is an object carrying its required keys (the first `required`); else atomic. */
function keyedIfPresent(items: readonly unknown[], keys: readonly string[], required = keys.length): ListType {
  for (const i of items) {
    if (!isObject(i)) return 'atomic';
    for (let k = 0; k < required; k++) if (i[keys[k]] === undefined) return 'atomic';
  }
  return { keys };
}

const PORT_DEFAULTS = { protocol: 'TCP' };

const WORKLOADS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']);

/** Structs marked `+structType=atomic` (owned as one value): the workloads' label selector. */
export function atomicStruct(kind: string, fields: readonly string[]): boolean {
  return WORKLOADS.has(kind) && fields.length === 2 && fields[0] === 'spec' && fields[1] === 'selector';
}

/**
 * The zero value of a built-in kind's Go struct as kube's field manager sees it on create: the non-pointer structs
 * already exist, so creating them adds only their fields (no `.` entry). Custom resources start from nothing.
 */
export function zeroObject(kind: string, builtIn: boolean, obj: Record<string, unknown>): Record<string, unknown> {
  if (!builtIn) return {};
  const zero: Record<string, unknown> = { metadata: {} };
  if (obj.spec !== undefined) zero.spec = {};
  if (obj.status !== undefined) zero.status = {};
  // Non-omitempty slices (a pod's containers) exist as null in the zero value: their items come, not the list.
  const template = { metadata: {}, spec: { containers: [] } };
  if (kind === 'Pod') zero.spec = { containers: [] };
  if (WORKLOADS.has(kind)) zero.spec = { template };
  if (kind === 'Deployment') zero.spec = { template, strategy: {} };
  if (kind === 'StatefulSet' || kind === 'DaemonSet') zero.spec = { template, updateStrategy: {} };
  if (kind === 'CronJob') zero.spec = { jobTemplate: { metadata: {}, spec: { template } } };
  if (kind === 'PodTemplate') zero.template = template;
  return zero;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
