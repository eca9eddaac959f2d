// kube's default table convertor (what CustomResourceDefinitions use): NAME and CREATED AT (an RFC 3339 time, not an age).
import { parseTimestamp } from '../age.js';
import { column, NAME_COLUMN } from '../columns.js';
import { OBJECT_META } from '../descriptions.js';
import { printer, str } from '../printer.js';

/** time.Time.UTC().Format(time.RFC3339); Go's zero time when absent. */
function rfc3339(ts: unknown): string {
  const ms = parseTimestamp(ts);
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export const defaultPrinter = printer(
  [NAME_COLUMN, column('Created At', 'date', OBJECT_META.creationTimestamp)],
  (obj) => [str(obj.metadata?.name), rfc3339(obj.metadata?.creationTimestamp)],
);
