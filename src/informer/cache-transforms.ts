// The transforms a controller author weighs before shrinking an informer's cache, by the names
// `kwatch cache-size --transform` takes: strip-managed-fields, metadata-only, fields=PATH,…
import { stripManagedFields } from './transform.js';
import type { KubeObject } from './types.js';

export interface CacheTransform {
  /** As the user spells it: strip-managed-fields, metadata-only, fields=spec.nodeName,status.phase */
  name: string;
  /** What it stands for upstream. */
  upstream: string;
  apply(obj: KubeObject): KubeObject;
}

export const STRIP_MANAGED_FIELDS: CacheTransform = {
  name: 'strip-managed-fields',
  // controller-runtime pkg/cache TransformStripManagedFields (as DefaultTransform); kwatch's own default.
  upstream: "cache.TransformStripManagedFields; kwatch's default",
  apply: stripManagedFields,
};

/**
 * What a metadata-only informer holds (client-go metadata informers, controller-runtime's
 * OnlyMetadata / PartialObjectMetadata): apiVersion, kind and metadata, managedFields included, since the
 * server sends them and no transform removes them unless one is added.
 */
export const METADATA_ONLY: CacheTransform = {
  name: 'metadata-only',
  upstream: 'metadata informer / OnlyMetadata (managedFields kept)',
  apply: (obj) => ({ ...(obj.apiVersion !== undefined ? { apiVersion: obj.apiVersion } : {}), ...(obj.kind !== undefined ? { kind: obj.kind } : {}), metadata: obj.metadata }),
};

/** The metadata every cached object keeps whatever fields= selects: what an informer needs to key and resume. */
const IDENTITY_METADATA = ['name', 'namespace', 'uid', 'resourceVersion'] as const;

/**
 * A transform keeping only the given dotted paths (spec.nodeName, metadata.labels) plus apiVersion, kind and
 * metadata.name/namespace/uid/resourceVersion: the hand-written TransformFunc of a controller that reads a
 * few fields.
 */
export function keepFields(paths: string[][]): CacheTransform {
  return {
    name: `fields=${paths.map((p) => p.join('.')).join(',')}`,
    upstream: 'a hand-written TransformFunc',
    apply(obj) {
      const out: KubeObject = { metadata: {} };
      if (obj.apiVersion !== undefined) out.apiVersion = obj.apiVersion;
      if (obj.kind !== undefined) out.kind = obj.kind;
      for (const k of IDENTITY_METADATA) if (obj.metadata?.[k] !== undefined) out.metadata[k] = obj.metadata[k];
      for (const path of paths) copyPath(obj as Record<string, unknown>, out as Record<string, unknown>, path);
      return out;
    },
  };
}

function copyPath(from: Record<string, unknown>, to: Record<string, unknown>, path: string[]): void {
  let src: unknown = from;
  for (const seg of path) {
    if (src === null || typeof src !== 'object' || Array.isArray(src)) return;
    src = (src as Record<string, unknown>)[seg];
    if (src === undefined) return;
  }
  let dst = to;
  for (const seg of path.slice(0, -1)) {
    const next = dst[seg];
    dst = (next !== null && typeof next === 'object' && !Array.isArray(next) ? next : (dst[seg] = {})) as Record<string, unknown>;
  }
  dst[path[path.length - 1]] = src;
}

/** Thrown for a --transform value kwatch does not know; its message is the one line the user sees. */
export class TransformSpecError extends Error {}

/** Parses one --transform value. */
export function parseCacheTransform(spec: string): CacheTransform {
  if (spec === STRIP_MANAGED_FIELDS.name) return STRIP_MANAGED_FIELDS;
  if (spec === METADATA_ONLY.name) return METADATA_ONLY;
  if (spec.startsWith('fields=')) {
    const list = spec.slice('fields='.length);
    const paths = list.split(',').map((p) => p.trim().split('.'));
    if (list.trim() === '' || paths.some((p) => p.some((seg) => seg === ''))) {
      throw new TransformSpecError(`--transform ${spec}: fields= takes dotted paths separated by commas, e.g. fields=spec.nodeName,status.phase`);
    }
    return keepFields(paths);
  }
  throw new TransformSpecError(`--transform ${spec}: use strip-managed-fields, metadata-only or fields=PATH,…`);
}
