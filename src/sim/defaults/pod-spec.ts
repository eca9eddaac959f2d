// core/v1 SetDefaults_PodSpec with the defaults of what a pod spec holds (containers, volumes): shared by Pods and by
// every pod template (Deployment, ReplicaSet, Job, …), which kube defaults the same way.
import { defaultContainer, defaultFieldRef } from './container.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** 0644, the mode kube gives files of configMap, secret, projected and downwardAPI volumes. */
const DEFAULT_MODE = 420;

function withMode(source: unknown): unknown {
  return isObject(source) && source.defaultMode === undefined ? { ...source, defaultMode: DEFAULT_MODE } : source;
}

function defaultDownwardItems(source: unknown): unknown {
  if (!isObject(source) || !Array.isArray(source.items)) return source;
  return { ...source, items: source.items.map(defaultFieldRef) };
}

function defaultProjection(p: unknown): unknown {
  if (!isObject(p)) return p;
  if (isObject(p.serviceAccountToken) && p.serviceAccountToken.expirationSeconds === undefined) return { ...p, serviceAccountToken: { ...p.serviceAccountToken, expirationSeconds: 3600 } };
  if (isObject(p.downwardAPI)) return { ...p, downwardAPI: defaultDownwardItems(p.downwardAPI) };
  return p;
}

const SOURCES = ['hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image'];

/** SetDefaults_Volume (no source: emptyDir) and the file modes of the volume sources that have one. */
function defaultVolume(volume: unknown): unknown {
  if (!isObject(volume)) return volume;
  const v: Json = { ...volume };
  if (!SOURCES.some((s) => v[s] !== undefined)) v.emptyDir = {};
  if (v.configMap !== undefined) v.configMap = withMode(v.configMap);
  if (v.secret !== undefined) v.secret = withMode(v.secret);
  if (v.downwardAPI !== undefined) v.downwardAPI = withMode(defaultDownwardItems(v.downwardAPI));
  if (isObject(v.projected)) {
    const projected = withMode(v.projected) as Json;
    v.projected = Array.isArray(projected.sources) ? { ...projected, sources: projected.sources.map(defaultProjection) } : projected;
  }
  return v;
}

const containers = (list: unknown): unknown => (Array.isArray(list) ? list.map(defaultContainer) : list);

/** A new pod spec with SetDefaults_PodSpec's values and its containers' and volumes' defaults. */
export function defaultPodSpec(spec: unknown): Json {
  const s: Json = isObject(spec) ? { ...spec } : {};
  if (s.volumes !== undefined) s.volumes = Array.isArray(s.volumes) ? s.volumes.map(defaultVolume) : s.volumes;
  if (s.initContainers !== undefined) s.initContainers = containers(s.initContainers);
  if (s.containers !== undefined) s.containers = containers(s.containers);
  if (s.ephemeralContainers !== undefined) s.ephemeralContainers = containers(s.ephemeralContainers);
  s.restartPolicy ||= 'Always';
  s.terminationGracePeriodSeconds ??= 30;
  s.dnsPolicy ||= 'ClusterFirst';
  s.securityContext ??= {};
  s.schedulerName ||= 'default-scheduler';
  return s;
}
