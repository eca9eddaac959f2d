// Protobuf schemas of the apimachinery messages the sim decodes (packages meta/v1, api/resource, util/intstr).
// Field numbers, types and pointer-ness (ptr) are those of k8s.io/apimachinery v0.32 generated.proto; the JSON
// shapes of Time, MicroTime, Quantity, IntOrString and FieldsV1 are custom (see well-known.ts). Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const APIMACHINERY_MESSAGES: ProtoPackage[] = [
  {
    package: 'k8s.io.apimachinery.pkg.apis.meta.v1',
    messages: {
      ObjectMeta: `
        1 name string
        2 generateName string
        3 namespace string
        4 selfLink string
        5 uid string
        6 resourceVersion string
        7 generation int64
        8 creationTimestamp Time
        9 deletionTimestamp Time
        10 deletionGracePeriodSeconds int64 ptr
        11 labels map<string>
        12 annotations map<string>
        13 ownerReferences OwnerReference[]
        14 finalizers string[]
        17 managedFields ManagedFieldsEntry[]`,
      OwnerReference: `
        1 kind string req
        3 name string req
        4 uid string req
        5 apiVersion string req
        6 controller bool ptr
        7 blockOwnerDeletion bool ptr`,
      ManagedFieldsEntry: `
        1 manager string
        2 operation string
        3 apiVersion string
        4 time Time
        6 fieldsType string
        7 fieldsV1 FieldsV1
        8 subresource string`,
      FieldsV1: `
        1 Raw bytes ptr`,
      Time: `
        1 seconds int64
        2 nanos int32`,
      MicroTime: `
        1 seconds int64
        2 nanos int32`,
      LabelSelector: `
        1 matchLabels map<string>
        2 matchExpressions LabelSelectorRequirement[]`,
      LabelSelectorRequirement: `
        1 key string req
        2 operator string req
        3 values string[]`,
      Condition: `
        1 type string req
        2 status string req
        3 observedGeneration int64
        4 lastTransitionTime Time
        5 reason string req
        6 message string req`,
      DeleteOptions: `
        1 gracePeriodSeconds int64 ptr
        2 preconditions Preconditions
        3 orphanDependents bool ptr
        4 propagationPolicy string ptr
        5 dryRun string[]
        6 ignoreStoreReadErrorWithClusterBreakingPotential bool ptr`,
      ListMeta: `
        1 selfLink string
        2 resourceVersion string
        3 continue string
        4 remainingItemCount int64 ptr`,
      Status: `
        1 metadata ListMeta
        2 status string
        3 message string
        4 reason string
        5 details StatusDetails
        6 code int32`,
      StatusDetails: `
        1 name string
        2 group string
        3 kind string
        4 causes StatusCause[]
        5 uid string
        6 retryAfterSeconds int32`,
      StatusCause: `
        1 reason string
        2 message string
        3 field string`,
      Preconditions: `
        1 uid string ptr
        2 resourceVersion string ptr`,
    },
  },
  {
    package: 'k8s.io.apimachinery.pkg.api.resource',
    messages: {
      Quantity: `
        1 string string ptr`,
    },
  },
  {
    package: 'k8s.io.apimachinery.pkg.util.intstr',
    messages: {
      IntOrString: `
        1 type int64
        2 intVal int32
        3 strVal string`,
    },
  },
];
