// The catalogue of served resource types (built-ins of kube 1.32 plus CRD-defined ones) with their discovery data.
import { moreResourceTypes } from './kinds/resource-types.js';
import { KUBE_GROUP_ORDER, platformResourceTypes } from './kinds/platform-kinds.js';
import { revisionResourceTypes } from './kinds/revision-kinds.js';
import { storageResourceTypes } from './kinds/storage-kinds.js';
import { authResourceTypes } from './kinds/auth-kinds.js';
import type { KubeVersion } from './kube-version.js';

export interface ResourceType {
  group: string;
  version: string;
  /** Plural name, e.g. "pods". */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources: SubresourceType[];
  /** Non-omitempty zero fields of the Go type, so bookmarks look like the real server's. */
  emptyFields?: Record<string, unknown>;
  /** True for resources whose main endpoint ignores status changes (status lives on the /status subresource). */
  hasStatusSubresource: boolean;
  /** Set when the type comes from a CustomResourceDefinition. */
  crd?: string;
  /** A custom resource version's openAPIV3Schema (what the OpenAPI documents and field validation use). */
  schema?: unknown;
  /** A built-in kind: the release whose OpenAPI definitions declare its fields (field validation; default the newest). */
  release?: KubeVersion;
}

export interface SubresourceType {
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const NO_DELETECOLLECTION = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

/** "apps/v1" or "v1". */
export function groupVersion(t: { group: string; version: string }): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** Stable identity of a resource collection, e.g. "apps/v1/deployments" or "/v1/pods". */
export function resourceId(t: { group: string; version: string; resource: string }): string {
  return `${t.group}/${t.version}/${t.resource}`;
}

function builtin(t: Omit<ResourceType, 'listKind' | 'subresources' | 'hasStatusSubresource'> & { subresources?: SubresourceType[] }): ResourceType {
  const subresources = t.subresources ?? [];
  return { ...t, listKind: `${t.kind}List`, subresources, hasStatusSubresource: subresources.some((s) => s.name === 'status') };
}

function status(kind: string): SubresourceType {
  return { name: 'status', kind, verbs: STATUS_VERBS };
}

/** Built-in resources served by the sim, with the discovery values of kube-apiserver 1.32. */
export function builtinResourceTypes(): ResourceType[] {
  return [
    builtin({ group: '', version: 'v1', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap', namespaced: true, verbs: ALL_VERBS, shortNames: ['cm'] }),
    builtin({ group: '', version: 'v1', resource: 'events', singular: 'event', kind: 'Event', namespaced: true, verbs: ALL_VERBS, shortNames: ['ev'],
      emptyFields: { involvedObject: {}, reportingComponent: '', reportingInstance: '', source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null } }),
    builtin({ group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false, verbs: NO_DELETECOLLECTION, shortNames: ['ns'],
      subresources: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }, status('Namespace')], emptyFields: { spec: {}, status: {} } }),
    builtin({ group: '', version: 'v1', resource: 'nodes', singular: 'node', kind: 'Node', namespaced: false, verbs: ALL_VERBS, shortNames: ['no'],
      subresources: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }, status('Node')],
      emptyFields: { spec: {}, status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '' } } } }),
    builtin({ group: '', version: 'v1', resource: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, verbs: ALL_VERBS, shortNames: ['po'], categories: ['all'],
      subresources: [
        { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
        { name: 'binding', kind: 'Binding', verbs: ['create'] },
        { name: 'ephemeralcontainers', kind: 'Pod', verbs: STATUS_VERBS },
        { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
        { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
        { name: 'log', kind: 'Pod', verbs: ['get'] },
        { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
        { name: 'proxy', kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
        status('Pod'),
      ],
      emptyFields: { spec: { containers: null }, status: {} } }),
    builtin({ group: '', version: 'v1', resource: 'secrets', singular: 'secret', kind: 'Secret', namespaced: true, verbs: ALL_VERBS }),
    builtin({ group: '', version: 'v1', resource: 'services', singular: 'service', kind: 'Service', namespaced: true, verbs: ALL_VERBS, shortNames: ['svc'], categories: ['all'],
      subresources: [{ name: 'proxy', kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }, status('Service')],
      emptyFields: { spec: {}, status: { loadBalancer: {} } } }),
    builtin({ group: 'apps', version: 'v1', resource: 'deployments', singular: 'deployment', kind: 'Deployment', namespaced: true, verbs: ALL_VERBS, shortNames: ['deploy'], categories: ['all'],
      subresources: [{ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: STATUS_VERBS }, status('Deployment')],
      emptyFields: { spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} }, status: {} } }),
    builtin({ group: 'apps', version: 'v1', resource: 'replicasets', singular: 'replicaset', kind: 'ReplicaSet', namespaced: true, verbs: ALL_VERBS, shortNames: ['rs'], categories: ['all'],
      subresources: [{ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: STATUS_VERBS }, status('ReplicaSet')],
      emptyFields: { spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } } }, status: { replicas: 0 } } }),
    builtin({ group: 'batch', version: 'v1', resource: 'jobs', singular: 'job', kind: 'Job', namespaced: true, verbs: ALL_VERBS, categories: ['all'],
      subresources: [status('Job')], emptyFields: { spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: null } } }, status: {} } }),
    builtin({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease', namespaced: true, verbs: ALL_VERBS, emptyFields: { spec: {} } }),
    builtin({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', singular: 'customresourcedefinition', kind: 'CustomResourceDefinition', namespaced: false, verbs: ALL_VERBS, shortNames: ['crd', 'crds'], categories: ['api-extensions'],
      subresources: [status('CustomResourceDefinition')], emptyFields: { spec: { group: '', names: { plural: '', kind: '' }, scope: '', versions: null }, status: { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: null } } }),
    builtin({ group: 'events.k8s.io', version: 'v1', resource: 'events', singular: 'event', kind: 'Event', namespaced: true, verbs: ALL_VERBS, shortNames: ['ev'], emptyFields: { eventTime: null } }),
    ...moreResourceTypes(),
    ...platformResourceTypes(),
    ...revisionResourceTypes(),
    ...storageResourceTypes(),
    ...authResourceTypes(),
  ];
}

/** The group order of /apis on a real 1.32 server (groups the sim lacks are skipped). */
const GROUP_ORDER = KUBE_GROUP_ORDER;

interface CrdVersion { name: string; served?: boolean; storage?: boolean; subresources?: { status?: unknown; scale?: unknown }; schema?: { openAPIV3Schema?: unknown } }
interface CrdSpec { group: string; scope: string; names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] }; versions: CrdVersion[] }

/** The resource types a CustomResourceDefinition object defines (one per served version). */
export function resourceTypesFromCrd(crd: { metadata: { name?: string }; spec?: unknown }): ResourceType[] {
  const spec = crd.spec as CrdSpec;
  const names = spec.names;
  return spec.versions.filter((v) => v.served !== false).map((v) => {
    const subresources: SubresourceType[] = [];
    if (v.subresources?.status) subresources.push(status(names.kind));
    if (v.subresources?.scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: STATUS_VERBS });
    return {
      group: spec.group, version: v.name, resource: names.plural, singular: names.singular ?? names.kind.toLowerCase(), kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`, namespaced: spec.scope !== 'Cluster', verbs: ALL_VERBS,
      ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
      ...(names.categories?.length ? { categories: names.categories } : {}),
      subresources, hasStatusSubresource: subresources.some((s) => s.name === 'status'), crd: crd.metadata.name,
      ...(v.schema?.openAPIV3Schema ? { schema: v.schema.openAPIV3Schema } : {}),
    };
  });
}

/** Holds the served resource types; `generation` changes whenever the set changes (discovery ETags follow it). */
export class ResourceRegistry {
  private readonly byId = new Map<string, ResourceType>();
  private gen = 0;

  constructor(types: ResourceType[] = builtinResourceTypes()) {
    for (const t of types) this.byId.set(resourceId(t), t);
  }

  get generation(): number { return this.gen; }

  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byId.get(`${group}/${version}/${resource}`);
  }

  all(): ResourceType[] { return [...this.byId.values()]; }

  /** Group names in server order; versions in preferred-first order. */
  groups(): { name: string; versions: string[] }[] {
    const map = new Map<string, string[]>();
    for (const t of this.byId.values()) {
      const vs = map.get(t.group) ?? [];
      if (!vs.includes(t.version)) vs.push(t.version);
      map.set(t.group, vs);
    }
    const names = [...map.keys()].sort((a, b) => {
      const ia = GROUP_ORDER.indexOf(a), ib = GROUP_ORDER.indexOf(b);
      if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
      return a < b ? -1 : a > b ? 1 : 0;
    });
    return names.map((name) => ({ name, versions: sortVersions(map.get(name)!) }));
  }

  resourcesOf(group: string, version: string): ResourceType[] {
    return [...this.byId.values()].filter((t) => t.group === group && t.version === version).sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  /** Replaces the types defined by one CRD (an empty list removes them). */
  setCrdTypes(crdName: string, types: ResourceType[]): void {
    for (const [id, t] of this.byId) if (t.crd === crdName) this.byId.delete(id);
    for (const t of types) this.byId.set(resourceId(t), t);
    this.gen++;
  }

  /** Adds built-in types (the kinds a newer release serves; see kinds/versioned-kinds.ts). */
  addBuiltins(types: ResourceType[]): void {
    for (const t of types) this.byId.set(resourceId(t), t);
    this.gen++;
  }

  /** Adds types to those served under `crdName` (kinds kwatch serves schemaless, learnt one group at a time). */
  addCrdTypes(crdName: string, types: ResourceType[]): void {
    this.setCrdTypes(crdName, [...this.all().filter((t) => t.crd === crdName), ...types]);
  }
}

/** Kube version priority: GA > beta > alpha, higher numbers first, then other strings alphabetically. */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const level = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a), rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return (ra[i] as number) - (rb[i] as number);
    return ra[3] < rb[3] ? -1 : ra[3] > rb[3] ? 1 : 0;
  });
}
