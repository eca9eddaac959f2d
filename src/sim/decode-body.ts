// Decoding a written object the way kube-apiserver's Go decoder does: JSON nested deeper than Go's scanner allows is
// refused before JSON.parse (whose result would overflow the stack later), and a value whose JSON type the kind's Go
// field cannot hold (metadata.name: 123, labels: "x", data: [1,2]) gets encoding/json's error instead of being stored.
import type { ResourceType } from './registry.js';

/**
 * Deepest nesting a body may have. Go's scanner stops at 10000 levels (maxNestingDepth), with the error below; the sim
 * stops at 1000, because its own recursion (JSON.stringify, structuredClone, the patch merges) overflows Node's default
 * stack at about 2000 levels — a 400 is what such a body gets either way, never a 500.
 */
export const MAX_JSON_DEPTH = 1000;

/** The scanner's error for text nested deeper than MAX_JSON_DEPTH, or undefined. A linear pass: no recursion, no parse. */
export function jsonDepthError(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return `invalid character '${text[i]}' exceeded max depth`;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/** kube's summary of a body it could not decode: the start of a JSON object as text, anything else as hex. */
export function summarizeBody(text: string, max = 30): string {
  const data = Buffer.from(text, 'utf8');
  if (data.length === 0) return '<empty>';
  const cut = data.length > max;
  const head = data.subarray(0, max);
  return (data[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + (cut ? ' ...' : '');
}

/** A Go field type, as far as decoding it can fail. `go` is the type's name as reflect prints it (e.g. `v1.ObjectMeta`). */
type Shape =
  | { t: 'string' | 'bool' | 'time' | 'any' | 'bytes'; go: string }
  | { t: 'int'; go: string; min: number; max: number }
  | { t: 'map' | 'list'; go: string; of: Shape }
  | { t: 'struct'; go: string; name: string; fields: Record<string, Shape> };

const str = (go = 'string'): Shape => ({ t: 'string', go });
const bool: Shape = { t: 'bool', go: 'bool' };
const int32: Shape = { t: 'int', go: 'int32', min: -(2 ** 31), max: 2 ** 31 - 1 };
const int64: Shape = { t: 'int', go: 'int64', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
/** metav1.Time and MicroTime: their UnmarshalJSON decodes a string with a separate decoder. */
const time: Shape = { t: 'time', go: 'string' };
const any: Shape = { t: 'any', go: 'interface {}' };
/** []byte: a base64 string. */
const bytes: Shape = { t: 'bytes', go: '[]uint8' };
const mapOf = (of: Shape): Shape => ({ t: 'map', go: `map[string]${of.go}`, of });
const listOf = (of: Shape): Shape => ({ t: 'list', go: `[]${of.go}`, of });
const struct = (name: string, fields: Record<string, Shape>): Shape => ({ t: 'struct', go: `v1.${name}`, name, fields });
const stringMap = mapOf(str());
const strings = listOf(str());

const ownerReference = struct('OwnerReference', { apiVersion: str(), kind: str(), name: str(), uid: str('types.UID'), controller: bool, blockOwnerDeletion: bool });
const managedFieldsEntry = struct('ManagedFieldsEntry', { manager: str(), operation: str('v1.ManagedFieldsOperationType'), apiVersion: str(), time, fieldsType: str(), fieldsV1: any, subresource: str() });
const objectMeta = struct('ObjectMeta', {
  name: str(), generateName: str(), namespace: str(), selfLink: str(), uid: str('types.UID'), resourceVersion: str(), generation: int64,
  creationTimestamp: time, deletionTimestamp: time, deletionGracePeriodSeconds: int64, labels: stringMap, annotations: stringMap,
  ownerReferences: listOf(ownerReference), finalizers: strings, managedFields: listOf(managedFieldsEntry),
});
const labelSelector = struct('LabelSelector', {
  matchLabels: stringMap,
  matchExpressions: listOf(struct('LabelSelectorRequirement', { key: str(), operator: str('v1.LabelSelectorOperator'), values: strings })),
});
const objectReference = struct('ObjectReference', { kind: str(), namespace: str(), name: str(), uid: str('types.UID'), apiVersion: str(), resourceVersion: str(), fieldPath: str() });
const container = struct('Container', { name: str(), image: str(), command: strings, args: strings, workingDir: str(), imagePullPolicy: str('v1.PullPolicy') });
const podSpec = struct('PodSpec', {
  containers: listOf(container), initContainers: listOf(container), restartPolicy: str('v1.RestartPolicy'), terminationGracePeriodSeconds: int64,
  activeDeadlineSeconds: int64, nodeSelector: stringMap, serviceAccountName: str(), nodeName: str(), hostname: str(), schedulerName: str(),
});
const podTemplateSpec = struct('PodTemplateSpec', { metadata: objectMeta, spec: podSpec });

/** The top-level fields of each built-in kind the sim serves (`group/kind`); a field not listed is not checked. */
const KIND_FIELDS: Record<string, Record<string, Shape>> = {
  '/ConfigMap': { data: stringMap, binaryData: mapOf(bytes), immutable: bool },
  '/Secret': { data: mapOf(bytes), stringData: stringMap, type: str('v1.SecretType'), immutable: bool },
  '/Namespace': { spec: struct('NamespaceSpec', { finalizers: listOf(str('v1.FinalizerName')) }), status: struct('NamespaceStatus', { phase: str('v1.NamespacePhase') }) },
  '/Node': { spec: struct('NodeSpec', { podCIDR: str(), podCIDRs: strings, providerID: str(), unschedulable: bool }), status: struct('NodeStatus', {}) },
  '/Pod': { spec: podSpec, status: struct('PodStatus', { phase: str('v1.PodPhase'), message: str(), reason: str(), hostIP: str(), podIP: str(), startTime: time }) },
  '/Service': {
    spec: struct('ServiceSpec', {
      type: str('v1.ServiceType'), clusterIP: str(), clusterIPs: strings, selector: stringMap,
      ports: listOf(struct('ServicePort', { name: str(), protocol: str('v1.Protocol'), port: int32, targetPort: any, nodePort: int32 })),
    }),
    status: struct('ServiceStatus', {}),
  },
  '/Event': {
    involvedObject: objectReference, reason: str(), message: str(), source: struct('EventSource', { component: str(), host: str() }), firstTimestamp: time,
    lastTimestamp: time, count: int32, type: str(), eventTime: time, action: str(), reportingComponent: str(), reportingInstance: str(),
  },
  'apps/Deployment': {
    spec: struct('DeploymentSpec', {
      replicas: int32, selector: labelSelector, template: podTemplateSpec, strategy: struct('DeploymentStrategy', { type: str('v1.DeploymentStrategyType'), rollingUpdate: any }),
      minReadySeconds: int32, revisionHistoryLimit: int32, paused: bool, progressDeadlineSeconds: int32,
    }),
    status: struct('DeploymentStatus', { observedGeneration: int64, replicas: int32, updatedReplicas: int32, readyReplicas: int32, availableReplicas: int32, unavailableReplicas: int32 }),
  },
  'apps/ReplicaSet': {
    spec: struct('ReplicaSetSpec', { replicas: int32, minReadySeconds: int32, selector: labelSelector, template: podTemplateSpec }),
    status: struct('ReplicaSetStatus', { replicas: int32, fullyLabeledReplicas: int32, readyReplicas: int32, availableReplicas: int32, observedGeneration: int64 }),
  },
  'batch/Job': {
    spec: struct('JobSpec', { parallelism: int32, completions: int32, activeDeadlineSeconds: int64, backoffLimit: int32, selector: labelSelector, template: podTemplateSpec, suspend: bool }),
    status: struct('JobStatus', { startTime: time, completionTime: time, active: int32, succeeded: int32, failed: int32 }),
  },
  'coordination.k8s.io/Lease': {
    spec: struct('LeaseSpec', { holderIdentity: str(), leaseDurationSeconds: int32, acquireTime: time, renewTime: time, leaseTransitions: int32 }),
  },
  'apiextensions.k8s.io/CustomResourceDefinition': {
    spec: struct('CustomResourceDefinitionSpec', {
      group: str(), scope: str('v1.ResourceScope'),
      names: struct('CustomResourceDefinitionNames', { plural: str(), singular: str(), shortNames: strings, kind: str(), listKind: str(), categories: strings }),
      versions: listOf(struct('CustomResourceDefinitionVersion', { name: str(), served: bool, storage: bool, schema: any, subresources: any })),
    }),
    status: struct('CustomResourceDefinitionStatus', {}),
  },
  'events.k8s.io/Event': {
    eventTime: time, reportingController: str(), reportingInstance: str(), action: str(), reason: str(), regarding: objectReference,
    related: objectReference, note: str(), type: str(), deprecatedSource: struct('EventSource', { component: str(), host: str() }),
    deprecatedFirstTimestamp: time, deprecatedLastTimestamp: time, deprecatedCount: int32,
  },
};

/** The Go struct a kind decodes into. Custom resources decode as unstructured in kube; the sim checks their metadata the same way. */
function kindShape(type: ResourceType): Shape {
  return struct(type.kind, { apiVersion: str(), kind: str(), metadata: objectMeta, ...(type.crd ? {} : KIND_FIELDS[`${type.group}/${type.kind}`]) });
}

/** How encoding/json names a JSON value's type in its errors. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}

interface Where { struct: string; fields: readonly string[] }

/** The first decode error; `hard` errors (a custom unmarshaler's) end decoding at once, as in Go, and win over earlier type errors. */
interface Found { first?: string; hard?: string }

function typeError(value: string, where: Where, go: string): string {
  return `json: cannot unmarshal ${value} into Go struct field ${where.struct}.${where.fields.join('.')} of type ${go}`;
}

function walk(v: unknown, shape: Shape, where: Where, found: Found): void {
  if (v === null || found.hard !== undefined || shape.t === 'any') return;
  const soft = (msg: string) => { found.first ??= msg; };
  switch (shape.t) {
    case 'string':
      if (typeof v !== 'string') soft(typeError(jsonKind(v), where, shape.go));
      return;
    case 'bool':
      if (typeof v !== 'boolean') soft(typeError(jsonKind(v), where, shape.go));
      return;
    case 'int':
      if (typeof v !== 'number') soft(typeError(jsonKind(v), where, shape.go));
      else if (!Number.isInteger(v) || v < shape.min || v > shape.max) soft(typeError(`number ${v}`, where, shape.go));
      return;
    case 'time':
      // The unmarshaler's own decoder error carries no field context.
      if (typeof v !== 'string') found.hard = `json: cannot unmarshal ${jsonKind(v)} into Go value of type string`;
      return;
    case 'bytes':
      if (typeof v === 'string') {
        const bad = base64Error(v);
        if (bad !== undefined) soft(`illegal base64 data at input byte ${bad}`);
      } else if (Array.isArray(v)) {
        for (const b of v) walk(b, { t: 'int', go: 'uint8', min: 0, max: 255 }, where, found);
      } else soft(typeError(jsonKind(v), where, shape.go));
      return;
    case 'map':
      if (typeof v !== 'object' || Array.isArray(v)) { soft(typeError(jsonKind(v), where, shape.go)); return; }
      for (const x of Object.values(v as Record<string, unknown>)) walk(x, shape.of, where, found);
      return;
    case 'list':
      if (!Array.isArray(v)) { soft(typeError(jsonKind(v), where, shape.go)); return; }
      for (const x of v) walk(x, shape.of, where, found);
      return;
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) { soft(typeError(jsonKind(v), where, shape.go)); return; }
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const f = shape.fields[k];
        if (f) walk(x, f, { struct: shape.name, fields: [...where.fields, k] }, found);
      }
    }
  }
}

/** encoding/base64's StdEncoding: the input byte offset at which decoding fails, or undefined when it decodes (CR and LF are skipped). */
export function base64Error(s: string): number | undefined {
  if (s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const isData = (c: string) => /[A-Za-z0-9+/]/.test(c);
  const skipNewlines = (i: number) => { while (i < s.length && (s[i] === '\n' || s[i] === '\r')) i++; return i; };
  let i = 0;
  for (;;) {
    // One quantum of four characters.
    let j = 0;
    for (; j < 4; j++) {
      i = skipNewlines(i);
      if (i === s.length) {
        if (j === 0) return undefined;
        return i - j;
      }
      const c = s[i++];
      if (isData(c)) continue;
      if (c !== '=') return i - 1;
      // Padding: only at the third or fourth place, "==" at the third, then nothing but newlines.
      if (j < 2) return i - 1;
      if (j === 2) {
        i = skipNewlines(i);
        if (i === s.length) return s.length;
        if (s[i] !== '=') return i - 1;
        i++;
      }
      i = skipNewlines(i);
      return i < s.length ? i : undefined;
    }
  }
}

/**
 * What Go's decoder says about an object body the kind cannot hold (the first error: encoding/json keeps decoding after a
 * type mismatch and reports the first), or undefined when it decodes. Fields the tables do not know are not checked.
 */
export function objectDecodeError(type: ResourceType, obj: object): string | undefined {
  const found: Found = {};
  walk(obj, kindShape(type), { struct: type.kind, fields: [] }, found);
  return found.hard ?? found.first;
}

/** kube's 400 message for a create or update body that does not decode into its kind. */
export function cannotBeHandled(type: Pick<ResourceType, 'kind' | 'version'>, err: string): string {
  return `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${err}`;
}

/** kube's 400 message for a body it could not even read the kind of (e.g. nested too deep). */
export function unrecognizedObject(type: ResourceType, err: string, body: string): string {
  return `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: ${err} (${summarizeBody(body)})`;
}
