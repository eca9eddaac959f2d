// DeleteOptions.preconditions: a DELETE only goes ahead on the object the client means (kube's 409 wording).
import type { ResourceType } from './registry.js';
import { conflict } from './status.js';

export interface DeletePreconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Throws kube's 409 Conflict when the stored object is not the one the preconditions name. */
export function checkDeletePreconditions(type: ResourceType, name: string, stored: { meta: { uid?: string }; rv: number }, pre: DeletePreconditions | undefined): void {
  if (pre?.uid && pre.uid !== stored.meta.uid) {
    throw conflict(type.resource, type.group, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${stored.meta.uid}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== String(stored.rv)) {
    throw conflict(type.resource, type.group, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${stored.rv}`);
  }
}
