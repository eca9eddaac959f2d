// The garbage collector: dependents follow their owners (metadata.ownerReferences). Background: once an owner is
// gone, dependents with no other live owner are deleted. Foreground: an owner holding the foregroundDeletion finalizer
// has its dependents deleted first and goes when no blocking dependent is left. Orphan: an owner holding the orphan
// finalizer has its references removed from every dependent, then goes.
import type { SimObject } from '../api.js';
import type { Change } from '../history.js';
import type { ResourceType } from '../registry.js';
import type { ControllerContext } from './controller-context.js';
import { deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './graceful-delete.js';
import { objectKey, parseObjectKey, type ObjectKey } from './owner-index.js';
import { finalizersOf, ownerReferences, ownerUidsInJson, type OwnerReference } from './owner-references.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

export class GarbageCollector {
  readonly queue: WorkQueue;

  constructor(private readonly ctx: ControllerContext, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((key) => this.sync(key), onError);
  }

  observe(change: Change, type: ResourceType, obj: () => SimObject): void {
    const ref = objectKey(type, change.key);
    const json = change.cur.json;
    if (change.type === 'DELETED') {
      // Its dependents may have lost their last owner; a foreground owner may have lost a blocking dependent.
      for (const dep of this.ctx.owners.dependentsOf(change.cur.meta.uid)) this.queue.add(dep);
      if (json.includes('"ownerReferences"')) for (const owner of this.ownerKeys(obj(), ownerReferences(obj()))) this.queue.add(owner);
      return;
    }
    const deleting = json.includes('"deletionTimestamp"');
    if (deleting && (json.includes(`"${FOREGROUND_FINALIZER}"`) || json.includes(`"${ORPHAN_FINALIZER}"`))) this.queue.add(ref);
    const before = change.prev ? ownerUidsInJson(change.prev.json) : [];
    const after = ownerUidsInJson(json);
    if (before.join() === after.join()) return;
    // New owners: check they exist. Dropped owners: one waiting for its dependents may be free to go now.
    if (after.length) this.queue.add(ref);
    if (before.some((uid) => !after.includes(uid)) && change.prev) {
      const prev = change.prev.obj;
      for (const owner of this.ownerKeys(prev, ownerReferences(prev).filter((r) => !after.includes(r.uid)))) this.queue.add(owner);
    }
  }

  private sync(ref: ObjectKey): void {
    const where = parseObjectKey(this.ctx.store, ref);
    if (!where) return;
    const obj = this.ctx.store.getStored(where.type, where.namespace, where.name)?.obj;
    if (!obj) return;
    if (obj.metadata.deletionTimestamp !== undefined) {
      const finalizers = finalizersOf(obj);
      if (finalizers.includes(ORPHAN_FINALIZER)) return this.orphanDependents(where.type, obj);
      if (finalizers.includes(FOREGROUND_FINALIZER)) return this.deleteDependentsFirst(where.type, obj);
      return; // on its way out already
    }
    this.attemptToDelete(where.type, obj);
  }

  /** attemptToDeleteItem: delete a dependent whose owners are all gone or waiting for it; unlink the dead from the living. */
  private attemptToDelete(type: ResourceType, obj: SimObject): void {
    const refs = ownerReferences(obj);
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [], dangling: OwnerReference[] = [], waiting: OwnerReference[] = [];
    for (const r of refs) {
      const owner = this.owner(obj, r);
      if (owner === undefined) solid.push(r); // a kind the sim cannot resolve: leave it be
      else if (owner === null) dangling.push(r);
      else if (owner.metadata.deletionTimestamp !== undefined && finalizersOf(owner).includes(FOREGROUND_FINALIZER)) waiting.push(r);
      else solid.push(r);
    }
    if (dangling.length === 0 && waiting.length === 0) return;
    const { store } = this.ctx;
    if (solid.length > 0) {
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      const kept = refs.filter((r) => !drop.has(r.uid));
      store.updateObject(type, { ...obj, metadata: { ...obj.metadata, ownerReferences: kept } }, writtenBy(type, CONTROLLER_MANAGER));
      return;
    }
    const hasDependents = this.dependents(obj).length > 0;
    let policy: string;
    if (waiting.length > 0 && hasDependents) policy = 'Foreground';
    else if (finalizersOf(obj).includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (finalizersOf(obj).includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    deleteObject(store, type, obj.metadata.namespace, obj.metadata.name!, { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid } });
  }

  /** processDeletingDependentsItem: delete the dependents; drop the finalizer once none blocks any more. */
  private deleteDependentsFirst(type: ResourceType, owner: SimObject): void {
    const deps = this.dependents(owner);
    const blocking = deps.filter(({ obj }) => ownerReferences(obj).some((r) => r.uid === owner.metadata.uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) return this.removeFinalizer(type, owner, FOREGROUND_FINALIZER);
    for (const { ref, obj } of deps) if (obj.metadata.deletionTimestamp === undefined || finalizersOf(obj).includes(FOREGROUND_FINALIZER)) this.queue.add(ref);
  }

  /** orphanDependents: take the owner out of every dependent's ownerReferences, then let the owner go. */
  private orphanDependents(type: ResourceType, owner: SimObject): void {
    for (const { ref, obj } of this.dependents(owner)) {
      const where = parseObjectKey(this.ctx.store, ref)!;
      const kept = ownerReferences(obj).filter((r) => r.uid !== owner.metadata.uid);
      this.ctx.store.updateObject(where.type, { ...obj, metadata: { ...obj.metadata, ownerReferences: kept.length ? kept : undefined } }, writtenBy(where.type, CONTROLLER_MANAGER));
    }
    this.removeFinalizer(type, owner, ORPHAN_FINALIZER);
  }

  private removeFinalizer(type: ResourceType, obj: SimObject, finalizer: string): void {
    const rest = finalizersOf(obj).filter((f) => f !== finalizer);
    this.ctx.store.updateObject(type, { ...obj, metadata: { ...obj.metadata, finalizers: rest.length ? rest : undefined } }, writtenBy(type, CONTROLLER_MANAGER));
  }

  /** The objects that really name `owner` in their ownerReferences (the index gives candidates). */
  private dependents(owner: SimObject): { ref: ObjectKey; obj: SimObject }[] {
    const out: { ref: ObjectKey; obj: SimObject }[] = [];
    for (const ref of this.ctx.owners.dependentsOf(owner.metadata.uid!)) {
      const where = parseObjectKey(this.ctx.store, ref);
      const obj = where && this.ctx.store.getStored(where.type, where.namespace, where.name)?.obj;
      if (obj && ownerReferences(obj).some((r) => r.uid === owner.metadata.uid)) out.push({ ref, obj });
    }
    return out;
  }

  /** The owner an ownerReference names: the object, null when absent (or replaced: another uid), undefined when its kind is unknown. */
  private owner(dependent: SimObject, r: OwnerReference): SimObject | null | undefined {
    const type = this.typeOf(r);
    if (!type) return undefined;
    const o = this.ctx.store.getStored(type, type.namespaced ? dependent.metadata.namespace : undefined, r.name);
    return o && o.meta.uid === r.uid ? o.obj : null;
  }

  private ownerKeys(dependent: SimObject, refs: OwnerReference[]): ObjectKey[] {
    const out: ObjectKey[] = [];
    for (const r of refs) {
      const type = this.typeOf(r);
      if (type) out.push(objectKey(type, type.namespaced ? `${dependent.metadata.namespace}/${r.name}` : r.name));
    }
    return out;
  }

  private typeOf(r: OwnerReference): ResourceType | undefined {
    const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/') : ['', r.apiVersion];
    return this.ctx.store.registry.all().find((t) => t.group === group && t.version === version && t.kind === r.kind);
  }
}
