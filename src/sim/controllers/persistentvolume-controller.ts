// kube-controller-manager's persistentvolume-binder (pkg/controller/volume/persistentvolume), with a provisioner the
// sim owns: an unbound claim binds to the smallest Available volume that fits it (storage class, access modes,
// volume mode, capacity, selector) or to the volume it or the volume names; binding sets the volume's claimRef and
// both phases Bound, the claim's volumeName, capacity and access modes, and the bind-completed/bound-by-controller
// annotations. A claim of a StorageClass whose provisioner is SIM_PROVISIONER gets a volume made for it — at once
// (volumeBindingMode Immediate) or once a pod using it is scheduled (WaitForFirstConsumer). A claim that goes
// releases its volume: Released, then deleted (reclaim policy Delete), kept (Retain) or made Available (Recycle).
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import { parseQuantity } from '../kinds/quantity.js';
import { DEFAULT_CLASS_ANNOTATION } from '../kinds/storage-kinds.js';
import { labelSelectorFromObject } from '../label-selector.js';
import { kubeTime } from '../object-meta.js';
import type { ResourceType } from '../registry.js';
import type { ControllerContext } from './controller-context.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

/** The provisioner name of the sim's own dynamic provisioning. */
export const SIM_PROVISIONER = 'kwatch.dev/sim';
/** The StorageClass the sim starts with (as kind's "standard"), unless one exists. */
export const SEEDED_CLASS = 'standard';

const BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
const BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
const PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
const STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
const BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const COMPONENT = 'persistentvolume-controller';
/** A claim's JSON with a non-empty spec.volumeName. */
const BOUND_JSON = /"volumeName":"[^"]/;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const annotated = (obj: SimObject, extra: Record<string, string>): SimObject => ({ ...obj, metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}), ...extra } } });

export class PersistentVolumeController {
  readonly queue: WorkQueue;
  private readonly claims: ResourceType;
  private readonly volumes: ResourceType;
  private readonly classes: ResourceType;
  /** Events already recorded per claim uid (kube's recorder would aggregate the repeats). */
  private readonly told = new Set<string>();

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
    this.claims = ctx.store.resolve({ group: '', version: 'v1', resource: 'persistentvolumeclaims' });
    this.volumes = ctx.store.resolve({ group: '', version: 'v1', resource: 'persistentvolumes' });
    this.classes = ctx.store.resolve({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' });
  }

  /** Seeds the default StorageClass when the cluster has none, and looks at the claims and volumes already there. */
  start(): void {
    const { store } = this.ctx;
    if (store.count(this.classes) === 0) {
      store.createObject(this.classes, {
        apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
        metadata: { name: SEEDED_CLASS, annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
        provisioner: SIM_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
      }, writtenBy(this.classes, CONTROLLER_MANAGER));
    }
    this.queueUnbound();
    for (const v of store.storedIn(this.volumes)) this.queue.add(`volume/${v.meta.name}`);
  }

  observeClaim(change: Change): void {
    const key = `claim/${change.cur.meta.namespace}/${change.cur.meta.name}`;
    if (change.type !== 'DELETED') { this.queue.add(key); return; }
    for (const k of this.told) if (k.startsWith(`${change.cur.meta.uid}/`)) this.told.delete(k);
    const volume = str((change.cur.obj.spec as Json | undefined)?.volumeName);
    if (volume) this.queue.add(`volume/${volume}`);
  }

  observeVolume(change: Change): void {
    if (change.type === 'DELETED') return;
    this.queue.add(`volume/${change.cur.meta.name}`);
    // A new or freed volume may be what a pending claim waits for.
    this.queueUnbound();
  }

  observeClass(change: Change): void {
    if (change.type !== 'DELETED') this.queueUnbound();
  }

  /** A scheduled pod is the first consumer its WaitForFirstConsumer claims wait for. */
  observePod(change: Change, pod: () => SimObject): void {
    if (change.type === 'DELETED' || !change.cur.meta.fields['spec.nodeName'] || !change.cur.json.includes('"persistentVolumeClaim"')) return;
    for (const v of ((pod().spec as Json | undefined)?.volumes ?? []) as Json[]) {
      const claim = str(v.persistentVolumeClaim?.claimName);
      if (claim) this.queue.add(`claim/${change.cur.meta.namespace}/${claim}`);
    }
  }

  private queueUnbound(): void {
    // Read from the JSON: a claim is unbound while it has no volumeName (parsing every claim on each change would not scale).
    for (const c of this.ctx.store.storedIn(this.claims)) {
      if (!BOUND_JSON.test(c.json)) this.queue.add(`claim/${c.meta.namespace}/${c.meta.name}`);
    }
  }

  private sync(key: string): void {
    const [kind, ...rest] = key.split('/');
    if (kind === 'volume') return this.syncVolume(rest[0]);
    const claim = this.ctx.store.getStored(this.claims, rest[0], rest[1])?.obj;
    if (!claim || claim.metadata.deletionTimestamp !== undefined) return;
    if (str((claim.spec as Json | undefined)?.volumeName)) this.syncBoundClaim(claim); else this.syncUnboundClaim(claim);
  }

  private syncUnboundClaim(claim: SimObject): void {
    const spec = (claim.spec ?? {}) as Json;
    const className = str(spec.storageClassName);
    const cls = className ? this.ctx.store.getStored(this.classes, undefined, className)?.obj : undefined;
    const node = cls?.volumeBindingMode === 'WaitForFirstConsumer' ? this.consumerNode(claim) : '';
    const delayed = node === undefined;
    const volume = this.findVolume(claim, delayed);
    if (volume) return this.bind(volume, claim);
    if (delayed) return this.tell(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    if (!className) return this.tell(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
    if (!cls) return this.tell(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
    const provisioner = str(cls.provisioner);
    if (provisioner === SIM_PROVISIONER) return this.provision(claim, cls, node);
    if (spec.volumeName === undefined && claim.metadata.annotations?.[STORAGE_PROVISIONER] !== provisioner) {
      this.ctx.store.updateObject(this.claims, annotated(claim, { [BETA_STORAGE_PROVISIONER]: provisioner, [STORAGE_PROVISIONER]: provisioner }), writtenBy(this.claims, CONTROLLER_MANAGER));
    }
    this.tell(claim, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
  }

  /** The node of a scheduled pod using the claim ('' when a selected-node annotation stands in), undefined while none is. */
  private consumerNode(claim: SimObject): string | undefined {
    const selected = claim.metadata.annotations?.[SELECTED_NODE];
    if (selected) return selected;
    const name = claim.metadata.name!;
    for (const p of this.ctx.store.storedIn(this.ctx.types.pods, claim.metadata.namespace)) {
      const nodeName = p.meta.fields['spec.nodeName'];
      if (!nodeName || !p.json.includes(`"claimName":${JSON.stringify(name)}`)) continue;
      const uses = (((p.obj.spec as Json | undefined)?.volumes ?? []) as Json[]).some((v) => v.persistentVolumeClaim?.claimName === name);
      if (uses) return nodeName;
    }
    return undefined;
  }

  /** The volume pre-bound to the claim, else (unless binding waits for a consumer) the smallest Available one that fits. */
  private findVolume(claim: SimObject, preboundOnly: boolean): SimObject | undefined {
    const spec = (claim.spec ?? {}) as Json;
    const request = parseQuantity(spec.resources?.requests?.storage);
    const modes = (spec.accessModes ?? []) as string[];
    let selector: ReturnType<typeof labelSelectorFromObject> | undefined;
    try { selector = spec.selector ? labelSelectorFromObject(spec.selector) : undefined; } catch { return undefined; }
    let best: { pv: SimObject; size: bigint } | undefined;
    for (const stored of this.ctx.store.storedIn(this.volumes)) {
      const pv = stored.obj;
      const vs = (pv.spec ?? {}) as Json;
      const ref = vs.claimRef as Json | undefined;
      if (ref) {
        if (ref.namespace === claim.metadata.namespace && ref.name === claim.metadata.name && (!ref.uid || ref.uid === claim.metadata.uid)) return pv;
        continue;
      }
      if (preboundOnly || pv.metadata.deletionTimestamp !== undefined || (pv.status as Json | undefined)?.phase !== 'Available') continue;
      if (str(vs.storageClassName) !== str(spec.storageClassName)) continue;
      if ((vs.volumeMode ?? 'Filesystem') !== (spec.volumeMode ?? 'Filesystem')) continue;
      const offered = new Set((vs.accessModes ?? []) as string[]);
      if (!modes.every((m) => offered.has(m))) continue;
      const size = parseQuantity(vs.capacity?.storage);
      if (!size || (request && size.milli < request.milli)) continue;
      if (selector && !selector.matches(pv.metadata.labels)) continue;
      if (!best || size.milli < best.size) best = { pv, size: size.milli };
    }
    return best?.pv;
  }

  /** Binds volume and claim both ways: the volume first (claimRef, Bound), then the claim (volumeName, Bound). */
  private bind(volume: SimObject, claim: SimObject): void {
    const { store } = this.ctx;
    const vs = (volume.spec ?? {}) as Json;
    const ref = vs.claimRef as Json | undefined;
    let pv = volume;
    if (!ref?.uid || (volume.status as Json | undefined)?.phase !== 'Bound') {
      const claimRef = { kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion };
      const next = ref ? volume : annotated(volume, { [BOUND_BY_CONTROLLER]: 'yes' });
      pv = store.updateObject(this.volumes, { ...next, spec: { ...vs, claimRef: ref?.uid ? ref : claimRef }, status: this.phase(volume, 'Bound') }, writtenBy(this.volumes, CONTROLLER_MANAGER, 'main+status'));
    }
    const cs = (claim.spec ?? {}) as Json;
    const pvSpec = (pv.spec ?? {}) as Json;
    const extra: Record<string, string> = { [BIND_COMPLETED]: 'yes' };
    if (!cs.volumeName) extra[BOUND_BY_CONTROLLER] = 'yes';
    const status = { ...((claim.status ?? {}) as Json), phase: 'Bound', accessModes: pvSpec.accessModes, capacity: pvSpec.capacity };
    store.updateObject(this.claims, { ...annotated(claim, extra), spec: { ...cs, volumeName: pv.metadata.name }, status }, writtenBy(this.claims, CONTROLLER_MANAGER, 'main+status'));
  }

  /** The sim's provisioner: a volume made to the claim's measure, pre-bound to it, then bound. */
  private provision(claim: SimObject, cls: SimObject, node: string): void {
    const { store, events } = this.ctx;
    const name = `pvc-${claim.metadata.uid}`;
    const existing = store.getStored(this.volumes, undefined, name)?.obj;
    if (existing) return this.bind(existing, claim);
    const spec = (claim.spec ?? {}) as Json;
    let current = claim;
    if (claim.metadata.annotations?.[STORAGE_PROVISIONER] !== SIM_PROVISIONER || (node && claim.metadata.annotations?.[SELECTED_NODE] !== node)) {
      current = store.updateObject(this.claims, annotated(claim, { ...(node ? { [SELECTED_NODE]: node } : {}), [BETA_STORAGE_PROVISIONER]: SIM_PROVISIONER, [STORAGE_PROVISIONER]: SIM_PROVISIONER }), writtenBy(this.claims, CONTROLLER_MANAGER));
    }
    const ns = claim.metadata.namespace!;
    events.record(current, this.claims, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${ns}/${claim.metadata.name}"`, { component: `${SIM_PROVISIONER}_kwatch-sim` });
    const pv = store.createObject(this.volumes, {
      apiVersion: 'v1', kind: 'PersistentVolume',
      metadata: { name, annotations: { [PROVISIONED_BY]: SIM_PROVISIONER, ...(node ? { [SELECTED_NODE]: node } : {}) } },
      spec: {
        accessModes: spec.accessModes, capacity: { storage: spec.resources?.requests?.storage },
        claimRef: { kind: 'PersistentVolumeClaim', namespace: ns, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: current.metadata.resourceVersion },
        hostPath: { path: `/var/lib/kwatch-sim/volumes/${name}`, type: 'DirectoryOrCreate' },
        ...(Array.isArray(cls.mountOptions) ? { mountOptions: cls.mountOptions } : {}),
        ...(node ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } } : {}),
        persistentVolumeReclaimPolicy: str(cls.reclaimPolicy) || 'Delete', storageClassName: cls.metadata.name, volumeMode: spec.volumeMode ?? 'Filesystem',
      },
    }, writtenBy(this.volumes, CONTROLLER_MANAGER));
    events.record(current, this.claims, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`, { component: `${SIM_PROVISIONER}_kwatch-sim` });
    this.bind(pv, current);
  }

  private syncBoundClaim(claim: SimObject): void {
    const cs = (claim.spec ?? {}) as Json;
    const volume = this.ctx.store.getStored(this.volumes, undefined, cs.volumeName)?.obj;
    const ref = (volume?.spec as Json | undefined)?.claimRef as Json | undefined;
    const mine = ref && ref.namespace === claim.metadata.namespace && ref.name === claim.metadata.name && (!ref.uid || ref.uid === claim.metadata.uid);
    if (volume && (!ref || mine)) {
      const bound = (claim.status as Json | undefined)?.phase === 'Bound' && (volume.status as Json | undefined)?.phase === 'Bound' && ref?.uid && claim.metadata.annotations?.[BIND_COMPLETED];
      if (!bound) this.bind(volume, claim);
      return;
    }
    // A claim naming a volume that does not exist yet waits for it; one that was bound has lost it.
    if (!volume && !claim.metadata.annotations?.[BIND_COMPLETED]) return this.tell(claim, 'Normal', 'FailedBinding', `volume "${String(cs.volumeName)}" not found`);
    if ((claim.status as Json | undefined)?.phase === 'Lost') return;
    this.ctx.store.updateObject(this.claims, { ...claim, status: { ...((claim.status ?? {}) as Json), phase: 'Lost' } }, { subresource: 'status', ...writtenBy(this.claims, CONTROLLER_MANAGER, 'status') });
    this.tell(claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  }

  private syncVolume(name: string): void {
    const { store } = this.ctx;
    const volume = store.getStored(this.volumes, undefined, name)?.obj;
    if (!volume || volume.metadata.deletionTimestamp !== undefined) return;
    const vs = (volume.spec ?? {}) as Json;
    const ref = vs.claimRef as Json | undefined;
    const phase = (volume.status as Json | undefined)?.phase;
    const claim = ref ? store.getStored(this.claims, ref.namespace, ref.name)?.obj : undefined;
    if (!ref || !ref.uid) {
      // Free, or pre-bound by its author to a claim that may come: Available (the claim's sync binds it).
      if (claim) this.queue.add(`claim/${ref!.namespace}/${ref!.name}`);
      if (phase !== 'Available') this.setPhase(volume, 'Available');
      return;
    }
    if (claim && claim.metadata.uid === ref.uid) {
      const volumeName = str((claim.spec as Json | undefined)?.volumeName);
      if (!volumeName) { this.queue.add(`claim/${ref.namespace}/${ref.name}`); return; }
      if (volumeName === name) { if (phase !== 'Bound') this.setPhase(volume, 'Bound'); return; }
    }
    // Its claim is gone: released, then reclaimed by policy.
    const policy = vs.persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Delete') {
      if (phase !== 'Released') this.setPhase(volume, 'Released');
      store.deleteObject(this.volumes, undefined, name);
      return;
    }
    if (policy === 'Recycle') {
      const { claimRef: _dropped, ...rest } = vs;
      store.updateObject(this.volumes, { ...volume, spec: rest, status: this.phase(volume, 'Available') }, writtenBy(this.volumes, CONTROLLER_MANAGER, 'main+status'));
      return;
    }
    if (phase !== 'Released') this.setPhase(volume, 'Released');
  }

  /** The volume's status at a new phase, with the transition time kube's strategy stamps. */
  private phase(volume: SimObject, phase: string): Json {
    const status = (volume.status ?? {}) as Json;
    if (status.phase === phase) return status;
    return { phase, lastPhaseTransitionTime: kubeTime(new Date()) };
  }

  private setPhase(volume: SimObject, phase: string): void {
    this.ctx.store.updateObject(this.volumes, { ...volume, status: this.phase(volume, phase) }, { subresource: 'status', ...writtenBy(this.volumes, CONTROLLER_MANAGER, 'status') });
  }

  /** Records an event about a claim once per claim and reason. */
  private tell(claim: SimObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const key = `${claim.metadata.uid}/${reason}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    this.ctx.events.record(claim, this.claims, type, reason, message, { component: COMPONENT });
  }
}
