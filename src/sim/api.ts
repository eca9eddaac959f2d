// The seam between the sim's object store (server side) and the pieces that drive it without HTTP:
// the workload generator and the in-process fault controls. Objects are plain JSON.

export interface SimObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    generateName?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
    managedFields?: unknown[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** Identifies a resource collection: group "" is the core group. */
export interface SimResourceRef {
  group: string;
  version: string;
  resource: string; // plural, e.g. "pods"
}

/**
 * Direct (in-process) access to the sim's store. Every call behaves like the matching REST verb:
 * it bumps the global resourceVersion, fans the change out to watchers, fills uid /
 * creationTimestamp / generation, and throws SimApiError (with the HTTP Status it would have
 * returned) on conflicts, missing objects and invalid input.
 */
export interface SimApi {
  create(ref: SimResourceRef, obj: SimObject): SimObject;
  /** Replaces the object; a resourceVersion in obj.metadata must match the stored one (else 409). */
  update(ref: SimResourceRef, obj: SimObject): SimObject;
  /** Deletes namespace/name; returns the deleted object (carrying the deletion resourceVersion). */
  delete(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject;
  get(ref: SimResourceRef, namespace: string | undefined, name: string): SimObject | undefined;
  /** Current objects of a resource, optionally in one namespace. Do not mutate them. */
  list(ref: SimResourceRef, namespace?: string): SimObject[];
  /** The current global resourceVersion, as a number. */
  currentRevision(): number;
}

/** The Status error the sim's handlers throw: the one kwatch's endpoint answers with too. */
export { ApiStatusError as SimApiError } from '../wire/api-status.js';
