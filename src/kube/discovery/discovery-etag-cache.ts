// The aggregated discovery documents (/api, /apis) kept with their ETag, so a re-fetch can revalidate
// with If-None-Match and get a 304 instead of the whole document (what kubectl's HTTP cache does for it).
// Stored under <cache root>/kwatch/etags/<host>, apart from the files kubectl shares with us, in the
// discovery cache's store (disk, or memory for a server that lives only as long as the run).
import { join } from 'node:path';
import type { DiscoveryStore } from './discovery-store.js';

export interface StoredResponse {
  etag: string;
  contentType?: string;
  body: string;
}

export class DiscoveryEtagCache {
  private readonly dir: string;

  /** `store`: the cache root's (--cache-dir, $KUBECACHEDIR or ~/.kube/cache; or memory); `host`: the safe host directory name. */
  constructor(
    private readonly store: DiscoveryStore,
    host: string,
  ) {
    this.dir = join(store.root, 'kwatch', 'etags', host);
  }

  private file(path: string): string {
    return join(this.dir, `${path.replace(/[^\w]/g, '_') || 'root'}.json`);
  }

  get(path: string): StoredResponse | undefined {
    try {
      const text = this.store.read(this.file(path));
      if (text === undefined) return undefined;
      const stored = JSON.parse(text) as StoredResponse;
      return typeof stored?.etag === 'string' && typeof stored.body === 'string' ? stored : undefined;
    } catch {
      return undefined; // missing or unreadable: simply fetch the document again
    }
  }

  /** Atomic (the store's); a failure only costs the next revalidation. */
  put(path: string, response: StoredResponse): void {
    try {
      this.store.write(this.file(path), JSON.stringify(response));
    } catch {
      // best effort
    }
  }
}
