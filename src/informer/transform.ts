// Transforms applied to objects before they are cached; the default strips metadata.managedFields.
import type { TransformFunc } from './deltas.js';
import type { KubeObject } from './types.js';

/**
 * Drops `metadata.managedFields` (often half of an object's bytes, and useless to a controller's cache),
 * like client-go's TransformStripManagedFields. Copies the object and its metadata shallowly instead of
 * mutating, so objects a ListerWatcher shares elsewhere are never changed; objects without
 * managedFields are returned as they are.
 */
export const stripManagedFields: TransformFunc = (obj: KubeObject): KubeObject => {
  const meta = obj.metadata;
  if (meta === undefined || meta === null || meta.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = meta;
  return { ...obj, metadata };
};

/** The identity transform (keeps managedFields). */
export const keepObject: TransformFunc = (obj) => obj;

/** The transform an informer uses: the caller's, else strip managedFields unless keepManagedFields. */
export function chooseTransform(options: { transform?: TransformFunc | null; keepManagedFields?: boolean }): TransformFunc | undefined {
  if (options.transform !== undefined) return options.transform ?? undefined;
  return options.keepManagedFields ? undefined : stripManagedFields;
}
