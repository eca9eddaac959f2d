// storage.k8s.io printers: StorageClasses (NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE,
// the default class named "NAME (default)"), CSIDrivers, CSINodes, VolumeAttachments and CSIStorageCapacities.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';

/** storageutil.IsDefaultAnnotation: either annotation set to "true". */
export function isDefaultClass(sc: PrintableObject): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[DEFAULT_CLASS] === 'true' || a[BETA_DEFAULT_CLASS] === 'true';
}

const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);
const age = (o: PrintableObject, now: number): string => translateTimestampSince(o.metadata?.creationTimestamp, now);

export const storageClassPrinter = printer(
  [
    NAME_COLUMN,
    column('Provisioner', 'string', 'Indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'Indicates the type of the reclaim policy.'),
    column('VolumeBindingMode', 'string', 'Indicates the mode of the volume binding.'),
    column('AllowVolumeExpansion', 'string', 'Indicates whether the storage class allow volume expand.'),
    AGE_COLUMN,
  ],
  (sc, now) => [
    isDefaultClass(sc) ? `${str(sc.metadata?.name)} (default)` : str(sc.metadata?.name), str(sc.provisioner), str(sc.reclaimPolicy) || 'Delete',
    str(sc.volumeBindingMode) || 'Immediate', bool(sc.allowVolumeExpansion, false), age(sc, now),
  ],
);

export const csiDriverPrinter = printer(
  [
    NAME_COLUMN,
    column('AttachRequired', 'boolean', 'attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting.'),
    column('PodInfoOnMount', 'boolean', 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true.'),
    column('StorageCapacity', 'boolean', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.'),
    column('TokenRequests', 'string', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.'),
    column('RequiresRepublish', 'boolean', 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.'),
    column('Modes', 'string', 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'),
    AGE_COLUMN,
  ],
  (d, now) => {
    const spec = d.spec ?? {};
    const modes = list<string>(spec.volumeLifecycleModes).join(',') || '<none>';
    const tokens = Array.isArray(spec.tokenRequests) ? list<{ audience?: string }>(spec.tokenRequests).map((t) => str(t.audience)).join(',') : '<unset>';
    return [str(d.metadata?.name), bool(spec.attachRequired, true), bool(spec.podInfoOnMount, false), bool(spec.storageCapacity, false), tokens, bool(spec.requiresRepublish, false), modes, age(d, now)];
  },
);

export const csiNodePrinter = printer(
  [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
  (n, now) => [str(n.metadata?.name), list(n.spec?.drivers).length, age(n, now)],
);

export const volumeAttachmentPrinter = printer(
  [
    NAME_COLUMN,
    column('Attacher', 'string', 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().', { format: 'name' }),
    column('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
    column('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
    column('Attached', 'boolean', 'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.'),
    AGE_COLUMN,
  ],
  (v, now) => [str(v.metadata?.name), str(v.spec?.attacher), str(v.spec?.source?.persistentVolumeName), str(v.spec?.nodeName), v.status?.attached === true, age(v, now)],
);

export const csiStorageCapacityPrinter = printer(
  [
    NAME_COLUMN,
    column('StorageClassName', 'string', 'storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.'),
    column('Capacity', 'string', 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable.'),
  ],
  (c) => [str(c.metadata?.name), str(c.storageClassName), c.capacity === undefined || c.capacity === null ? '<unset>' : str(c.capacity)],
);
