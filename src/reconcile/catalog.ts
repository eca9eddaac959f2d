// What reconcile needs to know about resources, as narrow interfaces the caller implements: naming
// (discovery on a live server, the header of a recording offline) and where each one is listed/watched.
import type { ListerWatcher } from '../informer/types.js';

export interface ResourceInfo {
  /** kubectl's spelling: pods, deployments.apps. */
  name: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

/** A resource the reconciler named cannot be used (one line for the user). */
export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

/**
 * What the run's cache holds of one resource, beyond the command line's namespace: the module's `cache`
 * entry for it (controller-runtime's cache ByObject) and, for a primary, the command line's selectors.
 */
export interface CacheScope {
  /** The resource is some controller's `for`: the command line's -l/--field-selector apply to it. */
  primary: boolean;
  /** Only these namespaces (several are watched across namespaces and filtered in kwatch). */
  namespaces?: string[];
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ResourceCatalog {
  /** A resource by any name kubectl accepts (po, deploy, deployments.apps); rejects when unknown. */
  resolve(name: string): Promise<ResourceInfo>;
  /** The resource serving apiVersion/kind (for writes, which name only the object). */
  resolveKind(apiVersion: string, kind: string): Promise<ResourceInfo>;
  /** Lists and watches the resource within the run's scope (namespace; selectors for a primary) and the cache scope. */
  listerWatcher(info: ResourceInfo, scope: CacheScope): ListerWatcher;
}

/** The group of an apiVersion: "apps/v1" → "apps", "v1" → "". */
export function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion) return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
