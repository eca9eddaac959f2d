// Discovery documents as they travel (apimachinery meta/v1 and apidiscovery/v2), and their JSON
// encoding in Go's field order, so cache files are byte-identical to the ones kubectl writes.

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion?: GroupVersionForDiscovery;
  serverAddressByClientCIDRs?: { clientCIDR: string; serverAddress: string }[];
}

export interface APIGroupList {
  kind?: 'APIGroupList';
  apiVersion?: string;
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind?: 'APIResourceList';
  apiVersion?: string;
  groupVersion: string;
  resources: APIResource[];
}

/** apidiscovery.k8s.io/v2 (and v2beta1, same shape) */
export interface APIGroupDiscoveryList {
  kind?: string;
  apiVersion?: string;
  items: {
    metadata?: { name?: string };
    versions?: {
      version: string;
      freshness?: 'Current' | 'Stale';
      resources?: {
        resource: string;
        responseKind?: { group?: string; version?: string; kind?: string } | null;
        scope?: 'Namespaced' | 'Cluster';
        singularResource?: string;
        verbs?: string[];
        shortNames?: string[];
        categories?: string[];
        subresources?: { subresource: string; responseKind?: { group?: string; version?: string; kind?: string } | null; verbs?: string[] }[];
      }[];
    }[];
  }[];
}

export function splitGroupVersion(gv: string): { group: string; version: string } {
  const i = gv.indexOf('/');
  return i === -1 ? { group: '', version: gv } : { group: gv.slice(0, i), version: gv.slice(i + 1) };
}

export function groupVersionString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

function encodeGV(gv: GroupVersionForDiscovery) {
  return { groupVersion: gv.groupVersion, version: gv.version };
}

/** APIGroupList encoded as client-go's LegacyCodec writes it (field order, omitempty, trailing newline). */
export function encodeAPIGroupList(list: APIGroupList): string {
  const groups = list.groups.map((g) => {
    // Go: a nil slice encodes as null; the preferredVersion struct is always present.
    const out: Record<string, unknown> = { name: g.name, versions: g.versions?.length ? g.versions.map(encodeGV) : null };
    out.preferredVersion = encodeGV(g.preferredVersion ?? { groupVersion: '', version: '' });
    if (g.serverAddressByClientCIDRs?.length) out.serverAddressByClientCIDRs = g.serverAddressByClientCIDRs.map((c) => ({ clientCIDR: c.clientCIDR, serverAddress: c.serverAddress }));
    return out;
  });
  return `${JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups })}\n`;
}

/** APIResourceList encoded as client-go's LegacyCodec writes it. */
export function encodeAPIResourceList(list: APIResourceList): string {
  const resources = list.resources.map((r) => {
    const out: Record<string, unknown> = { name: r.name, singularName: r.singularName ?? '', namespaced: Boolean(r.namespaced) };
    if (r.group) out.group = r.group;
    if (r.version) out.version = r.version;
    out.kind = r.kind ?? '';
    out.verbs = r.verbs ?? null;
    if (r.shortNames?.length) out.shortNames = r.shortNames;
    if (r.categories?.length) out.categories = r.categories;
    if (r.storageVersionHash) out.storageVersionHash = r.storageVersionHash;
    return out;
  });
  return `${JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: list.groupVersion, resources })}\n`;
}
