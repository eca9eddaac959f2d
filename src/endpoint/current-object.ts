// Under --writes server-dry-run the target's answer is diffed against the object the target holds now, read just before
// the dry run is sent: what the write would change on the cluster, whatever the client had read (or never read) of it.
import type { Connection } from '../kube/http/connection.js';
import { decodedObject } from './sent-object.js';

/** The object at `path` on the target (a /status or /scale path reads what that subresource serves), without managedFields; undefined when it cannot be read. */
export async function currentObject(upstream: Connection, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await upstream.request({ path, headers: { Accept: 'application/json' }, allowErrorStatus: true });
    const body = (await res.body.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (res.status !== 200 || !body || body.kind === 'Status' || typeof body.metadata !== 'object') return undefined;
    return decodedObject(body).object();
  } catch {
    return undefined;
  }
}
