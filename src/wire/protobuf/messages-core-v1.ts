// Protobuf schemas of the core/v1 messages the sim decodes: Namespace, ConfigMap, Secret, Service, Pod and what
// they contain. Field numbers, types and pointer-ness (ptr) are those of k8s.io/api v0.32 core/v1/generated.proto;
// req marks Go fields without omitempty. Left out (a body using them gets 415): the in-tree volume plugins other
// than hostPath, emptyDir, secret, configMap, nfs, persistentVolumeClaim, downwardAPI, projected, csi, ephemeral and
// image; ephemeral containers; the kubelet-only parts of PodStatus. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const CORE_V1_MESSAGES: ProtoPackage = {
  package: 'k8s.io.api.core.v1',
  messages: {
    Namespace: `
      1 metadata ObjectMeta
      2 spec NamespaceSpec
      3 status NamespaceStatus`,
    NamespaceSpec: `
      1 finalizers string[]`,
    NamespaceStatus: `
      1 phase string
      2 conditions NamespaceCondition[]`,
    NamespaceCondition: `
      1 type string req
      2 status string req
      4 lastTransitionTime Time
      5 reason string
      6 message string`,
    ConfigMap: `
      1 metadata ObjectMeta
      2 data map<string>
      3 binaryData map<bytes>
      4 immutable bool ptr`,
    Secret: `
      1 metadata ObjectMeta
      2 data map<bytes>
      3 type string
      4 stringData map<string>
      5 immutable bool ptr`,
    Service: `
      1 metadata ObjectMeta
      2 spec ServiceSpec
      3 status ServiceStatus`,
    ServiceSpec: `
      1 ports ServicePort[]
      2 selector map<string>
      3 clusterIP string
      4 type string
      5 externalIPs string[]
      7 sessionAffinity string
      8 loadBalancerIP string
      9 loadBalancerSourceRanges string[]
      10 externalName string
      11 externalTrafficPolicy string
      12 healthCheckNodePort int32
      13 publishNotReadyAddresses bool
      14 sessionAffinityConfig SessionAffinityConfig
      17 ipFamilyPolicy string ptr
      18 clusterIPs string[]
      19 ipFamilies string[]
      20 allocateLoadBalancerNodePorts bool ptr
      21 loadBalancerClass string ptr
      22 internalTrafficPolicy string ptr
      23 trafficDistribution string ptr`,
    ServicePort: `
      1 name string
      2 protocol string
      3 port int32 req
      4 targetPort IntOrString
      5 nodePort int32
      6 appProtocol string ptr`,
    ServiceStatus: `
      1 loadBalancer LoadBalancerStatus
      2 conditions Condition[]`,
    LoadBalancerStatus: `
      1 ingress LoadBalancerIngress[]`,
    LoadBalancerIngress: `
      1 ip string
      2 hostname string
      3 ipMode string ptr
      4 ports PortStatus[]`,
    PortStatus: `
      1 port int32 req
      2 protocol string req
      3 error string ptr`,
    SessionAffinityConfig: `
      1 clientIP ClientIPConfig`,
    ClientIPConfig: `
      1 timeoutSeconds int32 ptr`,
    Pod: `
      1 metadata ObjectMeta
      2 spec PodSpec
      3 status PodStatus`,
    PodSpec: `
      1 volumes Volume[]
      2 containers Container[]
      3 restartPolicy string
      4 terminationGracePeriodSeconds int64 ptr
      5 activeDeadlineSeconds int64 ptr
      6 dnsPolicy string
      7 nodeSelector map<string>
      8 serviceAccountName string
      9 serviceAccount string
      10 nodeName string
      11 hostNetwork bool
      12 hostPID bool
      13 hostIPC bool
      14 securityContext PodSecurityContext
      15 imagePullSecrets LocalObjectReference[]
      16 hostname string
      17 subdomain string
      18 affinity Affinity
      19 schedulerName string
      20 initContainers Container[]
      21 automountServiceAccountToken bool ptr
      22 tolerations Toleration[]
      23 hostAliases HostAlias[]
      24 priorityClassName string
      25 priority int32 ptr
      26 dnsConfig PodDNSConfig
      27 shareProcessNamespace bool ptr
      28 readinessGates PodReadinessGate[]
      29 runtimeClassName string ptr
      30 enableServiceLinks bool ptr
      31 preemptionPolicy string ptr
      32 overhead map<Quantity>
      33 topologySpreadConstraints TopologySpreadConstraint[]
      35 setHostnameAsFQDN bool ptr
      36 os PodOS
      37 hostUsers bool ptr
      38 schedulingGates PodSchedulingGate[]
      39 resourceClaims PodResourceClaim[]
      40 resources ResourceRequirements`,
    PodTemplateSpec: `
      1 metadata ObjectMeta
      2 spec PodSpec`,
    Container: `
      1 name string req
      2 image string
      3 command string[]
      4 args string[]
      5 workingDir string
      6 ports ContainerPort[]
      7 env EnvVar[]
      8 resources ResourceRequirements
      9 volumeMounts VolumeMount[]
      10 livenessProbe Probe
      11 readinessProbe Probe
      12 lifecycle Lifecycle
      13 terminationMessagePath string
      14 imagePullPolicy string
      15 securityContext SecurityContext
      16 stdin bool
      17 stdinOnce bool
      18 tty bool
      19 envFrom EnvFromSource[]
      20 terminationMessagePolicy string
      21 volumeDevices VolumeDevice[]
      22 startupProbe Probe
      23 resizePolicy ContainerResizePolicy[]
      24 restartPolicy string ptr`,
    ContainerPort: `
      1 name string
      2 hostPort int32
      3 containerPort int32 req
      4 protocol string
      5 hostIP string`,
    EnvFromSource: `
      1 prefix string
      2 configMapRef ConfigMapEnvSource
      3 secretRef SecretEnvSource`,
    ConfigMapEnvSource: `
      1 localObjectReference LocalObjectReference inline
      2 optional bool ptr`,
    SecretEnvSource: `
      1 localObjectReference LocalObjectReference inline
      2 optional bool ptr`,
    EnvVar: `
      1 name string req
      2 value string
      3 valueFrom EnvVarSource`,
    EnvVarSource: `
      1 fieldRef ObjectFieldSelector
      2 resourceFieldRef ResourceFieldSelector
      3 configMapKeyRef ConfigMapKeySelector
      4 secretKeyRef SecretKeySelector`,
    ObjectFieldSelector: `
      1 apiVersion string
      2 fieldPath string req`,
    ResourceFieldSelector: `
      1 containerName string
      2 resource string req
      3 divisor Quantity`,
    ConfigMapKeySelector: `
      1 localObjectReference LocalObjectReference inline
      2 key string req
      3 optional bool ptr`,
    SecretKeySelector: `
      1 localObjectReference LocalObjectReference inline
      2 key string req
      3 optional bool ptr`,
    ResourceRequirements: `
      1 limits map<Quantity>
      2 requests map<Quantity>
      3 claims ResourceClaim[]`,
    ResourceClaim: `
      1 name string req
      2 request string`,
    ContainerResizePolicy: `
      1 resourceName string req
      2 restartPolicy string req`,
    VolumeMount: `
      1 name string req
      2 readOnly bool
      3 mountPath string req
      4 subPath string
      5 mountPropagation string ptr
      6 subPathExpr string
      7 recursiveReadOnly string ptr`,
    VolumeDevice: `
      1 name string req
      2 devicePath string req`,
    Probe: `
      1 handler ProbeHandler inline
      2 initialDelaySeconds int32
      3 timeoutSeconds int32
      4 periodSeconds int32
      5 successThreshold int32
      6 failureThreshold int32
      7 terminationGracePeriodSeconds int64 ptr`,
    ProbeHandler: `
      1 exec ExecAction
      2 httpGet HTTPGetAction
      3 tcpSocket TCPSocketAction
      4 grpc GRPCAction`,
    ExecAction: `
      1 command string[]`,
    HTTPGetAction: `
      1 path string
      2 port IntOrString
      3 host string
      4 scheme string
      5 httpHeaders HTTPHeader[]`,
    HTTPHeader: `
      1 name string req
      2 value string req`,
    TCPSocketAction: `
      1 port IntOrString
      2 host string`,
    GRPCAction: `
      1 port int32 req
      2 service string ptr`,
    Lifecycle: `
      1 postStart LifecycleHandler
      2 preStop LifecycleHandler`,
    LifecycleHandler: `
      1 exec ExecAction
      2 httpGet HTTPGetAction
      3 tcpSocket TCPSocketAction
      4 sleep SleepAction`,
    SleepAction: `
      1 seconds int64 req`,
    SecurityContext: `
      1 capabilities Capabilities
      2 privileged bool ptr
      3 seLinuxOptions SELinuxOptions
      4 runAsUser int64 ptr
      5 runAsNonRoot bool ptr
      6 readOnlyRootFilesystem bool ptr
      7 allowPrivilegeEscalation bool ptr
      8 runAsGroup int64 ptr
      9 procMount string ptr
      10 windowsOptions WindowsSecurityContextOptions
      11 seccompProfile SeccompProfile
      12 appArmorProfile AppArmorProfile`,
    Capabilities: `
      1 add string[]
      2 drop string[]`,
    SELinuxOptions: `
      1 user string
      2 role string
      3 type string
      4 level string`,
    WindowsSecurityContextOptions: `
      1 gmsaCredentialSpecName string ptr
      2 gmsaCredentialSpec string ptr
      3 runAsUserName string ptr
      4 hostProcess bool ptr`,
    SeccompProfile: `
      1 type string req
      2 localhostProfile string ptr`,
    AppArmorProfile: `
      1 type string req
      2 localhostProfile string ptr`,
    PodSecurityContext: `
      1 seLinuxOptions SELinuxOptions
      2 runAsUser int64 ptr
      3 runAsNonRoot bool ptr
      4 supplementalGroups int64[]
      5 fsGroup int64 ptr
      6 runAsGroup int64 ptr
      7 sysctls Sysctl[]
      8 windowsOptions WindowsSecurityContextOptions
      9 fsGroupChangePolicy string ptr
      10 seccompProfile SeccompProfile
      11 appArmorProfile AppArmorProfile
      12 supplementalGroupsPolicy string ptr
      13 seLinuxChangePolicy string ptr`,
    Sysctl: `
      1 name string req
      2 value string req`,
    Affinity: `
      1 nodeAffinity NodeAffinity
      2 podAffinity PodAffinity
      3 podAntiAffinity PodAntiAffinity`,
    NodeAffinity: `
      1 requiredDuringSchedulingIgnoredDuringExecution NodeSelector
      2 preferredDuringSchedulingIgnoredDuringExecution PreferredSchedulingTerm[]`,
    NodeSelector: `
      1 nodeSelectorTerms NodeSelectorTerm[]`,
    NodeSelectorTerm: `
      1 matchExpressions NodeSelectorRequirement[]
      2 matchFields NodeSelectorRequirement[]`,
    NodeSelectorRequirement: `
      1 key string req
      2 operator string req
      3 values string[]`,
    PreferredSchedulingTerm: `
      1 weight int32 req
      2 preference NodeSelectorTerm`,
    PodAffinity: `
      1 requiredDuringSchedulingIgnoredDuringExecution PodAffinityTerm[]
      2 preferredDuringSchedulingIgnoredDuringExecution WeightedPodAffinityTerm[]`,
    PodAntiAffinity: `
      1 requiredDuringSchedulingIgnoredDuringExecution PodAffinityTerm[]
      2 preferredDuringSchedulingIgnoredDuringExecution WeightedPodAffinityTerm[]`,
    PodAffinityTerm: `
      1 labelSelector LabelSelector
      2 namespaces string[]
      3 topologyKey string req
      4 namespaceSelector LabelSelector
      5 matchLabelKeys string[]
      6 mismatchLabelKeys string[]`,
    WeightedPodAffinityTerm: `
      1 weight int32 req
      2 podAffinityTerm PodAffinityTerm`,
    Toleration: `
      1 key string
      2 operator string
      3 value string
      4 effect string
      5 tolerationSeconds int64 ptr`,
    HostAlias: `
      1 ip string req
      2 hostnames string[]`,
    PodDNSConfig: `
      1 nameservers string[]
      2 searches string[]
      3 options PodDNSConfigOption[]`,
    PodDNSConfigOption: `
      1 name string
      2 value string ptr`,
    PodReadinessGate: `
      1 conditionType string req`,
    TopologySpreadConstraint: `
      1 maxSkew int32 req
      2 topologyKey string req
      3 whenUnsatisfiable string req
      4 labelSelector LabelSelector
      5 minDomains int32 ptr
      6 nodeAffinityPolicy string ptr
      7 nodeTaintsPolicy string ptr
      8 matchLabelKeys string[]`,
    PodOS: `
      1 name string req`,
    PodSchedulingGate: `
      1 name string req`,
    PodResourceClaim: `
      1 name string req
      3 resourceClaimName string ptr
      4 resourceClaimTemplateName string ptr`,
    LocalObjectReference: `
      1 name string`,
    Volume: `
      1 name string req
      2 volumeSource VolumeSource inline`,
    VolumeSource: `
      1 hostPath HostPathVolumeSource
      2 emptyDir EmptyDirVolumeSource
      6 secret SecretVolumeSource
      7 nfs NFSVolumeSource
      10 persistentVolumeClaim PersistentVolumeClaimVolumeSource
      16 downwardAPI DownwardAPIVolumeSource
      19 configMap ConfigMapVolumeSource
      26 projected ProjectedVolumeSource
      28 csi CSIVolumeSource
      29 ephemeral EphemeralVolumeSource
      30 image ImageVolumeSource`,
    HostPathVolumeSource: `
      1 path string req
      2 type string ptr`,
    EmptyDirVolumeSource: `
      1 medium string
      2 sizeLimit Quantity`,
    SecretVolumeSource: `
      1 secretName string
      2 items KeyToPath[]
      3 defaultMode int32 ptr
      4 optional bool ptr`,
    KeyToPath: `
      1 key string req
      2 path string req
      3 mode int32 ptr`,
    NFSVolumeSource: `
      1 server string req
      2 path string req
      3 readOnly bool`,
    PersistentVolumeClaimVolumeSource: `
      1 claimName string req
      2 readOnly bool`,
    ConfigMapVolumeSource: `
      1 localObjectReference LocalObjectReference inline
      2 items KeyToPath[]
      3 defaultMode int32 ptr
      4 optional bool ptr`,
    DownwardAPIVolumeSource: `
      1 items DownwardAPIVolumeFile[]
      2 defaultMode int32 ptr`,
    DownwardAPIVolumeFile: `
      1 path string req
      2 fieldRef ObjectFieldSelector
      3 resourceFieldRef ResourceFieldSelector
      4 mode int32 ptr`,
    ProjectedVolumeSource: `
      1 sources VolumeProjection[]
      2 defaultMode int32 ptr`,
    VolumeProjection: `
      1 secret SecretProjection
      2 downwardAPI DownwardAPIProjection
      3 configMap ConfigMapProjection
      4 serviceAccountToken ServiceAccountTokenProjection
      5 clusterTrustBundle ClusterTrustBundleProjection`,
    SecretProjection: `
      1 localObjectReference LocalObjectReference inline
      2 items KeyToPath[]
      4 optional bool ptr`,
    ConfigMapProjection: `
      1 localObjectReference LocalObjectReference inline
      2 items KeyToPath[]
      4 optional bool ptr`,
    DownwardAPIProjection: `
      1 items DownwardAPIVolumeFile[]`,
    ServiceAccountTokenProjection: `
      1 audience string
      2 expirationSeconds int64 ptr
      3 path string req`,
    ClusterTrustBundleProjection: `
      1 name string ptr
      2 signerName string ptr
      3 labelSelector LabelSelector
      4 path string req
      5 optional bool ptr`,
    CSIVolumeSource: `
      1 driver string req
      2 readOnly bool ptr
      3 fsType string ptr
      4 volumeAttributes map<string>
      5 nodePublishSecretRef LocalObjectReference`,
    EphemeralVolumeSource: `
      1 volumeClaimTemplate PersistentVolumeClaimTemplate`,
    PersistentVolumeClaimTemplate: `
      1 metadata ObjectMeta
      2 spec PersistentVolumeClaimSpec`,
    PersistentVolumeClaimSpec: `
      1 accessModes string[]
      2 resources VolumeResourceRequirements
      3 volumeName string
      4 selector LabelSelector
      5 storageClassName string ptr
      6 volumeMode string ptr
      7 dataSource TypedLocalObjectReference
      8 dataSourceRef TypedObjectReference
      9 volumeAttributesClassName string ptr`,
    VolumeResourceRequirements: `
      1 limits map<Quantity>
      2 requests map<Quantity>`,
    TypedLocalObjectReference: `
      1 apiGroup string ptr
      2 kind string req
      3 name string req`,
    TypedObjectReference: `
      1 apiGroup string ptr
      2 kind string req
      3 name string req
      4 namespace string ptr`,
    ImageVolumeSource: `
      1 reference string
      2 pullPolicy string`,
    PodStatus: `
      1 phase string
      2 conditions PodCondition[]
      3 message string
      4 reason string
      5 hostIP string
      6 podIP string
      7 startTime Time
      8 containerStatuses ContainerStatus[]
      9 qosClass string
      10 initContainerStatuses ContainerStatus[]
      11 nominatedNodeName string
      12 podIPs PodIP[]
      14 resize string
      16 hostIPs HostIP[]`,
    PodCondition: `
      1 type string req
      2 status string req
      3 lastProbeTime Time
      4 lastTransitionTime Time
      5 reason string
      6 message string`,
    HostIP: `
      1 ip string req`,
    PodIP: `
      1 ip string req`,
    ContainerStatus: `
      1 name string req
      2 state ContainerState
      3 lastState ContainerState
      4 ready bool req
      5 restartCount int32 req
      6 image string req
      7 imageID string req
      8 containerID string
      9 started bool ptr`,
    ContainerState: `
      1 waiting ContainerStateWaiting
      2 running ContainerStateRunning
      3 terminated ContainerStateTerminated`,
    ContainerStateWaiting: `
      1 reason string
      2 message string`,
    ContainerStateRunning: `
      1 startedAt Time`,
    ContainerStateTerminated: `
      1 exitCode int32 req
      2 signal int32
      3 reason string
      4 message string
      5 startedAt Time
      6 finishedAt Time
      7 containerID string`,
  },
};
