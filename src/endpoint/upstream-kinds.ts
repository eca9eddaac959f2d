// The resource types of one group/version as the target's discovery describes them, for kinds the sim does not model
// (any CRD, built-ins it lacks): the fork serves them schemaless, with the target's names, scope, verbs and subresources.
import type { Connection } from '../kube/http/connection.js';
import type { APIResourceList } from '../kube/discovery/discovery-types.js';
import type { ResourceType, SubresourceType } from '../sim/registry.js';

export async function upstreamResourceTypes(conn: Connection, group: string, version: string): Promise<ResourceType[]> {
  const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const res = await conn.request({ path, headers: { Accept: 'application/json' }, allowErrorStatus: true });
  if (res.status === 404) { await res.body.text(); return []; }
  if (res.status < 200 || res.status >= 300) throw new Error(`discovery of ${path} answered ${res.status}`);
  const list = (await res.body.json()) as APIResourceList;
  const mains = list.resources.filter((r) => !r.name.includes('/'));
  return mains.map((r): ResourceType => {
    const subresources: SubresourceType[] = list.resources
      .filter((s) => s.name.startsWith(`${r.name}/`))
      .map((s) => ({ name: s.name.slice(r.name.length + 1), kind: s.kind, verbs: s.verbs, ...(s.group ? { group: s.group } : {}), ...(s.version ? { version: s.version } : {}) }));
    return {
      group, version, resource: r.name, singular: r.singularName || r.kind.toLowerCase(), kind: r.kind, listKind: `${r.kind}List`,
      namespaced: r.namespaced, verbs: r.verbs, ...(r.shortNames ? { shortNames: r.shortNames } : {}), ...(r.categories ? { categories: r.categories } : {}),
      subresources, hasStatusSubresource: subresources.some((s) => s.name === 'status'), crd: `kwatch-mirror:${group}/${version}`,
    };
  });
}
