// Protobuf schemas of the messages kubectl's typed commands send for the kinds in kinds/platform-kinds.ts:
// autoscaling/v1 HorizontalPodAutoscaler (`kubectl autoscale`), scheduling/v1 PriorityClass (`kubectl create
// priorityclass`) and certificates/v1 CertificateSigningRequest (`kubectl certificate approve|deny`). Field numbers
// and types are those of k8s.io/api v0.32's generated.proto files; a CSR's spec.extra (map of string lists) has no
// schema here and is refused with a 415. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const PLATFORM_MESSAGES: ProtoPackage[] = [
  {
    package: 'k8s.io.api.autoscaling.v1',
    messages: {
      HorizontalPodAutoscaler: `
        1 metadata ObjectMeta
        2 spec HorizontalPodAutoscalerSpec
        3 status HorizontalPodAutoscalerStatus`,
      HorizontalPodAutoscalerSpec: `
        1 scaleTargetRef CrossVersionObjectReference
        2 minReplicas int32 ptr
        3 maxReplicas int32 req
        4 targetCPUUtilizationPercentage int32 ptr`,
      CrossVersionObjectReference: `
        1 kind string req
        2 name string req
        3 apiVersion string`,
      HorizontalPodAutoscalerStatus: `
        1 observedGeneration int64 ptr
        2 lastScaleTime Time
        3 currentReplicas int32 req
        4 desiredReplicas int32 req
        5 currentCPUUtilizationPercentage int32 ptr`,
    },
  },
  {
    package: 'k8s.io.api.scheduling.v1',
    messages: {
      PriorityClass: `
        1 metadata ObjectMeta
        2 value int32 req
        3 globalDefault bool
        4 description string
        5 preemptionPolicy string ptr`,
    },
  },
  {
    package: 'k8s.io.api.certificates.v1',
    messages: {
      CertificateSigningRequest: `
        1 metadata ObjectMeta
        2 spec CertificateSigningRequestSpec
        3 status CertificateSigningRequestStatus`,
      CertificateSigningRequestSpec: `
        1 request bytes req
        2 username string
        3 uid string
        4 groups string[]
        5 usages string[]
        7 signerName string req
        8 expirationSeconds int32 ptr`,
      CertificateSigningRequestStatus: `
        1 conditions CertificateSigningRequestCondition[]
        2 certificate bytes`,
      CertificateSigningRequestCondition: `
        1 type string req
        2 reason string
        3 message string
        4 lastUpdateTime Time
        5 lastTransitionTime Time
        6 status string req`,
    },
  },
];

export const PLATFORM_OBJECT_KINDS: Record<string, string> = {
  'autoscaling/v1/HorizontalPodAutoscaler': 'HorizontalPodAutoscaler',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'CertificateSigningRequest',
  'scheduling.k8s.io/v1/PriorityClass': 'PriorityClass',
};
