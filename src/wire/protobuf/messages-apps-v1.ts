// Protobuf schemas of the apps/v1 messages the sim decodes: Deployment and ReplicaSet (their pod templates are
// core/v1 messages). Field numbers, types and pointer-ness (ptr) are those of k8s.io/api v0.32
// apps/v1/generated.proto; req marks Go fields without omitempty. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const APPS_V1_MESSAGES: ProtoPackage = {
  package: 'k8s.io.api.apps.v1',
  messages: {
    Deployment: `
      1 metadata ObjectMeta
      2 spec DeploymentSpec
      3 status DeploymentStatus`,
    DeploymentSpec: `
      1 replicas int32 ptr
      2 selector LabelSelector
      3 template PodTemplateSpec
      4 strategy DeploymentStrategy
      5 minReadySeconds int32
      6 revisionHistoryLimit int32 ptr
      7 paused bool
      9 progressDeadlineSeconds int32 ptr`,
    DeploymentStrategy: `
      1 type string
      2 rollingUpdate RollingUpdateDeployment`,
    RollingUpdateDeployment: `
      1 maxUnavailable IntOrString
      2 maxSurge IntOrString`,
    DeploymentStatus: `
      1 observedGeneration int64
      2 replicas int32
      3 updatedReplicas int32
      4 availableReplicas int32
      5 unavailableReplicas int32
      6 conditions DeploymentCondition[]
      7 readyReplicas int32
      8 collisionCount int32 ptr`,
    DeploymentCondition: `
      1 type string req
      2 status string req
      4 reason string
      5 message string
      6 lastUpdateTime Time
      7 lastTransitionTime Time`,
    ReplicaSet: `
      1 metadata ObjectMeta
      2 spec ReplicaSetSpec
      3 status ReplicaSetStatus`,
    ReplicaSetSpec: `
      1 replicas int32 ptr
      2 selector LabelSelector
      3 template PodTemplateSpec
      4 minReadySeconds int32`,
    ReplicaSetStatus: `
      1 replicas int32 req
      2 fullyLabeledReplicas int32
      3 observedGeneration int64
      4 readyReplicas int32
      5 availableReplicas int32
      6 conditions ReplicaSetCondition[]`,
    ReplicaSetCondition: `
      1 type string req
      2 status string req
      3 lastTransitionTime Time
      4 reason string
      5 message string`,
  },
};
