// Field ownership bookkeeping for client writes: metadata.managedFields after an Update (create, update, patch)
// or an Apply (server-side apply, with conflicts and pruning), as kube's field manager keeps it.
import type { SimObject } from '../api.js';
import { conflictError, type Conflict, type ManagerId } from './conflicts.js';
import { FieldSet, fromFieldsV1, toFieldsV1 } from './field-set.js';
import { zeroObject } from './merge-keys.js';
import { compareObjects, fieldsOf, type SchemaContext } from './object-fields.js';
import { pruneUnapplied } from './prune.js';
import { conflictsAfterUpgrade, syncLastApplied } from './last-applied.js';

/** One managedFields entry, its fields decoded. */
export interface ManagerEntry extends ManagerId { time?: string; set: FieldSet }

/** Who writes and how: the manager's identity plus what it may own. */
export interface WriteContext extends SchemaContext {
  manager: string;
  apiVersion: string;
  subresource?: string;
  /** RFC 3339 time of this write. */
  now: string;
}

const same = (a: ManagerId, b: ManagerId): boolean => a.manager === b.manager && a.operation === b.operation && (a.subresource ?? '') === (b.subresource ?? '');

/** The entries of an object's metadata.managedFields (entries that are not FieldsV1 objects are dropped). */
export function decodeManagedFields(raw: unknown): ManagerEntry[] {
  if (!Array.isArray(raw)) return [];
  const out: ManagerEntry[] = [];
  for (const e of raw as Record<string, unknown>[]) {
    if (typeof e !== 'object' || e === null || typeof e.manager !== 'string') continue;
    out.push({
      manager: e.manager, operation: e.operation === 'Apply' ? 'Apply' : 'Update', apiVersion: String(e.apiVersion ?? ''),
      ...(typeof e.time === 'string' ? { time: e.time } : {}),
      ...(typeof e.subresource === 'string' && e.subresource ? { subresource: e.subresource } : {}),
      set: fromFieldsV1(e.fieldsV1),
    });
  }
  return out;
}

/** kube stores entries sorted: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(entries: ManagerEntry[]): Record<string, unknown>[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...entries].sort((p, q) => cmp(p.operation, q.operation) || cmp(p.time ?? '', q.time ?? '') || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource ?? '', q.subresource ?? ''));
  return sorted.map((e) => ({
    manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, ...(e.time ? { time: e.time } : {}),
    fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(e.set), ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

function store(next: SimObject, entries: ManagerEntry[]): void {
  const kept = entries.filter((e) => !e.set.empty);
  if (kept.length) next.metadata.managedFields = encodeManagedFields(kept);
  else delete next.metadata.managedFields;
}

function before(prev: SimObject | undefined, next: SimObject, ctx: WriteContext): unknown {
  return prev ?? zeroObject(ctx.kind, ctx.builtIn, next as Record<string, unknown>);
}

function own(entries: ManagerEntry[], id: ManagerId): ManagerEntry {
  let me = entries.find((e) => same(e, id));
  if (!me) entries.push((me = { ...id, set: new FieldSet() }));
  return me;
}

/**
 * kube's decodeLiveOrNew: a main-resource write that sends managedFields of its own sets them (kubectl's
 * client-side → server-side apply migration replaces them with a JSON patch), `[{}]` resets them, and an absent,
 * empty or undecodable list keeps the stored ones (clients that know nothing of them cannot wipe them).
 */
function startingEntries(prev: SimObject | undefined, next: SimObject, ctx: WriteContext): ManagerEntry[] {
  const stored = (): ManagerEntry[] => decodeManagedFields(prev?.metadata.managedFields);
  if (ctx.subresource) return stored();
  const requested = next.metadata.managedFields;
  if (Array.isArray(requested) && requested.length === 1 && typeof requested[0] === 'object' && requested[0] !== null && Object.keys(requested[0]).length === 0) return [];
  const sent = decodeManagedFields(requested);
  return sent.length ? sent : stored();
}

/**
 * An Update (create, update, patch) by ctx.manager turning `prev` (undefined on create) into `next`: the manager
 * takes every field it added or changed, away from the others; removed fields leave every set. Sets
 * next.metadata.managedFields.
 */
export function recordUpdate(prev: SimObject | undefined, next: SimObject, ctx: WriteContext): void {
  const entries = startingEntries(prev, next, ctx);
  const c = compareObjects(before(prev, next, ctx), next, ctx);
  const taken = c.added.union(c.modified);
  const id: ManagerId = { manager: ctx.manager, operation: 'Update', apiVersion: ctx.apiVersion, ...(ctx.subresource ? { subresource: ctx.subresource } : {}) };
  for (const e of entries) if (!same(e, id)) e.set = e.set.difference(taken).difference(c.removed);
  const me = own(entries, id);
  const set = me.set.difference(c.removed).union(taken);
  if (!set.equals(me.set) || me.time === undefined) me.time = ctx.now;
  me.set = set;
  me.apiVersion = ctx.apiVersion;
  store(next, entries);
}

/**
 * A server-side apply of `config` by ctx.manager, `next` being `prev` with `config` merged in (changed in place: the
 * fields this manager applied before and no longer applies are pruned). Throws kube's 409 when the apply changes
 * fields other managers own, unless `force`, which takes them over. Sets next.metadata.managedFields.
 */
export function recordApply(prev: SimObject | undefined, next: SimObject, config: unknown, ctx: WriteContext, force: boolean): void {
  const entries = decodeManagedFields(prev?.metadata.managedFields);
  const id: ManagerId = { manager: ctx.manager, operation: 'Apply', apiVersion: ctx.apiVersion, ...(ctx.subresource ? { subresource: ctx.subresource } : {}) };
  const applied = fieldsOf(config, ctx);
  const previous = entries.find((e) => same(e, id))?.set ?? new FieldSet();
  let others = new FieldSet();
  for (const e of entries) if (!same(e, id)) others = others.union(e.set);
  pruneUnapplied(next, previous, applied, others);

  const c = compareObjects(before(prev, next, ctx), next, ctx);
  const changed = c.added.union(c.modified);
  const conflicts: Conflict[] = [];
  for (const e of entries) {
    if (same(e, id)) continue;
    for (const path of e.set.intersection(changed)) conflicts.push({ owner: e, path });
  }
  if (!force) {
    const remaining = conflictsAfterUpgrade(conflicts, prev, ctx.manager, ctx.apiVersion, ctx);
    if (remaining.length) throw conflictError(remaining);
  }
  for (const e of entries) if (!same(e, id)) e.set = e.set.difference(changed).difference(c.removed);
  const me = own(entries, id);
  if (!applied.equals(me.set) || me.time === undefined || !changed.empty || !c.removed.empty) me.time = ctx.now;
  me.set = applied;
  me.apiVersion = ctx.apiVersion;
  store(next, entries);
  syncLastApplied(next, config, ctx.manager);
}
