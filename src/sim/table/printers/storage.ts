// PersistentVolumeClaims (NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE) and
// PersistentVolumes, + wide VOLUMEMODE.
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN, wide } from '../columns.js';
import { list, printer, str, type PrintableObject } from '../printer.js';

const MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

/** GetAccessModesAsString: each mode once, in kube's order. */
function accessModes(modes: unknown): string {
  const set = new Set(list<string>(modes));
  return Object.keys(MODES).filter((m) => set.has(m)).map((m) => MODES[m]).join(',');
}

const phase = (o: PrintableObject): string => (o.metadata?.deletionTimestamp ? 'Terminating' : str(o.status?.phase));
const unset = (v: unknown): string => str(v) || '<unset>';

const STATUS = column('Status', 'string', 'Phase represents the current phase of the claim.');
const VOLUME_MODE = wide(column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.'));
const ATTRIBUTES_CLASS = column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc');

export const persistentVolumeClaimPrinter = printer(
  [
    NAME_COLUMN, STATUS,
    column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    column('StorageClass', 'string', 'StorageClass of the pvc'), ATTRIBUTES_CLASS, AGE_COLUMN, VOLUME_MODE,
  ],
  (pvc, now) => {
    const bound = Boolean(pvc.spec?.volumeName);
    return [
      str(pvc.metadata?.name), phase(pvc), str(pvc.spec?.volumeName), bound ? str(pvc.status?.capacity?.storage) : '', bound ? accessModes(pvc.status?.accessModes) : '',
      unset(pvc.spec?.storageClassName), unset(pvc.spec?.volumeAttributesClassName), translateTimestampSince(pvc.metadata?.creationTimestamp, now), unset(pvc.spec?.volumeMode),
    ];
  },
);

export const persistentVolumePrinter = printer(
  [
    NAME_COLUMN,
    column('Capacity', 'string', 'capacity is the description of the persistent volume\'s resources and capacity.'),
    column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    column('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    column('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    column('StorageClass', 'string', 'StorageClass of the pv'), ATTRIBUTES_CLASS,
    column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure.'), AGE_COLUMN, VOLUME_MODE,
  ],
  (pv, now) => {
    const ref = pv.spec?.claimRef;
    return [
      str(pv.metadata?.name), str(pv.spec?.capacity?.storage), accessModes(pv.spec?.accessModes), str(pv.spec?.persistentVolumeReclaimPolicy), phase(pv),
      ref ? `${str(ref.namespace)}/${str(ref.name)}` : '', str(pv.spec?.storageClassName), unset(pv.spec?.volumeAttributesClassName), str(pv.status?.reason),
      translateTimestampSince(pv.metadata?.creationTimestamp, now), unset(pv.spec?.volumeMode),
    ];
  },
);
