// The 1 MiB cap on a ConfigMap's and a Secret's data (kube's corev1.MaxSecretSize), as core/validation's
// ValidateConfigMap and ValidateSecret check it: the bytes of the values only (not the keys), binaryData and Secret
// data counted decoded. A ConfigMap's error is on the whole object (field.NewPath("") prints "[]"), a Secret's on
// `data`. field.TooLong's detail is "may not be more than N bytes" since apimachinery 1.32.
import type { FieldError } from '../status.js';

type Json = Record<string, unknown>;

export const MAX_CONFIG_DATA_BYTES = 1024 * 1024;

const TOO_LONG = `may not be more than ${MAX_CONFIG_DATA_BYTES} bytes`;

function valueBytes(bag: unknown, encoding: 'utf8' | 'base64'): number {
  if (bag === null || typeof bag !== 'object') return 0;
  let size = 0;
  for (const v of Object.values(bag as Json)) if (typeof v === 'string') size += Buffer.byteLength(v, encoding);
  return size;
}

export function configMapSizeErrors(next: Json): FieldError[] {
  const size = valueBytes(next.data, 'utf8') + valueBytes(next.binaryData, 'base64');
  return size > MAX_CONFIG_DATA_BYTES ? [{ field: '[]', type: 'Too long', detail: TOO_LONG }] : [];
}

export function secretSizeErrors(next: Json): FieldError[] {
  return valueBytes(next.data, 'base64') > MAX_CONFIG_DATA_BYTES ? [{ field: 'data', type: 'Too long', detail: TOO_LONG }] : [];
}
