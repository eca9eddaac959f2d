// storage.k8s.io/v1 (StorageClass, CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity) with kube-apiserver
// 1.32's discovery values, and what kube's storage strategies do on write: SetDefaults_StorageClass/CSIDriver and the
// rules of pkg/apis/storage/validation that users meet (provisioner required, parameters and provisioner immutable).
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import type { FieldError } from '../status.js';
import { jsonEqual } from '../object-meta.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

function storageKind(t: Pick<ResourceType, 'resource' | 'singular' | 'kind' | 'namespaced'> & { shortNames?: string[]; status?: boolean; emptyFields?: Record<string, unknown> }): ResourceType {
  const subresources = t.status ? [{ name: 'status', kind: t.kind, verbs: STATUS_VERBS }] : [];
  return {
    group: 'storage.k8s.io', version: 'v1', resource: t.resource, singular: t.singular, kind: t.kind, listKind: `${t.kind}List`,
    namespaced: t.namespaced, verbs: ALL_VERBS, ...(t.shortNames ? { shortNames: t.shortNames } : {}), subresources,
    hasStatusSubresource: subresources.length > 0, ...(t.emptyFields ? { emptyFields: t.emptyFields } : {}),
  };
}

export function storageResourceTypes(): ResourceType[] {
  return [
    storageKind({ resource: 'storageclasses', singular: 'storageclass', kind: 'StorageClass', namespaced: false, shortNames: ['sc'], emptyFields: { provisioner: '' } }),
    storageKind({ resource: 'csidrivers', singular: 'csidriver', kind: 'CSIDriver', namespaced: false, emptyFields: { spec: {} } }),
    storageKind({ resource: 'csinodes', singular: 'csinode', kind: 'CSINode', namespaced: false, emptyFields: { spec: { drivers: null } } }),
    storageKind({ resource: 'volumeattachments', singular: 'volumeattachment', kind: 'VolumeAttachment', namespaced: false, status: true, emptyFields: { spec: { attacher: '', source: {}, nodeName: '' } } }),
    storageKind({ resource: 'csistoragecapacities', singular: 'csistoragecapacity', kind: 'CSIStorageCapacity', namespaced: true, emptyFields: { storageClassName: '' } }),
  ];
}

/** The API group of these kinds. */
export const STORAGE_GROUP = 'storage.k8s.io';

/** The annotation that makes a StorageClass the default for claims without storageClassName. */
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** SetDefaults_StorageClass and SetDefaults_CSIDriver (kube 1.32, SELinuxMount on by default). */
export function applyStorageDefaults(type: ResourceType, obj: SimObject): void {
  if (type.group !== STORAGE_GROUP) return;
  if (type.resource === 'storageclasses') {
    obj.reclaimPolicy ??= 'Delete';
    obj.volumeBindingMode ??= 'Immediate';
  } else if (type.resource === 'csidrivers') {
    const s = isObj(obj.spec) ? { ...obj.spec } : {};
    s.attachRequired ??= true;
    s.podInfoOnMount ??= false;
    s.volumeLifecycleModes ??= ['Persistent'];
    s.storageCapacity ??= false;
    s.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
    s.requiresRepublish ??= false;
    s.seLinuxMount ??= false;
    obj.spec = s;
  }
}

/** IsQualifiedName's rule for a provisioner (kube lower-cases it first). */
function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  const errs: string[] = [];
  if (!/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(name)) errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (parts.length === 2 && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(parts[0])) {
    errs.push("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return errs;
}

function storageClass(next: Json, prev: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = typeof next.provisioner === 'string' ? next.provisioner : '';
  if (!provisioner) errs.push({ field: 'provisioner', type: 'Required value', detail: '' });
  else for (const msg of qualifiedNameErrors(provisioner.toLowerCase())) errs.push({ field: 'provisioner', type: 'Invalid value', value: provisioner, detail: msg });
  if (next.reclaimPolicy !== undefined && next.reclaimPolicy !== 'Delete' && next.reclaimPolicy !== 'Retain') {
    errs.push({ field: 'reclaimPolicy', type: 'Unsupported value', value: next.reclaimPolicy, detail: 'supported values: "Delete", "Retain"' });
  }
  if (next.volumeBindingMode !== undefined && next.volumeBindingMode !== 'Immediate' && next.volumeBindingMode !== 'WaitForFirstConsumer') {
    errs.push({ field: 'volumeBindingMode', type: 'Unsupported value', value: next.volumeBindingMode, detail: 'supported values: "Immediate", "WaitForFirstConsumer"' });
  }
  if (!prev) return errs;
  if (!jsonEqual(next.parameters ?? null, prev.parameters ?? null)) errs.push({ field: 'parameters', type: 'Forbidden', detail: 'updates to parameters are forbidden.' });
  if (next.provisioner !== prev.provisioner) errs.push({ field: 'provisioner', type: 'Forbidden', detail: 'updates to provisioner are forbidden.' });
  if (next.reclaimPolicy !== prev.reclaimPolicy) errs.push({ field: 'reclaimPolicy', type: 'Forbidden', detail: 'updates to reclaimPolicy are forbidden.' });
  if (next.volumeBindingMode !== prev.volumeBindingMode) errs.push({ field: 'volumeBindingMode', type: 'Invalid value', value: next.volumeBindingMode, detail: 'field is immutable' });
  return errs;
}

function volumeAttachment(next: Json, prev: Json | undefined): FieldError[] {
  const spec = isObj(next.spec) ? next.spec : {};
  const errs: FieldError[] = [];
  if (!spec.attacher) errs.push({ field: 'spec.attacher', type: 'Required value', detail: '' });
  if (!spec.nodeName) errs.push({ field: 'spec.nodeName', type: 'Required value', detail: '' });
  const source = isObj(spec.source) ? spec.source : {};
  const given = ['persistentVolumeName', 'inlineVolumeSpec'].filter((k) => source[k] !== undefined && source[k] !== null && source[k] !== '');
  if (given.length !== 1) errs.push({ field: 'spec.source', type: 'Required value', detail: 'must specify exactly one of inlineVolumeSpec and persistentVolumeName' });
  if (prev && !jsonEqual(next.spec, prev.spec)) errs.push({ field: 'spec', type: 'Invalid value', goValue: JSON.stringify(next.spec), detail: 'field is immutable' });
  return errs;
}

function csiStorageCapacity(next: Json): FieldError[] {
  return next.storageClassName ? [] : [{ field: 'storageClassName', type: 'Required value', detail: '' }];
}

/** Field errors of a write of a storage.k8s.io kind ([] for the others). */
export function storageKindErrors(group: string, resource: string, next: Json, prev: Json | undefined): FieldError[] {
  if (group !== STORAGE_GROUP) return [];
  switch (resource) {
    case 'storageclasses': return storageClass(next, prev);
    case 'volumeattachments': return volumeAttachment(next, prev);
    case 'csistoragecapacities': return csiStorageCapacity(next);
    default: return [];
  }
}
