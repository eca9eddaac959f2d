// The platform kinds of kube 1.32 that controllers read or write beside workloads: autoscaling (HPA, served as v2
// and v1 from one storage), NetworkPolicy, PriorityClass, admission registration (webhook configurations and
// ValidatingAdmissionPolicy), CertificateSigningRequest, API priority and fairness, RuntimeClass and APIService, with
// kube-apiserver 1.32's discovery values. The sim calls no webhooks, evaluates no CEL, signs no certificate and
// scales nothing from an HPA: these kinds are stored, defaulted and validated, and printed with kube's columns.
import type { ResourceType, SubresourceType } from '../registry.js';

// registry.ts's ALL_VERBS (not imported: registry.ts imports this file).
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];
const status = (kind: string): SubresourceType => ({ name: 'status', kind, verbs: SUB_VERBS });

type Entry = Omit<ResourceType, 'listKind' | 'subresources' | 'hasStatusSubresource' | 'verbs'> & { subresources?: SubresourceType[] };

function kind(t: Entry): ResourceType {
  const subresources = t.subresources ?? [];
  return { ...t, verbs: ALL_VERBS, listKind: `${t.kind}List`, subresources, hasStatusSubresource: subresources.some((s) => s.name === 'status') };
}

const HPA_V2_EMPTY = { spec: { scaleTargetRef: { kind: '', name: '' }, maxReplicas: 0 }, status: { desiredReplicas: 0 } };
const HPA_V1_EMPTY = { spec: { scaleTargetRef: { kind: '', name: '' }, maxReplicas: 0 }, status: { currentReplicas: 0, desiredReplicas: 0 } };

export function platformResourceTypes(): ResourceType[] {
  const hpa = (version: string, emptyFields: Record<string, unknown>): ResourceType => kind({
    group: 'autoscaling', version, resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', kind: 'HorizontalPodAutoscaler',
    namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: [status('HorizontalPodAutoscaler')], emptyFields,
  });
  const admission = 'admissionregistration.k8s.io';
  const flow = 'flowcontrol.apiserver.k8s.io';
  return [
    hpa('v2', HPA_V2_EMPTY),
    hpa('v1', HPA_V1_EMPTY),
    kind({ group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', singular: 'networkpolicy', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'], emptyFields: { spec: { podSelector: {} } } }),
    kind({ group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', singular: 'priorityclass', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'], emptyFields: { value: 0 } }),
    kind({ group: admission, version: 'v1', resource: 'mutatingwebhookconfigurations', singular: 'mutatingwebhookconfiguration', kind: 'MutatingWebhookConfiguration', namespaced: false, categories: ['api-extensions'] }),
    kind({ group: admission, version: 'v1', resource: 'validatingwebhookconfigurations', singular: 'validatingwebhookconfiguration', kind: 'ValidatingWebhookConfiguration', namespaced: false, categories: ['api-extensions'] }),
    kind({ group: admission, version: 'v1', resource: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy', kind: 'ValidatingAdmissionPolicy', namespaced: false, categories: ['api-extensions'],
      subresources: [status('ValidatingAdmissionPolicy')], emptyFields: { spec: {}, status: {} } }),
    kind({ group: admission, version: 'v1', resource: 'validatingadmissionpolicybindings', singular: 'validatingadmissionpolicybinding', kind: 'ValidatingAdmissionPolicyBinding', namespaced: false, categories: ['api-extensions'], emptyFields: { spec: {} } }),
    kind({ group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', singular: 'certificatesigningrequest', kind: 'CertificateSigningRequest', namespaced: false, shortNames: ['csr'],
      subresources: [{ name: 'approval', kind: 'CertificateSigningRequest', verbs: SUB_VERBS }, status('CertificateSigningRequest')], emptyFields: { spec: { request: null, signerName: '' }, status: {} } }),
    kind({ group: flow, version: 'v1', resource: 'flowschemas', singular: 'flowschema', kind: 'FlowSchema', namespaced: false,
      subresources: [status('FlowSchema')], emptyFields: { spec: { priorityLevelConfiguration: { name: '' } }, status: {} } }),
    kind({ group: flow, version: 'v1', resource: 'prioritylevelconfigurations', singular: 'prioritylevelconfiguration', kind: 'PriorityLevelConfiguration', namespaced: false,
      subresources: [status('PriorityLevelConfiguration')], emptyFields: { spec: { type: '' }, status: {} } }),
    kind({ group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', singular: 'runtimeclass', kind: 'RuntimeClass', namespaced: false, emptyFields: { handler: '' } }),
    kind({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', singular: 'apiservice', kind: 'APIService', namespaced: false, categories: ['api-extensions'],
      subresources: [status('APIService')], emptyFields: { spec: { groupPriorityMinimum: 0, versionPriority: 0 }, status: {} } }),
  ];
}

/**
 * The order of /apis on a 1.32 server: kube-aggregator's group priorities (apiregistration.k8s.io first, then the
 * groups by descending GroupPriorityMinimum). Groups the sim does not serve are skipped when sorting.
 */
export const KUBE_GROUP_ORDER = [
  '', 'apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch',
  'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io',
  'apiextensions.k8s.io', 'scheduling.k8s.io', 'coordination.k8s.io', 'node.k8s.io', 'discovery.k8s.io', 'flowcontrol.apiserver.k8s.io',
];
