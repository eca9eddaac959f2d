// Stale reads (KEP-5647's problem; controller-runtime's read-your-own-writes): a run that reads a key from a cache
// older than its controller's own last write of that key decides on a state it has itself already replaced.
import { compareResourceVersions } from '../informer/resource-version.js';
import type { KubeObject } from '../informer/types.js';

/** One read of a key whose cached resourceVersion is older than the controller's own write of it. */
export interface StaleRead {
  controller: string;
  /** The run's key. */
  key: string;
  resource: string;
  /** The key read. */
  readKey: string;
  cachedRv: string;
  writtenRv: string;
}

export class OwnWrites {
  /** "controller|resource|key" → the resourceVersion the controller's last write of the key answered with. */
  private readonly last = new Map<string, string>();
  readonly staleReads: StaleRead[] = [];

  /** A write of the controller's answered with rv (deletes are not recorded: their answer is no later state). */
  wrote(controller: string, resource: string, key: string, rv: string): void {
    const id = `${controller}|${resource}|${key}`;
    const before = this.last.get(id);
    if (before === undefined || order(rv, before) > 0) this.last.set(id, rv);
  }

  lastRv(controller: string, resource: string, key: string): string | undefined {
    return this.last.get(`${controller}|${resource}|${key}`);
  }

  /** The written rv when the cached object is older than the controller's own last write of it; else undefined. */
  staleBy(controller: string, resource: string, key: string, cached: KubeObject | undefined): { cachedRv: string; writtenRv: string } | undefined {
    const writtenRv = this.last.get(`${controller}|${resource}|${key}`);
    if (writtenRv === undefined || cached === undefined) return undefined;
    const cachedRv = cached.metadata?.resourceVersion ?? '0';
    return order(cachedRv, writtenRv) < 0 ? { cachedRv, writtenRv } : undefined;
  }
}

/** resourceVersions in etcd order; 0 (no verdict) when one is not an etcd revision (a recording's own, say). */
function order(a: string, b: string): number {
  try {
    return compareResourceVersions(a, b);
  } catch {
    return 0;
  }
}
