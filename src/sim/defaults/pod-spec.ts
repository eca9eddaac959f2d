// core/v1 SetDefaults_PodSpec with the defaults of what a pod spec holds (containers, volumes): shared by Pods and by
// every pod template (Deployment, ReplicaSet, Job, …), which kube defaults the same way. A spec that already has
// every default comes back as the same object.
import { defaultContainer, defaultFieldRef } from './container.js';
import { mapChanged } from './copy-on-write.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** 0644, the mode kube gives files of configMap, secret, projected and downwardAPI volumes. */
const DEFAULT_MODE = 420;

function withMode(source: unknown): unknown {
  return isObject(source) && source.defaultMode === undefined ? { ...source, defaultMode: DEFAULT_MODE } : source;
}

function defaultDownwardItems(source: unknown): unknown {
  if (!isObject(source)) return source;
  const items = mapChanged(source.items, defaultFieldRef);
  return items === source.items ? source : { ...source, items };
}

function defaultProjection(p: unknown): unknown {
  if (!isObject(p)) return p;
  if (isObject(p.serviceAccountToken) && p.serviceAccountToken.expirationSeconds === undefined) return { ...p, serviceAccountToken: { ...p.serviceAccountToken, expirationSeconds: 3600 } };
  if (isObject(p.downwardAPI)) {
    const downwardAPI = defaultDownwardItems(p.downwardAPI);
    return downwardAPI === p.downwardAPI ? p : { ...p, downwardAPI };
  }
  return p;
}

function defaultProjected(source: unknown): unknown {
  const withDefaultMode = withMode(source);
  if (!isObject(withDefaultMode)) return withDefaultMode;
  const sources = mapChanged(withDefaultMode.sources, defaultProjection);
  return sources === withDefaultMode.sources ? withDefaultMode : { ...withDefaultMode, sources };
}

const SOURCES = ['hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image'];

/** Per volume source that has defaults: its defaulting function. */
const SOURCE_DEFAULTS: [string, (s: unknown) => unknown][] = [
  ['configMap', withMode], ['secret', withMode], ['downwardAPI', (s) => withMode(defaultDownwardItems(s))], ['projected', defaultProjected],
];

/** SetDefaults_Volume (no source: emptyDir) and the file modes of the volume sources that have one. */
function defaultVolume(volume: unknown): unknown {
  if (!isObject(volume)) return volume;
  let v = volume;
  if (!SOURCES.some((s) => volume[s] !== undefined)) v = { ...v, emptyDir: {} };
  for (const [key, fn] of SOURCE_DEFAULTS) {
    if (v[key] === undefined) continue;
    const d = fn(v[key]);
    if (d !== v[key]) v = { ...v, [key]: d };
  }
  return v;
}

/** The pod spec with SetDefaults_PodSpec's values and its containers' and volumes' defaults (the same object if complete). */
export function defaultPodSpec(spec: unknown): Json {
  const src: Json = isObject(spec) ? spec : {};
  const volumes = mapChanged(src.volumes, defaultVolume);
  const initContainers = mapChanged(src.initContainers, defaultContainer);
  const containers = mapChanged(src.containers, defaultContainer);
  const ephemeralContainers = mapChanged(src.ephemeralContainers, defaultContainer);
  const complete = isObject(spec) && volumes === src.volumes && initContainers === src.initContainers && containers === src.containers && ephemeralContainers === src.ephemeralContainers
    && !!src.restartPolicy && src.terminationGracePeriodSeconds !== undefined && !!src.dnsPolicy && src.securityContext !== undefined && !!src.schedulerName;
  if (complete) return src;
  const s: Json = { ...src };
  if (volumes !== undefined) s.volumes = volumes;
  if (initContainers !== undefined) s.initContainers = initContainers;
  if (containers !== undefined) s.containers = containers;
  if (ephemeralContainers !== undefined) s.ephemeralContainers = ephemeralContainers;
  s.restartPolicy ||= 'Always';
  s.terminationGracePeriodSeconds ??= 30;
  s.dnsPolicy ||= 'ClusterFirst';
  s.securityContext ??= {};
  s.schedulerName ||= 'default-scheduler';
  return s;
}
