// ResourceQuotas (NAME AGE REQUEST LIMIT) and PodDisruptionBudgets (NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED
// DISRUPTIONS AGE).
import { translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { int, printer, str, type PrintableObject } from '../printer.js';

/** printResourceQuota: "resource: used/hard" per resource of status.hard, sorted; limits.* go to the LIMIT column. */
function quotaColumns(q: PrintableObject): [string, string] {
  const hard = (q.status?.hard ?? {}) as Record<string, unknown>;
  const request: string[] = [], limit: string[] = [];
  for (const r of Object.keys(hard).sort()) {
    const cell = `${r}: ${String(q.status?.used?.[r] ?? '0')}/${String(q.status?.hard?.[r] ?? '0')}`;
    (r.split('.').length > 1 && r.split('.')[0] === 'limits' ? limit : request).push(cell);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaPrinter = printer(
  [NAME_COLUMN, AGE_COLUMN, column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'), column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.')],
  (q, now) => [str(q.metadata?.name), translateTimestampSince(q.metadata?.creationTimestamp, now), ...quotaColumns(q)],
);

const intOrString = (v: unknown): string => (v === undefined || v === null ? 'N/A' : String(v));

export const podDisruptionBudgetPrinter = printer(
  [
    NAME_COLUMN,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE_COLUMN,
  ],
  (p, now) => [str(p.metadata?.name), intOrString(p.spec?.minAvailable), intOrString(p.spec?.maxUnavailable), int(p.status?.disruptionsAllowed), translateTimestampSince(p.metadata?.creationTimestamp, now)],
);
