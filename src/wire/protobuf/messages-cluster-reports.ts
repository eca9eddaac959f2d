// Protobuf schemas of the kinds the cluster reports about itself, which controllers and kubectl watch or write through
// typed (protobuf) clients: core/v1 Node, core/v1 Event, events.k8s.io/v1 Event, discovery.k8s.io/v1 EndpointSlice and
// coordination.k8s.io/v1 Lease (node heartbeats, leader election). Field numbers and types are those of kube's
// generated.proto (core/v1, events/v1, discovery/v1, coordination/v1; Node's status as of 1.35, EndpointHints.forNodes
// from 1.33); ptr and req follow the Go types' pointers and json tags. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const CLUSTER_REPORTS_MESSAGES: ProtoPackage[] = [
  {
    package: 'k8s.io.api.core.v1',
    messages: {
      Node: `
        1 metadata ObjectMeta
        2 spec NodeSpec
        3 status NodeStatus`,
      NodeSpec: `
        1 podCIDR string
        2 externalID string
        3 providerID string
        4 unschedulable bool
        5 taints Taint[]
        6 configSource NodeConfigSource
        7 podCIDRs string[]`,
      Taint: `
        1 key string req
        2 value string
        3 effect string req
        4 timeAdded Time`,
      NodeConfigSource: `
        2 configMap ConfigMapNodeConfigSource`,
      ConfigMapNodeConfigSource: `
        1 namespace string req
        2 name string req
        3 uid string
        4 resourceVersion string
        5 kubeletConfigKey string req`,
      NodeStatus: `
        1 capacity map<Quantity>
        2 allocatable map<Quantity>
        3 phase string
        4 conditions NodeCondition[]
        5 addresses NodeAddress[]
        6 daemonEndpoints NodeDaemonEndpoints
        7 nodeInfo NodeSystemInfo
        8 images ContainerImage[]
        9 volumesInUse string[]
        10 volumesAttached AttachedVolume[]
        11 config NodeConfigStatus
        12 runtimeHandlers NodeRuntimeHandler[]
        13 features NodeFeatures
        14 declaredFeatures string[]`,
      NodeCondition: `
        1 type string req
        2 status string req
        3 lastHeartbeatTime Time
        4 lastTransitionTime Time
        5 reason string
        6 message string`,
      NodeAddress: `
        1 type string req
        2 address string req`,
      NodeDaemonEndpoints: `
        1 kubeletEndpoint DaemonEndpoint`,
      DaemonEndpoint: `
        1 Port int32 req`,
      NodeSystemInfo: `
        1 machineID string req
        2 systemUUID string req
        3 bootID string req
        4 kernelVersion string req
        5 osImage string req
        6 containerRuntimeVersion string req
        7 kubeletVersion string req
        8 kubeProxyVersion string req
        9 operatingSystem string req
        10 architecture string req
        11 swap NodeSwapStatus`,
      NodeSwapStatus: `
        1 capacity int64 ptr`,
      ContainerImage: `
        1 names string[]
        2 sizeBytes int64`,
      AttachedVolume: `
        1 name string req
        2 devicePath string req`,
      NodeConfigStatus: `
        1 assigned NodeConfigSource
        2 active NodeConfigSource
        3 lastKnownGood NodeConfigSource
        4 error string`,
      NodeRuntimeHandler: `
        1 name string req
        2 features NodeRuntimeHandlerFeatures`,
      NodeRuntimeHandlerFeatures: `
        1 recursiveReadOnlyMounts bool ptr
        2 userNamespaces bool ptr`,
      NodeFeatures: `
        1 supplementalGroupsPolicy bool ptr
        2 containerUlimits bool ptr`,
      Event: `
        1 metadata ObjectMeta
        2 involvedObject ObjectReference
        3 reason string
        4 message string
        5 source EventSource
        6 firstTimestamp Time
        7 lastTimestamp Time
        8 count int32
        9 type string
        10 eventTime MicroTime
        11 series EventSeries
        12 action string
        13 related ObjectReference
        14 reportingComponent string req
        15 reportingInstance string req`,
      EventSource: `
        1 component string
        2 host string`,
      EventSeries: `
        1 count int32
        2 lastObservedTime MicroTime`,
    },
  },
  {
    // Its Event and EventSeries share their names with core/v1's, so they are indexed as EventsV1Event, EventsV1EventSeries.
    package: 'k8s.io.api.events.v1',
    prefix: 'EventsV1',
    messages: {
      Event: `
        1 metadata ObjectMeta
        2 eventTime MicroTime
        3 series EventsV1EventSeries
        4 reportingController string
        5 reportingInstance string
        6 action string
        7 reason string
        8 regarding ObjectReference
        9 related ObjectReference
        10 note string
        11 type string
        12 deprecatedSource EventSource
        13 deprecatedFirstTimestamp Time
        14 deprecatedLastTimestamp Time
        15 deprecatedCount int32`,
      EventSeries: `
        1 count int32 req
        2 lastObservedTime MicroTime`,
    },
  },
  {
    package: 'k8s.io.api.discovery.v1',
    messages: {
      EndpointSlice: `
        1 metadata ObjectMeta
        2 endpoints Endpoint[]
        3 ports EndpointPort[]
        4 addressType string req`,
      Endpoint: `
        1 addresses string[]
        2 conditions EndpointConditions
        3 hostname string ptr
        4 targetRef ObjectReference
        5 deprecatedTopology map<string>
        6 nodeName string ptr
        7 zone string ptr
        8 hints EndpointHints`,
      EndpointConditions: `
        1 ready bool ptr
        2 serving bool ptr
        3 terminating bool ptr`,
      EndpointHints: `
        1 forZones ForZone[]
        2 forNodes ForNode[]`,
      ForZone: `
        1 name string req`,
      ForNode: `
        1 name string req`,
      EndpointPort: `
        1 name string ptr
        2 protocol string ptr
        3 port int32 ptr
        4 appProtocol string ptr`,
    },
  },
  {
    package: 'k8s.io.api.coordination.v1',
    messages: {
      Lease: `
        1 metadata ObjectMeta
        2 spec LeaseSpec`,
      LeaseSpec: `
        1 holderIdentity string ptr
        2 leaseDurationSeconds int32 ptr
        3 acquireTime MicroTime
        4 renewTime MicroTime
        5 leaseTransitions int32 ptr
        6 strategy string ptr
        7 preferredHolder string ptr`,
    },
  },
];

export const CLUSTER_REPORTS_OBJECT_KINDS: Record<string, string> = {
  'v1/Node': 'Node',
  'v1/Event': 'Event',
  'events.k8s.io/v1/Event': 'EventsV1Event',
  'discovery.k8s.io/v1/EndpointSlice': 'EndpointSlice',
  'coordination.k8s.io/v1/Lease': 'Lease',
};
