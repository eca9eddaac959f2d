// Protobuf schemas of the batch/v1 messages the sim decodes: Job (its pod template is a core/v1 message). Field
// numbers and types are those of k8s.io/api v0.32 batch/v1/generated.proto, as registered in kubectl 1.32's binary;
// pointer-ness (ptr) and req (Go fields without omitempty) follow batch/v1/types.go. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const BATCH_V1_MESSAGES: ProtoPackage = {
  package: 'k8s.io.api.batch.v1',
  messages: {
    Job: `
      1 metadata ObjectMeta
      2 spec JobSpec
      3 status JobStatus`,
    JobSpec: `
      1 parallelism int32 ptr
      2 completions int32 ptr
      3 activeDeadlineSeconds int64 ptr
      4 selector LabelSelector
      5 manualSelector bool ptr
      6 template PodTemplateSpec
      7 backoffLimit int32 ptr
      8 ttlSecondsAfterFinished int32 ptr
      9 completionMode string ptr
      10 suspend bool ptr
      11 podFailurePolicy PodFailurePolicy
      12 backoffLimitPerIndex int32 ptr
      13 maxFailedIndexes int32 ptr
      14 podReplacementPolicy string ptr
      15 managedBy string ptr
      16 successPolicy SuccessPolicy`,
    PodFailurePolicy: `
      1 rules PodFailurePolicyRule[]`,
    PodFailurePolicyRule: `
      1 action string req
      2 onExitCodes PodFailurePolicyOnExitCodesRequirement
      3 onPodConditions PodFailurePolicyOnPodConditionsPattern[]`,
    PodFailurePolicyOnExitCodesRequirement: `
      1 containerName string ptr
      2 operator string req
      3 values int32[]`,
    PodFailurePolicyOnPodConditionsPattern: `
      1 type string req
      2 status string req`,
    SuccessPolicy: `
      1 rules SuccessPolicyRule[]`,
    SuccessPolicyRule: `
      1 succeededIndexes string ptr
      2 succeededCount int32 ptr`,
    JobStatus: `
      1 conditions JobCondition[]
      2 startTime Time
      3 completionTime Time
      4 active int32
      5 succeeded int32
      6 failed int32
      7 completedIndexes string
      8 uncountedTerminatedPods UncountedTerminatedPods
      9 ready int32 ptr
      10 failedIndexes string ptr
      11 terminating int32 ptr`,
    JobCondition: `
      1 type string req
      2 status string req
      3 lastProbeTime Time
      4 lastTransitionTime Time
      5 reason string
      6 message string`,
    UncountedTerminatedPods: `
      1 succeeded string[]
      2 failed string[]`,
  },
};
