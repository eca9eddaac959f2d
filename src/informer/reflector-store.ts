// ReflectorStore: the subset of a store the reflector writes to (client-go's ReflectorStore).
// DeltaFIFO and RealFIFO implement it; so can a plain store in tests.
import type { KubeObject } from './types.js';

export interface ReflectorStore {
  add(obj: KubeObject): void;
  update(obj: KubeObject): void;
  delete(obj: KubeObject): void;
  /** Called after every successful LIST / watch-list with the complete state at resourceVersion. */
  replace(items: KubeObject[], resourceVersion: string): void;
  /** Re-queues cached objects as Sync deltas (no network traffic). */
  resync(): void;
  /** Optional: told about every resourceVersion the reflector reaches, bookmarks included. */
  updateResourceVersion?(resourceVersion: string): void;
}
