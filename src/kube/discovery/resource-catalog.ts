// reconcile's ResourceCatalog on a live server: names resolved through discovery (the disk cache shared
// with kubectl), each resource listed and watched over HTTP within the command's scope.
import type { ListerWatcher } from '../../informer/types.js';
import { CatalogError, type ResourceCatalog, type ResourceInfo } from '../../reconcile/catalog.js';
import type { Connection } from '../http/connection.js';
import { DiscoveryClient, topLevelResources, type DiscoveryClientOptions } from './discovery-client.js';
import { HttpListerWatcher, type ListWatchTarget } from '../lister-watchers/http-lister-watcher.js';
import { resolveResource } from './resolve-resource.js';
import type { ResolvedResource } from './rest-mapper.js';

export interface CatalogScope {
  /** undefined = all namespaces. */
  namespace?: string;
  /** Applied to the primary resource only (secondary kinds are read whole within the namespace). */
  labelSelector?: string;
  fieldSelector?: string;
  /** Decode managedFields (a recording keeps what the server sent); by default they are cut before parsing. */
  keepManagedFields?: boolean;
}

export class HttpResourceCatalog implements ResourceCatalog {
  private readonly discovery: DiscoveryClient;

  constructor(
    private readonly conn: Connection,
    private readonly scope: CatalogScope,
    discoveryOptions: DiscoveryClientOptions = {},
  ) {
    this.discovery = new DiscoveryClient(conn, discoveryOptions);
  }

  async resolve(name: string): Promise<ResourceInfo> {
    const r = await resolveResource(this.conn, name, { discovery: this.discovery });
    for (const verb of ['list', 'watch']) {
      if (!r.verbs.includes(verb)) throw new CatalogError(`the server does not allow "${verb}" on ${infoOf(r).name} (its verbs: ${r.verbs.join(', ') || 'none'}): kwatch reconcile needs list and watch`);
    }
    return infoOf(r);
  }

  async resolveKind(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const snap = await this.discovery.discover();
    let sameGroup: ResourceInfo | undefined;
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    for (const e of topLevelResources(snap)) {
      if (e.res.kind !== kind) continue;
      const info = { name: e.group.name ? `${e.res.name}.${e.group.name}` : e.res.name, group: e.group.name ?? '', version: e.version, resource: e.res.name, kind, namespaced: Boolean(e.res.namespaced) };
      if (e.groupVersion === apiVersion) return info;
      if (info.group === group) sameGroup ??= info;
    }
    if (sameGroup) return sameGroup;
    throw new CatalogError(`no resource of the server serves kind "${kind}" in "${apiVersion}"`);
  }

  listerWatcher(info: ResourceInfo, role: 'primary' | 'secondary'): ListerWatcher {
    return new HttpListerWatcher(this.conn, this.target(info, role), { omitManagedFields: this.scope.keepManagedFields !== true });
  }

  /** What is listed and watched of a resource: the namespace for all, the selectors for the primary only. */
  target(info: ResourceInfo, role: 'primary' | 'secondary'): ListWatchTarget {
    const primary = role === 'primary';
    return {
      group: info.group,
      version: info.version,
      resource: info.resource,
      namespaced: info.namespaced,
      namespace: info.namespaced ? this.scope.namespace : undefined,
      labelSelector: primary ? this.scope.labelSelector : undefined,
      fieldSelector: primary ? this.scope.fieldSelector : undefined,
    };
  }
}

function infoOf(r: ResolvedResource): ResourceInfo {
  return { name: r.group ? `${r.resource}.${r.group}` : r.resource, group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced };
}
