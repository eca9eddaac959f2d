// The built-in kinds a release adds over 1.32, served (discovery and storage, no kind-specific validation or
// controllers) when the sim serves that release: networking.k8s.io/v1 ServiceCIDR and IPAddress (GA in 1.33),
// resource.k8s.io/v1 DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice (DRA, GA in 1.34) and
// storage.k8s.io/v1 VolumeAttributesClass (GA in 1.34).
import type { ResourceType, SubresourceType } from '../registry.js';
import { minorOf, type KubeVersion } from '../kube-version.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

function kind(t: { group: string; resource: string; singular: string; kind: string; namespaced: boolean; shortNames?: string[]; status?: boolean; emptyFields?: Record<string, unknown> }): ResourceType {
  const subresources: SubresourceType[] = t.status ? [{ name: 'status', kind: t.kind, verbs: STATUS_VERBS }] : [];
  return {
    group: t.group, version: 'v1', resource: t.resource, singular: t.singular, kind: t.kind, listKind: `${t.kind}List`, namespaced: t.namespaced,
    verbs: ALL_VERBS, ...(t.shortNames ? { shortNames: t.shortNames } : {}), subresources, hasStatusSubresource: subresources.length > 0,
    ...(t.emptyFields ? { emptyFields: t.emptyFields } : {}),
  };
}

/** Subresources `v` adds to 1.32's kinds: pods/resize from 1.33 (in-place pod resize). */
export function addVersionedSubresources(types: ResourceType[], v: KubeVersion): void {
  if (minorOf(v) < 33) return;
  const pods = types.find((t) => t.group === '' && t.resource === 'pods');
  if (pods && !pods.subresources.some((s) => s.name === 'resize')) {
    pods.subresources.push({ name: 'resize', kind: 'Pod', verbs: STATUS_VERBS });
    pods.subresources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** The kinds `v` serves beyond 1.32's. */
export function kindsAddedBy(v: KubeVersion): ResourceType[] {
  const out: ResourceType[] = [];
  if (minorOf(v) >= 33) {
    out.push(
      kind({ group: 'networking.k8s.io', resource: 'servicecidrs', singular: 'servicecidr', kind: 'ServiceCIDR', namespaced: false, status: true, emptyFields: { spec: {}, status: {} } }),
      kind({ group: 'networking.k8s.io', resource: 'ipaddresses', singular: 'ipaddress', kind: 'IPAddress', namespaced: false, shortNames: ['ip'], emptyFields: { spec: { parentRef: null } } }),
    );
  }
  if (minorOf(v) >= 34) {
    out.push(
      kind({ group: 'resource.k8s.io', resource: 'deviceclasses', singular: 'deviceclass', kind: 'DeviceClass', namespaced: false, emptyFields: { spec: {} } }),
      kind({ group: 'resource.k8s.io', resource: 'resourceclaims', singular: 'resourceclaim', kind: 'ResourceClaim', namespaced: true, status: true, emptyFields: { spec: { devices: {} }, status: {} } }),
      kind({ group: 'resource.k8s.io', resource: 'resourceclaimtemplates', singular: 'resourceclaimtemplate', kind: 'ResourceClaimTemplate', namespaced: true, emptyFields: { spec: { spec: { devices: {} } } } }),
      kind({ group: 'resource.k8s.io', resource: 'resourceslices', singular: 'resourceslice', kind: 'ResourceSlice', namespaced: false, emptyFields: { spec: { driver: '', pool: { name: '', generation: 0, resourceSliceCount: 0 } } } }),
      kind({ group: 'storage.k8s.io', resource: 'volumeattributesclasses', singular: 'volumeattributesclass', kind: 'VolumeAttributesClass', namespaced: false, shortNames: ['vac'], emptyFields: { driverName: '' } }),
    );
  }
  return out;
}
