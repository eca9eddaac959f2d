// The DefaultStorageClass admission plugin: a PersistentVolumeClaim created without spec.storageClassName (absent, not
// "") gets the default StorageClass's name — the class annotated storageclass.kubernetes.io/is-default-class=true, the
// newest one when several are (kube 1.26+).
import type { SimObject } from '../api.js';
import type { ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';

const DEFAULT_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** The name of the cluster's default StorageClass, or undefined when none is marked. */
export function defaultStorageClass(store: SimStore): string | undefined {
  const classes = store.registry.lookup('storage.k8s.io', 'v1', 'storageclasses');
  if (!classes) return undefined;
  let best: SimObject | undefined;
  for (const stored of store.storedIn(classes)) {
    const sc = stored.obj;
    if (!DEFAULT_ANNOTATIONS.some((a) => sc.metadata.annotations?.[a] === 'true')) continue;
    const newer = !best || String(sc.metadata.creationTimestamp) > String(best.metadata.creationTimestamp)
      || (sc.metadata.creationTimestamp === best.metadata.creationTimestamp && sc.metadata.name! < best.metadata.name!);
    if (newer) best = sc;
  }
  return best?.metadata.name;
}

/** Fills a new claim's storageClassName from the default class (obj is the store's own copy; its spec may be shared). */
export function admitDefaultStorageClass(store: SimStore, type: ResourceType, obj: SimObject): void {
  if (type.group !== '' || type.resource !== 'persistentvolumeclaims') return;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
  const name = defaultStorageClass(store);
  if (name) obj.spec = { ...spec, storageClassName: name };
}
