// Aggregated discovery (apidiscovery.k8s.io/v2, v2beta1): recognising it by Content-Type and
// splitting it into groups and per-group-version resource lists, as client-go does.
import type { APIGroup, APIGroupDiscoveryList, APIGroupList, APIResource, APIResourceList } from './discovery-types.js';
import { groupVersionString } from './discovery-types.js';

/** What client-go 1.32 sends to /api and /apis. */
export const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** The aggregated version a Content-Type announces (client-go's ContentTypeIsGVK), else undefined. */
export function aggregatedVersion(contentType: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!contentType) return undefined;
  const [base, ...rest] = contentType.split(';');
  if (base.trim().toLowerCase() !== 'application/json') return undefined;
  const params = new Map<string, string>();
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i === -1) continue;
    params.set(p.slice(0, i).trim().toLowerCase(), p.slice(i + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  if (params.get('g') !== 'apidiscovery.k8s.io' || params.get('as') !== 'APIGroupDiscoveryList') return undefined;
  const v = params.get('v');
  return v === 'v2' || v === 'v2beta1' ? v : undefined;
}

export interface SplitDiscovery {
  groups: APIGroupList;
  resources: Map<string, APIResourceList>;
  /** group-version → why it failed (stale versions). */
  failed: Map<string, string>;
  /** Resources dropped because they had no responseKind. */
  dropped: string[];
}

/** client-go's SplitGroupsAndResources. */
export function splitAggregated(doc: APIGroupDiscoveryList): SplitDiscovery {
  const groups: APIGroup[] = [];
  const resources = new Map<string, APIResourceList>();
  const failed = new Map<string, string>();
  const dropped: string[] = [];
  for (const item of doc.items ?? []) {
    const name = item.metadata?.name ?? '';
    const group: APIGroup = { name, versions: [] };
    for (const v of item.versions ?? []) {
      const gv = groupVersionString(name, v.version);
      if (v.freshness === 'Stale') {
        failed.set(gv, `stale GroupVersion discovery: ${gv}`);
        continue;
      }
      const entry = { groupVersion: gv, version: v.version };
      group.versions.push(entry);
      // the first non-stale version is the preferred one
      group.preferredVersion ??= entry;
      const list: APIResourceList = { groupVersion: gv, resources: [] };
      for (const r of v.resources ?? []) {
        const parent: APIResource = {
          name: r.resource,
          singularName: r.singularResource ?? '',
          namespaced: r.scope === 'Namespaced',
          kind: r.responseKind?.kind ?? '',
          verbs: r.verbs ?? [],
          ...(r.responseKind?.group ? { group: r.responseKind.group } : {}),
          ...(r.responseKind?.version ? { version: r.responseKind.version } : {}),
          ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
          ...(r.categories?.length ? { categories: r.categories } : {}),
        };
        if (r.responseKind) list.resources.push(parent);
        else dropped.push(`${gv} ${r.resource}: missing GVK`);
        for (const sub of r.subresources ?? []) {
          if (!sub.responseKind) {
            dropped.push(`${gv} ${r.resource}/${sub.subresource}: missing GVK`);
            continue;
          }
          list.resources.push({
            name: `${r.resource}/${sub.subresource}`,
            singularName: parent.singularName,
            namespaced: parent.namespaced,
            ...(sub.responseKind.group ? { group: sub.responseKind.group } : {}),
            ...(sub.responseKind.version ? { version: sub.responseKind.version } : {}),
            kind: sub.responseKind.kind ?? '',
            verbs: sub.verbs ?? [],
          });
        }
      }
      resources.set(gv, list);
    }
    groups.push(group);
  }
  return { groups: { kind: 'APIGroupList', apiVersion: 'v1', groups }, resources, failed, dropped };
}
