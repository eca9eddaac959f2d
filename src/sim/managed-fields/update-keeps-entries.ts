// Whether an Update leaves metadata.managedFields exactly as stored, so a writer that changes only the values of
// fields its own entry already holds may skip the field manager: decoding the entries, comparing the objects and
// encoding the entries again cost the sim's quota admission more than the rest of its status write.
import type { ManagerId } from './conflicts.js';
import type { PathElement } from './field-set.js';
import { decodeManagedFields, encodeManagedFields } from './ownership.js';

/**
 * True when an Update by `id` that changes the values of fields among `paths` — adding and removing
 * none — would leave `managedFields` byte for byte as stored. recordUpdate gives the writer the fields it changes and
 * takes them from every other entry, and moves the writer's time only when its set changes (kube's field manager), so
 * that holds when the writer's entry has a time, its apiVersion and every path, no other entry has any of them, and
 * the entries encode back to the stored list (nothing dropped, kube's order).
 */
export function updateKeepsEntries(managedFields: unknown, paths: readonly PathElement[][], id: ManagerId): boolean {
  const entries = decodeManagedFields(managedFields);
  const mine = (e: ManagerId): boolean => e.manager === id.manager && e.operation === id.operation && (e.subresource ?? '') === (id.subresource ?? '');
  const me = entries.find(mine);
  if (!me || me.time === undefined || me.apiVersion !== id.apiVersion) return false;
  for (const path of paths) {
    if (!me.set.has(path)) return false;
    for (const e of entries) if (e !== me && e.set.has(path)) return false;
  }
  if (entries.some((e) => e.set.empty)) return false;
  return JSON.stringify(encodeManagedFields(entries)) === JSON.stringify(managedFields);
}
