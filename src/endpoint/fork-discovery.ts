// Under --writes overlay discovery comes from the target, which knows nothing of the CRDs a controller created in the
// fork: an operator that installs its own CRDs then finds no such group and cannot run. The group list (/apis, legacy
// or aggregated) is the target's with the fork's own groups added; a group or group/version the target does not serve
// (/apis/G, /apis/G/V answered 404) is answered by the fork.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Connection } from '../kube/http/connection.js';
import { aggregatedResource, groupEntry } from '../sim/discovery.js';
import type { Fork } from './fork.js';
import { forwardedHeaders } from './forward.js';

interface GroupList { kind?: string; groups?: { name?: string; versions?: { version?: string }[] }[]; items?: { metadata?: { name?: string }; versions?: { version?: string }[] }[] }

/** Answers a discovery request that the fork's own groups change; false when the target's answer stands as it is. */
export async function serveForkDiscovery(fork: Fork, upstream: Connection, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  if (req.method !== 'GET') return false;
  const segs = path.split('/').filter(Boolean);
  if (segs[0] !== 'apis' || segs.length > 3) return false;
  const local = fork.localGroups();
  if (segs.length > 1) {
    const group = local.find((g) => g.name === segs[1]);
    if (!group || (segs.length === 3 && !group.versions.includes(segs[2]))) return false;
    const answer = await upstream.request({ path, headers: { Accept: 'application/json' }, allowErrorStatus: true });
    await answer.body.text();
    if (answer.status !== 404) return false;
    fork.serve(req, res);
    return true;
  }
  if (!local.length) return false;
  // Not If-None-Match: the target's 304 would leave the client with a cached list that lacks the fork's groups.
  const headers = forwardedHeaders(req);
  delete headers['if-none-match'];
  const answer = await upstream.request({ path: req.url ?? '/apis', headers, allowErrorStatus: true });
  const text = await answer.body.text();
  const contentType = String(answer.headers['content-type'] ?? 'application/json');
  let list: GroupList;
  try {
    list = JSON.parse(text) as GroupList;
  } catch {
    return false;
  }
  if (answer.status !== 200 || !withForkGroups(list, local, fork)) return false;
  // No ETag: the list changes as the controller creates CRDs, and the target's tag named its own list.
  res.writeHead(200, { 'Content-Type': contentType, Vary: 'Accept', 'Cache-Control': 'no-cache, private' });
  res.end(JSON.stringify(list));
  return true;
}

/** Adds the fork's group/versions the target's list lacks; false when the list is neither form. */
function withForkGroups(list: GroupList, local: { name: string; versions: string[] }[], fork: Fork): boolean {
  if (list.kind === 'APIGroupList' && Array.isArray(list.groups)) {
    for (const g of local) {
      const present = list.groups.find((x) => x.name === g.name);
      if (!present) list.groups.push(groupEntry(g) as never);
      else for (const v of g.versions) if (!present.versions?.some((x) => x.version === v)) (present.versions ??= []).push({ groupVersion: `${g.name}/${v}`, version: v } as never);
    }
    return true;
  }
  if (list.kind === 'APIGroupDiscoveryList' && Array.isArray(list.items)) {
    for (const g of local) {
      const versions = g.versions.map((v) => ({ version: v, resources: fork.registry.resourcesOf(g.name, v).map(aggregatedResource), freshness: 'Current' }));
      const present = list.items.find((x) => x.metadata?.name === g.name);
      if (!present) list.items.push({ metadata: { name: g.name }, versions });
      else for (const v of versions) if (!present.versions?.some((x) => x.version === v.version)) (present.versions ??= []).push(v);
    }
    return true;
  }
  return false;
}
