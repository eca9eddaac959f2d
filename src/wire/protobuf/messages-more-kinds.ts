// Protobuf schemas of the messages kubectl's typed commands and drain send for the kinds in kinds/resource-types.ts:
// policy/v1 Eviction and PodDisruptionBudget, core/v1 Binding, ServiceAccount and ResourceQuota, rbac/v1 roles and
// bindings, networking/v1 Ingress, batch/v1 CronJob. Field numbers and types are those of k8s.io/api v0.32's generated.proto files. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const MORE_KINDS_MESSAGES: ProtoPackage[] = [
  {
    package: 'k8s.io.api.policy.v1',
    messages: {
      Eviction: `
        1 metadata ObjectMeta
        2 deleteOptions DeleteOptions`,
      PodDisruptionBudget: `
        1 metadata ObjectMeta
        2 spec PodDisruptionBudgetSpec
        3 status PodDisruptionBudgetStatus`,
      PodDisruptionBudgetSpec: `
        1 minAvailable IntOrString
        2 selector LabelSelector
        3 maxUnavailable IntOrString
        4 unhealthyPodEvictionPolicy string ptr`,
      PodDisruptionBudgetStatus: `
        1 observedGeneration int64
        2 disruptedPods map<Time>
        3 disruptionsAllowed int32 req
        4 currentHealthy int32 req
        5 desiredHealthy int32 req
        6 expectedPods int32 req
        7 conditions Condition[]`,
    },
  },
  {
    package: 'k8s.io.api.core.v1',
    messages: {
      Binding: `
        1 metadata ObjectMeta
        2 target ObjectReference`,
      ObjectReference: `
        1 kind string
        2 namespace string
        3 name string
        4 uid string
        5 apiVersion string
        6 resourceVersion string
        7 fieldPath string`,
      ServiceAccount: `
        1 metadata ObjectMeta
        2 secrets ObjectReference[]
        3 imagePullSecrets LocalObjectReference[]
        4 automountServiceAccountToken bool ptr`,
      ResourceQuota: `
        1 metadata ObjectMeta
        2 spec ResourceQuotaSpec
        3 status ResourceQuotaStatus`,
      ResourceQuotaSpec: `
        1 hard map<Quantity>
        2 scopes string[]
        3 scopeSelector ScopeSelector`,
      ScopeSelector: `
        1 matchExpressions ScopedResourceSelectorRequirement[]`,
      ScopedResourceSelectorRequirement: `
        1 scopeName string req
        2 operator string req
        3 values string[]`,
      ResourceQuotaStatus: `
        1 hard map<Quantity>
        2 used map<Quantity>`,
    },
  },
  {
    package: 'k8s.io.api.rbac.v1',
    messages: {
      Role: `
        1 metadata ObjectMeta
        2 rules PolicyRule[]`,
      ClusterRole: `
        1 metadata ObjectMeta
        2 rules PolicyRule[]
        3 aggregationRule AggregationRule`,
      PolicyRule: `
        1 verbs string[]
        2 apiGroups string[]
        3 resources string[]
        4 resourceNames string[]
        5 nonResourceURLs string[]`,
      AggregationRule: `
        1 clusterRoleSelectors LabelSelector[]`,
      RoleBinding: `
        1 metadata ObjectMeta
        2 subjects Subject[]
        3 roleRef RoleRef`,
      ClusterRoleBinding: `
        1 metadata ObjectMeta
        2 subjects Subject[]
        3 roleRef RoleRef`,
      Subject: `
        1 kind string req
        2 apiGroup string
        3 name string req
        4 namespace string`,
      RoleRef: `
        1 apiGroup string req
        2 kind string req
        3 name string req`,
    },
  },
  {
    package: 'k8s.io.api.batch.v1',
    messages: {
      CronJob: `
        1 metadata ObjectMeta
        2 spec CronJobSpec
        3 status CronJobStatus`,
      CronJobSpec: `
        1 schedule string req
        2 startingDeadlineSeconds int64 ptr
        3 concurrencyPolicy string
        4 suspend bool ptr
        5 jobTemplate JobTemplateSpec
        6 successfulJobsHistoryLimit int32 ptr
        7 failedJobsHistoryLimit int32 ptr
        8 timeZone string ptr`,
      JobTemplateSpec: `
        1 metadata ObjectMeta
        2 spec JobSpec`,
      CronJobStatus: `
        1 active ObjectReference[]
        4 lastScheduleTime Time
        5 lastSuccessfulTime Time`,
    },
  },
  {
    package: 'k8s.io.api.networking.v1',
    messages: {
      Ingress: `
        1 metadata ObjectMeta
        2 spec IngressSpec
        3 status IngressStatus`,
      IngressSpec: `
        1 defaultBackend IngressBackend
        2 tls IngressTLS[]
        3 rules IngressRule[]
        4 ingressClassName string ptr`,
      IngressBackend: `
        3 resource TypedLocalObjectReference
        4 service IngressServiceBackend`,
      IngressServiceBackend: `
        1 name string req
        2 port ServiceBackendPort`,
      ServiceBackendPort: `
        1 name string
        2 number int32`,
      IngressTLS: `
        1 hosts string[]
        2 secretName string`,
      IngressRule: `
        1 host string
        2 ingressRuleValue IngressRuleValue inline`,
      IngressRuleValue: `
        1 http HTTPIngressRuleValue`,
      HTTPIngressRuleValue: `
        1 paths HTTPIngressPath[]`,
      HTTPIngressPath: `
        1 path string
        2 backend IngressBackend
        3 pathType string ptr`,
      IngressStatus: `
        1 loadBalancer IngressLoadBalancerStatus`,
      IngressLoadBalancerStatus: `
        1 ingress IngressLoadBalancerIngress[]`,
      IngressLoadBalancerIngress: `
        1 ip string
        2 hostname string
        4 ports IngressPortStatus[]`,
      IngressPortStatus: `
        1 port int32 req
        2 protocol string req
        3 error string ptr`,
    },
  },
];

/** The top-level kinds these schemas decode, by `apiVersion/kind` (schema.ts's OBJECT_KINDS format). */
export const MORE_OBJECT_KINDS: Record<string, string> = {
  'policy/v1/Eviction': 'Eviction',
  'policy/v1/PodDisruptionBudget': 'PodDisruptionBudget',
  'v1/Binding': 'Binding',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/ResourceQuota': 'ResourceQuota',
  'rbac.authorization.k8s.io/v1/Role': 'Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'ClusterRoleBinding',
  'networking.k8s.io/v1/Ingress': 'Ingress',
  'batch/v1/CronJob': 'CronJob',
};
