// ControllerRefManager in small: the objects a controller owns are those whose controller reference names it; it
// adopts matching orphans and releases owned objects whose labels stopped matching its selector.
import type { SimObject } from '../api.js';
import type { LabelSelector } from '../label-selector.js';
import type { ResourceType } from '../registry.js';
import type { ControllerContext } from './controller-context.js';
import { parseObjectKey } from './owner-index.js';
import { controllerOf, controllerRefTo, ownerReferences } from './owner-references.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

/**
 * The `dependentType` objects `owner` controls after adoption and release, parsed, in key order. Adoption happens
 * only while the owner is not being deleted, as kube's ClaimObjects does.
 */
export function claim(ctx: ControllerContext, owner: SimObject, ownerType: ResourceType, dependentType: ResourceType, selector: LabelSelector): SimObject[] {
  const { store } = ctx;
  const uid = owner.metadata.uid!;
  const deleting = owner.metadata.deletionTimestamp !== undefined;
  const owned = new Map<string, SimObject>();
  for (const ref of ctx.owners.dependentsOf(uid)) {
    const where = parseObjectKey(store, ref);
    if (!where || where.type !== dependentType) continue;
    const obj = store.getStored(dependentType, where.namespace, where.name)?.obj;
    if (!obj || controllerOf(obj)?.uid !== uid) continue;
    if (!deleting && obj.metadata.deletionTimestamp === undefined && !selector.matches(obj.metadata.labels)) {
      release(ctx, dependentType, obj, uid);
      continue;
    }
    owned.set(obj.metadata.name!, obj);
  }
  if (!deleting && !selector.empty) {
    for (const stored of store.storedIn(dependentType, owner.metadata.namespace)) {
      if (owned.has(stored.meta.name) || !selector.matches(stored.meta.labels as Record<string, string> | undefined)) continue;
      const obj = stored.obj;
      if (controllerOf(obj) !== undefined || obj.metadata.deletionTimestamp !== undefined) continue;
      owned.set(obj.metadata.name!, store.updateObject(dependentType, { ...obj, metadata: { ...obj.metadata, ownerReferences: [...ownerReferences(obj), controllerRefTo(owner, ownerType)] } }, writtenBy(dependentType, CONTROLLER_MANAGER)));
    }
  }
  return [...owned.values()].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
}

function release(ctx: ControllerContext, type: ResourceType, obj: SimObject, ownerUid: string): void {
  const refs = ownerReferences(obj).filter((r) => r.uid !== ownerUid);
  const metadata = { ...obj.metadata, ownerReferences: refs.length ? refs : undefined };
  ctx.store.updateObject(type, { ...obj, metadata }, writtenBy(type, CONTROLLER_MANAGER));
}
