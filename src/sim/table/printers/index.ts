// Picks the printer for a resource type: kube's built-in printers by group/resource, the CRD's columns for custom resources.
import type { ResourceType } from '../../registry.js';
import type { SimStore } from '../../store.js';
import type { Printer } from '../printer.js';
import { deploymentPrinter, replicaSetPrinter } from './apps.js';
import { configMapPrinter, secretPrinter } from './config.js';
import { controllerRevisionPrinter } from './controller-revision.js';
import { customResourcePrinter, type PrinterColumn } from './custom-resource.js';
import { defaultPrinter } from './default.js';
import { eventPrinter } from './event.js';
import { jobPrinter } from './job.js';
import { leasePrinter } from './lease.js';
import { namespacePrinter } from './namespace.js';
import { nodePrinter } from './node.js';
import { podPrinter } from './pod.js';
import { servicePrinter } from './service.js';
import { endpointSlicePrinter, endpointsPrinter, ingressClassPrinter, ingressPrinter } from './network.js';
import { podDisruptionBudgetPrinter, resourceQuotaPrinter } from './policy.js';
import { PLATFORM_PRINTERS } from './platform.js';
import { roleBindingPrinter, serviceAccountPrinter } from './rbac.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from './storage.js';
import { csiDriverPrinter, csiNodePrinter, csiStorageCapacityPrinter, storageClassPrinter, volumeAttachmentPrinter } from './storage-classes.js';
import { cronJobPrinter, daemonSetPrinter, replicationControllerPrinter, statefulSetPrinter } from './workloads.js';

// Roles, ClusterRoles and LimitRanges have no printer in kube: the default one (NAME, CREATED AT) serves them.
const BUILTIN: Record<string, Printer> = {
  '/pods': podPrinter,
  '/nodes': nodePrinter,
  '/namespaces': namespacePrinter,
  '/services': servicePrinter,
  '/configmaps': configMapPrinter,
  '/secrets': secretPrinter,
  '/events': eventPrinter,
  'events.k8s.io/events': eventPrinter,
  'apps/deployments': deploymentPrinter,
  'apps/replicasets': replicaSetPrinter,
  'batch/jobs': jobPrinter,
  'coordination.k8s.io/leases': leasePrinter,
  'apps/statefulsets': statefulSetPrinter,
  'apps/daemonsets': daemonSetPrinter,
  'apps/controllerrevisions': controllerRevisionPrinter,
  '/replicationcontrollers': replicationControllerPrinter,
  'batch/cronjobs': cronJobPrinter,
  '/serviceaccounts': serviceAccountPrinter,
  'rbac.authorization.k8s.io/rolebindings': roleBindingPrinter,
  'rbac.authorization.k8s.io/clusterrolebindings': roleBindingPrinter,
  'networking.k8s.io/ingresses': ingressPrinter,
  'networking.k8s.io/ingressclasses': ingressClassPrinter,
  '/endpoints': endpointsPrinter,
  'discovery.k8s.io/endpointslices': endpointSlicePrinter,
  '/persistentvolumeclaims': persistentVolumeClaimPrinter,
  '/persistentvolumes': persistentVolumePrinter,
  '/resourcequotas': resourceQuotaPrinter,
  'policy/poddisruptionbudgets': podDisruptionBudgetPrinter,
  ...PLATFORM_PRINTERS,
  'storage.k8s.io/storageclasses': storageClassPrinter,
  'storage.k8s.io/csidrivers': csiDriverPrinter,
  'storage.k8s.io/csinodes': csiNodePrinter,
  'storage.k8s.io/volumeattachments': volumeAttachmentPrinter,
  'storage.k8s.io/csistoragecapacities': csiStorageCapacityPrinter,
};

export function printerFor(store: SimStore, type: ResourceType): Printer {
  if (type.crd !== undefined) return customResourcePrinter(printerColumnsOf(store, type));
  return BUILTIN[`${type.group}/${type.resource}`] ?? defaultPrinter;
}

/** The additionalPrinterColumns of the served version, read from the stored CRD (they can change with every CRD update). */
function printerColumnsOf(store: SimStore, type: ResourceType): PrinterColumn[] | undefined {
  const crdType = store.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  const crd = crdType && store.getStored(crdType, undefined, type.crd!)?.obj;
  const versions = (crd?.spec as { versions?: { name?: string; additionalPrinterColumns?: PrinterColumn[] }[] } | undefined)?.versions ?? [];
  return versions.find((v) => v.name === type.version)?.additionalPrinterColumns;
}
