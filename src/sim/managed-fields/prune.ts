// Removing fields from an object by path: what an applier stops applying goes away unless someone else owns it.
import { jsonEqual } from '../object-meta.js';
import type { FieldSet, PathElement } from './field-set.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function matchesKey(item: unknown, key: string): boolean {
  if (!isObject(item)) return false;
  const id = JSON.parse(key) as Record<string, unknown>;
  // A key field the item omits has its schema default (only ports' protocol has one).
  return Object.entries(id).every(([k, v]) => jsonEqual(item[k] ?? (k === 'protocol' ? 'TCP' : undefined), v));
}

/** Removes the field or list item at `path` from `obj` (in place); a missing path is no error. */
export function removePath(obj: unknown, path: readonly PathElement[]): void {
  let cur: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i], body = pe.slice(2), last = i === path.length - 1;
    if (pe[0] === 'f') {
      if (!isObject(cur)) return;
      if (last) { delete cur[body]; return; }
      cur = cur[body];
    } else if (pe[0] === 'k' || pe[0] === 'v') {
      if (!Array.isArray(cur)) return;
      const value = pe[0] === 'v' ? JSON.parse(body) as unknown : undefined;
      const idx = cur.findIndex((x) => (pe[0] === 'k' ? matchesKey(x, body) : jsonEqual(x, value)));
      if (idx < 0) return;
      if (last) { cur.splice(idx, 1); return; }
      cur = cur[idx];
    } else {
      return;
    }
  }
}

/**
 * Drops from `obj` what the applier applied last time (`previous`) but no longer applies (`applied`), unless another
 * manager (`others`) owns it or something under it.
 */
export function pruneUnapplied(obj: unknown, previous: FieldSet, applied: FieldSet, others: FieldSet): void {
  // Deepest first, so an item's fields go before the item.
  const gone = [...previous.difference(applied)].sort((a, b) => b.length - a.length);
  for (const path of gone) {
    if (others.hasPrefix(path) || applied.hasDescendant(path)) continue;
    removePath(obj, path);
  }
}
