// The client-side → server-side apply upgrade of kube's field manager (lastAppliedManager, lastAppliedUpdater):
// `kubectl apply --server-side` (manager "kubectl") may take over, without a conflict, the fields a client-side
// `kubectl apply` recorded in the last-applied-configuration annotation and that still hold those values; and while
// the annotation exists, each such apply rewrites it, so a later client-side apply diffs against the right thing.
import type { SimObject } from '../api.js';
import type { Conflict } from './conflicts.js';
import { FieldSet } from './field-set.js';
import { compareObjects, fieldsOf, type SchemaContext } from './object-fields.js';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Only kubectl's own server-side apply upgrades; other managers opt out by their name. */
const UPGRADING_MANAGER = 'kubectl';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The fields of the annotation's configuration whose values the live object still has; undefined when there is none. */
function fieldsFromLastApplied(live: SimObject, apiVersion: string, ctx: SchemaContext): FieldSet | undefined {
  const text = live.metadata.annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  let lastApplied: unknown;
  try { lastApplied = JSON.parse(text); } catch { return undefined; }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
  const c = compareObjects(lastApplied, live, ctx);
  return fieldsOf(lastApplied, ctx).difference(c.modified).difference(c.added).difference(c.removed);
}

/**
 * The conflicts an apply still has once the upgrade allowance is taken out: all of them for other managers or
 * without the annotation; none means the apply goes through as if forced.
 */
export function conflictsAfterUpgrade(conflicts: Conflict[], live: SimObject | undefined, manager: string, apiVersion: string, ctx: SchemaContext): Conflict[] {
  if (manager !== UPGRADING_MANAGER || !live || conflicts.length === 0) return conflicts;
  const allowed = fieldsFromLastApplied(live, apiVersion, ctx);
  return allowed ? conflicts.filter((c) => !allowed.has(c.path)) : conflicts;
}

/** Go's encoding/json of a map: keys sorted at every level. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (!isObject(v)) return JSON.stringify(v) ?? 'null';
  return `{${Object.keys(v).filter((k) => v[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`;
}

/** lastAppliedUpdater: after kubectl's server-side apply, an existing annotation becomes the applied configuration. */
export function syncLastApplied(next: SimObject, config: unknown, manager: string): void {
  const annotations = next.metadata.annotations;
  if (manager !== UPGRADING_MANAGER || !annotations?.[LAST_APPLIED] || !isObject(config)) return;
  const applied: Record<string, unknown> = { ...config };
  if (isObject(applied.metadata) && isObject(applied.metadata.annotations)) {
    const rest = { ...applied.metadata.annotations };
    delete rest[LAST_APPLIED];
    applied.metadata = { ...applied.metadata, annotations: rest };
  }
  next.metadata.annotations = { ...annotations, [LAST_APPLIED]: sortedJson(applied) };
}
