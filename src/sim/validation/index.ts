// Validation of client writes (create, update, patch, apply, status, scale), per kind, as kube-apiserver 1.32's
// strategies run it on the object about to be stored: a write kube would refuse gets its 422 and stores nothing.
// The sim's own controllers and workload generator write in-process and are not validated.
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import { invalid, type FieldError } from '../status.js';
import { validateDeploymentStrategy } from './deployment-strategy.js';
import { validateConfigMap, validateSecret } from './config-data.js';
import { validateJob } from './job.js';
import { validateMetadataMaps } from './object-meta.js';
import { validatePodCreate, validatePodUpdate } from './pod.js';
import { selectorImmutable, validateReplicatedSpec } from './replicated-spec.js';
import { moreKindErrors } from '../kinds/validation.js';
import { endpointSliceAddressErrors, endpointsAddressErrors } from './endpoint-addresses.js';
import { validateCustomResource, type StructuralSchema } from './custom-resource.js';
import { validateResourceQuota, validateResourceQuotaStatus } from './resource-quota.js';
import { csrConditions, platformKindErrors } from '../kinds/platform-validation.js';
import { admitPlatformWrite, isCsrType, type AdmissionReads } from '../kinds/platform-admission.js';

type Json = Record<string, unknown>;
export type WriteValidator = (prev: SimObject | undefined, next: SimObject) => void;

const isQuotaType = (type: ResourceType): boolean => type.group === '' && type.resource === 'resourcequotas';

function fieldErrors(type: ResourceType, next: Json, prev: Json | undefined, subresource: string): FieldError[] {
  // Status and finalize writes keep the stored spec and metadata maps; kube's status strategies check only the status.
  if (subresource !== 'main') {
    if (isQuotaType(type)) return subresource === 'status' ? validateResourceQuotaStatus(next) : [];
    return isCsrType(type) ? csrConditions(next, prev) : [];
  }
  return [...validateMetadataMaps(next.metadata, 'metadata'), ...kindErrors(type, next, prev)];
}

function kindErrors(type: ResourceType, next: Json, prev: Json | undefined): FieldError[] {
  const kind = `${type.group}/${type.resource}`;
  switch (kind) {
    case 'apps/deployments':
      return [...validateReplicatedSpec(next), ...validateDeploymentStrategy(next), ...(prev ? selectorImmutable(next, prev) : [])];
    case 'apps/replicasets':
      return [...validateReplicatedSpec(next), ...(prev ? selectorImmutable(next, prev) : [])];
    case 'batch/jobs':
      return validateJob(next, prev);
    case '/pods':
      return prev ? validatePodUpdate(next, prev) : validatePodCreate(next);
    case '/configmaps':
      return validateConfigMap(next, prev);
    case '/secrets':
      return validateSecret(next, prev);
    case '/resourcequotas':
      return validateResourceQuota(next, prev);
    case '/endpoints':
      return [...moreKindErrors(type.group, type.resource, next, prev), ...platformKindErrors(type.group, type.resource, next, prev), ...endpointsAddressErrors(next)];
    case 'discovery.k8s.io/endpointslices':
      return [...moreKindErrors(type.group, type.resource, next, prev), ...platformKindErrors(type.group, type.resource, next, prev), ...endpointSliceAddressErrors(next)];
    default:
      return type.crd === undefined ? [...moreKindErrors(type.group, type.resource, next, prev), ...platformKindErrors(type.group, type.resource, next, prev)] : validateCustomResource(type.schema as StructuralSchema | undefined, next);
  }
}

/**
 * The store's validate hook for one client write; throws kube's 422 Invalid Status, then (given the store's reads)
 * the 403 of an admission plugin that refuses it.
 */
export function writeValidator(type: ResourceType, subresource: 'main' | 'status' | 'finalize' | 'resize' = 'main', reads?: AdmissionReads): WriteValidator {
  return (prev, next) => {
    const errs = fieldErrors(type, next as unknown as Json, prev as unknown as Json | undefined, subresource);
    if (errs.length) throw invalid(type.kind, type.group, next.metadata.name ?? '', errs);
    if (reads && subresource === 'main') admitPlatformWrite(reads, type, next);
  };
}
