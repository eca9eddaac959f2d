// metadata.managedFields for the writes of the sim's own control plane, under the manager names a cluster shows:
// kube-controller-manager (deployment, replicaset, job, gc, namespace, pod-gc controllers), kubelet (pod status),
// kube-scheduler (its PodScheduled condition; a binding records no entry in kube, so none here). All are Updates;
// status writes carry subresource "status", as they go through that subresource in kube.
import type { SimObject } from '../api.js';
import { updateFields } from '../managed-fields/request.js';
import type { ResourceType } from '../registry.js';
import type { WriteOptions } from '../store.js';

export const CONTROLLER_MANAGER = 'kube-controller-manager';
export const KUBELET = 'kubelet';
export const SCHEDULER = 'kube-scheduler';

/**
 * The write options recording `manager`'s Update: of the main resource, of status, or — for a controller that
 * writes spec/metadata and status of an object in one store write (kube makes two calls) — one entry for each.
 */
export function writtenBy(type: ResourceType, manager: string, part: 'main' | 'status' | 'main+status' = 'main'): Pick<WriteOptions, 'fields'> {
  if (part !== 'main+status') return { fields: updateFields(type, manager, part === 'status' ? 'status' : undefined) };
  const main = updateFields(type, manager);
  const status = updateFields(type, manager, 'status');
  return {
    fields: (prev, next) => {
      main(prev, next);
      // The status entry starts from what the main write left (a create records everything under main).
      if (prev) status({ ...prev, metadata: { ...prev.metadata, managedFields: next.metadata.managedFields } } as SimObject, next);
    },
  };
}

/** The manager of an Event a component records (its source.component in core/v1). */
export function eventManager(component: string): string {
  if (component === KUBELET) return KUBELET;
  if (component === 'default-scheduler') return SCHEDULER;
  return CONTROLLER_MANAGER;
}
