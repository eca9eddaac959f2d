// The aggregated discovery documents (/api, /apis) kept with their ETag, so a re-fetch can revalidate
// with If-None-Match and get a 304 instead of the whole document (what kubectl's HTTP cache does for it).
// Stored under <cache root>/kwatch/etags/<host>, apart from the files kubectl shares with us.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface StoredResponse {
  etag: string;
  contentType?: string;
  body: string;
}

export class DiscoveryEtagCache {
  private readonly dir: string;

  /** `root`: the cache root (--cache-dir, $KUBECACHEDIR or ~/.kube/cache); `host`: the safe host directory name. */
  constructor(root: string, host: string) {
    this.dir = join(root, 'kwatch', 'etags', host);
  }

  private file(path: string): string {
    return join(this.dir, `${path.replace(/[^\w]/g, '_') || 'root'}.json`);
  }

  get(path: string): StoredResponse | undefined {
    try {
      const stored = JSON.parse(readFileSync(this.file(path), 'utf8')) as StoredResponse;
      return typeof stored?.etag === 'string' && typeof stored.body === 'string' ? stored : undefined;
    } catch {
      return undefined; // missing or unreadable: simply fetch the document again
    }
  }

  /** Atomic (temp file + rename); a failure only costs the next revalidation. */
  put(path: string, response: StoredResponse): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o750 });
      const target = this.file(path);
      const tmp = `${target}.${randomBytes(6).toString('hex')}`;
      writeFileSync(tmp, JSON.stringify(response), { mode: 0o660 });
      renameSync(tmp, target);
    } catch {
      // best effort
    }
  }
}
