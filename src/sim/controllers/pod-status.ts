// The pod status a kubelet reports at each step — ContainerCreating, Running, stopped — in the shapes the workload
// generator writes (workload-objects.ts) and kube 1.32 shows: condition order, containerStatuses, IPs, startTime.
import { createHash } from 'node:crypto';
import type { SimObject } from '../api.js';

type Json = Record<string, any>;

export type PodStage = 'creating' | 'running' | 'stopped';

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** containerd reports fully qualified references: `nginx` → `docker.io/library/nginx:latest`. */
export function qualifiedImage(image: string): string {
  let ref = image;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  if (!hasRegistry) ref = (slash < 0 ? 'docker.io/library/' : 'docker.io/') + ref;
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  if (!ref.includes('@') && !last.includes(':')) ref += ':latest';
  return ref;
}

/** A stable digest per image, so imageIDs do not change between runs. */
function imageID(image: string): string {
  const ref = qualifiedImage(image);
  const repo = ref.includes('@') ? ref.slice(0, ref.indexOf('@')) : ref.slice(0, ref.lastIndexOf(':'));
  return `${repo}@sha256:${sha256(ref)}`;
}

interface Condition { type: string; status: string; lastProbeTime: null; lastTransitionTime: string; reason?: string; message?: string }

/**
 * The status for `stage`, keeping each condition's lastTransitionTime while its status does not change and the
 * pod's startTime once set. qosClass and anything the kubelet does not own stay as they are.
 */
export function podStatusFor(pod: SimObject, stage: PodStage, node: { ip: string }, podIP: string | undefined, time: string): Json {
  const prev = (pod.status ?? {}) as Json;
  const spec = (pod.spec ?? {}) as Json;
  const containers = (Array.isArray(spec.containers) ? spec.containers : []) as Json[];
  const names = containers.map((c) => String(c.name));
  const previous = new Map<string, Condition>((Array.isArray(prev.conditions) ? prev.conditions : []).map((c: Condition) => [c.type, c]));
  const cond = (type: string, status: string, extra: { reason?: string; message?: string } = {}): Condition => {
    const was = previous.get(type);
    const lastTransitionTime = was && was.status === status ? was.lastTransitionTime : time;
    return { type, status, lastProbeTime: null, lastTransitionTime, ...extra };
  };
  const unready = { reason: stage === 'stopped' ? 'PodCompleted' : 'ContainersNotReady', ...(stage === 'stopped' ? {} : { message: `containers with unready status: [${names.join(' ')}]` }) };
  const conditions = stage === 'running'
    ? [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), cond('Ready', 'True'), cond('ContainersReady', 'True'), cond('PodScheduled', 'True')]
    : [cond('PodReadyToStartContainers', 'False'), cond('Initialized', 'True'), cond('Ready', 'False', unready), cond('ContainersReady', 'False', unready), cond('PodScheduled', 'True')];
  const previousStatus = (name: string): Json | undefined => (Array.isArray(prev.containerStatuses) ? prev.containerStatuses : []).find((c: Json) => c.name === name);
  const startedAt = (name: string): string => previousStatus(name)?.state?.running?.startedAt ?? time;
  // The image a container runs does not change when it stops: keep the digest its running status showed.
  const digest = (c: Json): string => {
    const was = previousStatus(String(c.name))?.imageID;
    return typeof was === 'string' && was !== '' ? was : imageID(String(c.image ?? ''));
  };
  // The kubelet lists container statuses sorted by name.
  const statuses = [...containers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((c) => {
    const containerID = `containerd://${sha256(`${pod.metadata.uid}/${c.name}`)}`;
    const image = qualifiedImage(String(c.image ?? ''));
    if (stage === 'creating') return { name: c.name, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {}, ready: false, restartCount: 0, image, imageID: '', started: false };
    if (stage === 'running') return { name: c.name, state: { running: { startedAt: time } }, lastState: {}, ready: true, restartCount: 0, image, imageID: digest(c), containerID, started: true };
    return {
      name: c.name, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: startedAt(c.name), finishedAt: time, containerID } },
      lastState: {}, ready: false, restartCount: 0, image, imageID: digest(c), containerID, started: false,
    };
  });
  const ips = podIP ?? prev.podIP;
  const status: Json = {
    phase: stage === 'creating' ? 'Pending' : stage === 'running' ? 'Running' : 'Succeeded',
    conditions,
    hostIP: node.ip, hostIPs: [{ ip: node.ip }],
    ...(stage !== 'creating' && ips ? { podIP: ips, podIPs: [{ ip: ips }] } : {}),
    startTime: prev.startTime ?? time,
    containerStatuses: statuses,
    qosClass: prev.qosClass ?? 'BestEffort',
  };
  return status;
}

/** The stage a pod's status shows, as far as the kubelet stand-in is concerned. */
export function podStage(pod: SimObject): PodStage | undefined {
  const status = (pod.status ?? {}) as Json;
  if (status.phase === 'Running') return 'running';
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return 'stopped';
  if (Array.isArray(status.containerStatuses) && status.containerStatuses.length > 0) return 'creating';
  return undefined;
}

/** The node's InternalIP (the pod's hostIP). */
export function nodeIP(node: SimObject): string {
  const addresses = ((node.status as Json | undefined)?.addresses ?? []) as { type: string; address: string }[];
  return addresses.find((a) => a.type === 'InternalIP')?.address ?? '10.0.0.1';
}
