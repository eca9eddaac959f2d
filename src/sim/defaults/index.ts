// Defaulting on every write, per kind, as kube-apiserver 1.32 decodes and admits objects: what SetDefaults_* fill in
// (every create, update and patch), what admission and the registries add on create, and service allocations.
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import { defaultDeploymentSpec } from '../deployment-defaults.js';
import { admitPod, defaultPod } from './pod.js';
import { defaultPodTemplateOf } from './pod-template.js';
import { allocateServiceAddresses, defaultServiceSpec } from './service.js';
import type { TakenAddresses } from './service-addresses.js';
import { defaultCustomResource } from './custom-resource.js';
import type { StructuralSchema } from '../validation/custom-resource.js';

/** What defaulting may need from the store: the allocations of the other services. */
export interface DefaultsContext {
  takenServiceAddresses?: (except: SimObject) => TakenAddresses;
}

/** Defaults of every write of a kind (create and update); `prev` is the stored object on update. */
export function defaultOnWrite(type: ResourceType, obj: SimObject, prev: SimObject | undefined, ctx: DefaultsContext = {}): void {
  if (type.crd !== undefined) return defaultCustomResource(type.schema as StructuralSchema | undefined, obj as unknown as Record<string, unknown>);
  if (type.group === 'apps' && type.resource === 'deployments') obj.spec = defaultDeploymentSpec(obj.spec);
  defaultPodTemplateOf(type, obj);
  if (type.group !== '') return;
  if (type.resource === 'pods') defaultPod(obj);
  else if (type.resource === 'services') {
    obj.spec = defaultServiceSpec(obj.spec);
    allocateServiceAddresses(obj, prev, () => ctx.takenServiceAddresses?.(obj) ?? { hasIp: () => false, hasNodePort: () => false });
  }
}

/** What admission adds to a pod on create (service account token, tolerations, priority, QoS class). */
export function admitOnCreate(type: ResourceType, obj: SimObject, randomSuffix: () => string): void {
  if (type.group === '' && type.resource === 'pods') admitPod(obj, randomSuffix);
}
