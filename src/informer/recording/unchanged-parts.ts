// Each version of an object read from a recording shares what did not change with the version before it, so a
// replay keeps one copy of each unchanged part. Without it every event is a whole new object tree that the cache
// holds until the next version of the same object, long enough to be moved to V8's old generation: a long replay
// then piles up whole dead objects there, and V8 lets its heap grow to several times the state before it collects
// them (issue 43: peak RSS 3.8x of the state). With the parts shared, what an event leaves behind is mostly its
// changed fields; the rest of the parsed line dies young.
//
// Sharing is safe because nothing in the pipeline changes a cached object in place (client-go's rule too: objects
// from an informer's cache are read-only); only parts equal in value and key order are shared, so every object
// still serializes exactly as its line did.
import { metaNamespaceKey, type KubeObject, type WatchEvent } from '../types.js';

/** Deeper parts are left unshared: a recording's objects are far shallower, and the walk stays bounded. */
const MAX_DEPTH = 64;

type Json = Record<string, unknown> | unknown[];

const isTree = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/**
 * Points each part of `next` that equals the same part of `prev` (in value and in key order) at prev's, in place;
 * true when the whole of `next` equals `prev`. `next` itself is never replaced: its identity stays its own.
 */
export function shareUnchanged(next: Json, prev: Json, depth = 0): boolean {
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return false;
    let same = next.length === prev.length;
    const n = Math.min(next.length, prev.length);
    for (let i = 0; i < n; i++) {
      const shared = sharedValue(next[i], prev[i], depth);
      if (shared === NOT_SHARED) same = false;
      else next[i] = shared;
    }
    return same;
  }
  if (Array.isArray(prev)) return false;
  const nextKeys = Object.keys(next);
  const prevKeys = Object.keys(prev);
  let same = nextKeys.length === prevKeys.length;
  for (let i = 0; i < nextKeys.length; i++) {
    const k = nextKeys[i];
    if (same && prevKeys[i] !== k) same = false;
    // `__proto__` is an own key after JSON.parse, but assigning it would set the prototype: never shared.
    if (k === '__proto__' || !Object.hasOwn(prev, k)) {
      same = false;
      continue;
    }
    const shared = sharedValue(next[k], prev[k], depth);
    if (shared === NOT_SHARED) same = false;
    else next[k] = shared;
  }
  return same;
}

const NOT_SHARED = Symbol('not shared');

/** prev's value when it equals next's (the same string, number, or an equal tree), else NOT_SHARED. */
function sharedValue(a: unknown, b: unknown, depth: number): unknown {
  if (a === b) return b;
  if (isTree(a) && isTree(b) && shareUnchanged(a, b, depth + 1)) return b;
  return NOT_SHARED;
}

/**
 * The newest version read of each object of one resource, for the next version to share its unchanged parts with.
 * It holds the objects the replayed cache holds, give or take the events read ahead: no second copy of the state.
 */
export class LatestVersions {
  private latest = new Map<string, KubeObject>();
  /** The versions of the list being read, which replace all others once it completes. */
  private listing?: Map<string, KubeObject>;

  /** A watch event's object shares with the version before it; a deleted object is forgotten. */
  event(ev: WatchEvent): void {
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') return;
    const obj = ev.object;
    if (!isTree(obj) || !isTree(obj.metadata)) return;
    const key = metaNamespaceKey(obj);
    this.share(key, obj);
    if (ev.type === 'DELETED') this.latest.delete(key);
    else this.latest.set(key, obj);
  }

  /** A list page's items share with their versions before; `last`: the list is complete, and is the state now. */
  listPage(items: KubeObject[], first: boolean, last: boolean): void {
    if (first) this.listing = new Map();
    for (const obj of items) {
      if (!isTree(obj) || !isTree(obj.metadata)) continue;
      const key = metaNamespaceKey(obj);
      this.share(key, obj);
      this.listing?.set(key, obj);
    }
    if (last && this.listing) {
      this.latest = this.listing;
      this.listing = undefined;
    }
  }

  private share(key: string, obj: KubeObject): void {
    const prev = this.latest.get(key) ?? this.listing?.get(key);
    if (prev !== undefined && prev !== obj) shareUnchanged(obj as unknown as Json, prev as unknown as Json);
  }
}
