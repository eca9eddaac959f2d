// reconcile's ResourceCatalog on a live server: names resolved through discovery (the disk cache shared
// with kubectl), each resource listed and watched over HTTP within the command's scope.
import type { ListerWatcher } from '../../informer/types.js';
import { CatalogError, type CacheScope, type ResourceCatalog, type ResourceInfo } from '../../reconcile/catalog.js';
import { NamespacesListerWatcher } from '../lister-watchers/namespaces-lister-watcher.js';
import type { Connection } from '../http/connection.js';
import { DiscoveryClient, topLevelResources, type DiscoveryClientOptions } from './discovery-client.js';
import { HttpListerWatcher, type ListWatchTarget } from '../lister-watchers/http-lister-watcher.js';
import { resolveResource } from './resolve-resource.js';
import type { ResolvedResource } from './rest-mapper.js';

export interface CatalogScope {
  /** undefined = all namespaces. */
  namespace?: string;
  /** Applied to every primary resource (secondary kinds are read whole within the namespace, unless a module's cache says otherwise). */
  labelSelector?: string;
  fieldSelector?: string;
  /** Decode managedFields (a recording keeps what the server sent); by default they are cut before parsing. */
  keepManagedFields?: boolean;
}

export class HttpResourceCatalog implements ResourceCatalog {
  private readonly discovery: DiscoveryClient;
  /** What each resource is listed and watched with, by name (a recording's header names it). */
  private readonly targets = new Map<string, ListWatchTarget>();

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

  listerWatcher(info: ResourceInfo, scope: CacheScope): ListerWatcher {
    const { target, namespaces } = this.plan(info, scope);
    this.targets.set(info.name, target);
    const lw = new HttpListerWatcher(this.conn, target, { omitManagedFields: this.scope.keepManagedFields !== true });
    return namespaces ? new NamespacesListerWatcher(lw, namespaces) : lw;
  }

  /** What listerWatcher(info) lists and watches. */
  targetOf(info: ResourceInfo): ListWatchTarget | undefined {
    return this.targets.get(info.name);
  }

  /**
   * The command line's namespace for all; its selectors for every primary; the module's cache entry
   * ANDed to them. Several namespaces are watched across namespaces and filtered (`namespaces`).
   */
  private plan(info: ResourceInfo, scope: CacheScope): { target: ListWatchTarget; namespaces?: string[] } {
    let namespace = info.namespaced ? this.scope.namespace : undefined;
    let namespaces: string[] | undefined;
    if (info.namespaced && scope.namespaces && scope.namespaces.length > 0) {
      const wanted = this.scope.namespace === undefined ? scope.namespaces : scope.namespaces.filter((n) => n === this.scope.namespace);
      if (wanted.length === 0) throw new CatalogError(`the cache of ${info.name} holds namespaces ${scope.namespaces.join(', ')}, none of them -n ${this.scope.namespace}: use -A or one of those namespaces`);
      if (wanted.length === 1) namespace = wanted[0];
      else namespaces = wanted;
    }
    const and = (...parts: (string | undefined)[]) => parts.filter((p) => p !== undefined && p !== '').join(',') || undefined;
    return {
      target: {
        group: info.group,
        version: info.version,
        resource: info.resource,
        namespaced: info.namespaced,
        namespace,
        labelSelector: and(scope.primary ? this.scope.labelSelector : undefined, scope.labelSelector),
        fieldSelector: and(scope.primary ? this.scope.fieldSelector : undefined, scope.fieldSelector),
      },
      namespaces,
    };
  }
}

function infoOf(r: ResolvedResource): ResourceInfo {
  return { name: r.group ? `${r.resource}.${r.group}` : r.resource, group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced };
}
