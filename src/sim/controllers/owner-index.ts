// Who owns whom: an index from owner uid to the objects whose ownerReferences name it (the GC's graph, in small).
import type { Change } from '../history.js';
import { resourceId, type ResourceType } from '../registry.js';
import type { SimStore } from '../store.js';
import { ownerUidsInJson } from './owner-references.js';

/** Identifies a stored object across collections: "<resourceId>|<storage key>". */
export type ObjectKey = string;

export function objectKey(type: ResourceType, key: string): ObjectKey {
  return `${resourceId(type)}|${key}`;
}

/** Splits an ObjectKey back into its collection and its namespace/name. */
export function parseObjectKey(store: SimStore, ref: ObjectKey): { type: ResourceType; namespace: string | undefined; name: string } | undefined {
  const bar = ref.indexOf('|');
  const [group, version, resource] = ref.slice(0, bar).split('/');
  const type = store.registry.lookup(group, version, resource);
  if (!type) return undefined;
  const key = ref.slice(bar + 1);
  if (!type.namespaced) return { type, namespace: undefined, name: key };
  const slash = key.indexOf('/');
  return { type, namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * Built on first use from every stored object (so a sim that never needs it never pays for it), then kept current
 * from the store's commits. Entries are candidates read from the JSON: users verify against the parsed object.
 */
export class OwnerIndex {
  private built = false;
  private readonly dependents = new Map<string, Set<ObjectKey>>();
  private readonly owners = new Map<ObjectKey, string[]>();

  constructor(private readonly store: SimStore) {}

  /** Follows one committed change (a no-op until the index is first used). */
  observe(change: Change, type: ResourceType): void {
    if (!this.built) return;
    const ref = objectKey(type, change.key);
    if (change.type === 'DELETED') this.set(ref, []);
    else this.set(ref, ownerUidsInJson(change.cur.json));
  }

  /** Objects whose ownerReferences name `uid` (candidates). */
  dependentsOf(uid: string): ObjectKey[] {
    this.build();
    return [...(this.dependents.get(uid) ?? [])];
  }

  private set(ref: ObjectKey, uids: string[]): void {
    const before = this.owners.get(ref);
    if (before) for (const uid of before) {
      const deps = this.dependents.get(uid);
      deps?.delete(ref);
      if (deps?.size === 0) this.dependents.delete(uid);
    }
    if (uids.length === 0) { this.owners.delete(ref); return; }
    this.owners.set(ref, uids);
    for (const uid of uids) {
      let deps = this.dependents.get(uid);
      if (!deps) this.dependents.set(uid, (deps = new Set()));
      deps.add(ref);
    }
  }

  private build(): void {
    if (this.built) return;
    this.built = true;
    for (const type of this.store.registry.all()) {
      for (const o of this.store.storedIn(type)) {
        const uids = ownerUidsInJson(o.json);
        if (uids.length) this.set(objectKey(type, o.key), uids);
      }
    }
  }
}
