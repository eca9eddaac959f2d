// Where a mirror's reflector writes: straight into the fork's store, with no informer cache between (the fork holds each
// object once, as the sim's store does: its JSON). Keys are kept to find what a relist no longer lists.
import type { ReflectorStore } from '../informer/reflector-store.js';
import type { KubeObject } from '../informer/types.js';

export interface MirrorTarget {
  put(obj: KubeObject): void;
  remove(obj: KubeObject): void;
  /** The first complete list is in. */
  synced(): void;
}

export class MirrorSink implements ReflectorStore {
  private keys = new Set<string>();
  private listed = false;

  constructor(private readonly target: MirrorTarget) {}

  add(obj: KubeObject): void {
    this.keys.add(keyOf(obj));
    this.target.put(obj);
  }

  update(obj: KubeObject): void {
    this.add(obj);
  }

  delete(obj: KubeObject): void {
    this.keys.delete(keyOf(obj));
    this.target.remove(obj);
  }

  /** A complete list: every object put, and those the previous state held but this one lacks removed. */
  replace(items: KubeObject[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(keyOf(obj));
      this.target.put(obj);
    }
    for (const key of this.keys) if (!seen.has(key)) this.target.remove(objectOfKey(key));
    this.keys = seen;
    if (!this.listed) {
      this.listed = true;
      this.target.synced();
    }
  }

  /** Nothing to re-deliver: the fork's own watches serve the objects. */
  resync(): void {}
}

function keyOf(obj: KubeObject): string {
  const meta = obj.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name ?? '');
}

/** The identity a key still carries when its object is gone: namespace/name. */
function objectOfKey(key: string): KubeObject {
  const slash = key.indexOf('/');
  return { metadata: slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) } } as KubeObject;
}
