// Under --writes overlay discovery comes from the target, which knows nothing of the CRDs a controller created in the
// fork: an operator that installs its own CRDs then finds no such group and cannot run. Each discovery document the
// fork's kinds belong in (/apis, legacy or aggregated; /apis/G; /apis/G/V) is the target's with them added, or, where
// the target has no such group or version (404), the fork's own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Connection } from '../kube/http/connection.js';
import { aggregatedResource, groupEntry, legacyResources } from '../sim/discovery.js';
import type { ResourceType } from '../sim/registry.js';
import type { Fork } from './fork.js';
import { forwardedHeaders } from './forward.js';

interface Versioned { version?: string; groupVersion?: string; resources?: { resource?: string }[] }
interface Doc {
  kind?: string;
  /** APIGroupList */
  groups?: { name?: string; versions?: Versioned[] }[];
  /** APIGroupDiscoveryList */
  items?: { metadata?: { name?: string }; versions?: Versioned[] }[];
  /** APIGroup */
  versions?: Versioned[];
  /** APIResourceList */
  resources?: { name?: string }[];
}

/** Answers a discovery request that the fork's own kinds change; false when the target's answer stands as it is. */
export async function serveForkDiscovery(fork: Fork, upstream: Connection, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  if (req.method !== 'GET') return false;
  const segs = path.split('/').filter(Boolean);
  if (segs[0] !== 'apis' || segs.length > 3) return false;
  const kinds = fork.localKinds().filter((t) => (segs[1] === undefined || t.group === segs[1]) && (segs[2] === undefined || t.version === segs[2]));
  if (!kinds.length) return false;
  // Not If-None-Match: the target's 304 would leave the client with a cached document that lacks the fork's kinds.
  const headers = forwardedHeaders(req);
  delete headers['if-none-match'];
  const answer = await upstream.request({ path: req.url ?? path, headers, allowErrorStatus: true });
  const text = await answer.body.text();
  if (answer.status === 404 && segs.length > 1) {
    fork.serve(req, res);
    return true;
  }
  let doc: Doc;
  try {
    doc = JSON.parse(text) as Doc;
  } catch {
    return false;
  }
  if (answer.status !== 200 || !withForkKinds(doc, kinds, fork)) return false;
  // No ETag: the document changes as the controller creates CRDs, and the target's tag named its own.
  res.writeHead(200, { 'Content-Type': String(answer.headers['content-type'] ?? 'application/json'), Vary: 'Accept', 'Cache-Control': 'no-cache, private' });
  res.end(JSON.stringify(doc));
  return true;
}

/** Adds the fork's kinds (and their groups and versions) that the target's document lacks; false for another document. */
function withForkKinds(doc: Doc, kinds: ResourceType[], fork: Fork): boolean {
  const groups = fork.localGroups().filter((g) => kinds.some((t) => t.group === g.name));
  const ofVersion = (group: string, version: string) => kinds.filter((t) => t.group === group && t.version === version);
  switch (doc.kind) {
    case 'APIGroupList': {
      if (!Array.isArray(doc.groups)) return false;
      for (const g of groups) {
        const present = doc.groups.find((x) => x.name === g.name);
        if (!present) doc.groups.push(groupEntry(g) as never);
        else addVersions(present, g.name, g.versions);
      }
      return true;
    }
    case 'APIGroup': {
      const g = groups[0];
      if (g) addVersions(doc, g.name, g.versions);
      return true;
    }
    case 'APIGroupDiscoveryList': {
      if (!Array.isArray(doc.items)) return false;
      for (const g of groups) {
        let present = doc.items.find((x) => x.metadata?.name === g.name);
        if (!present) doc.items.push((present = { metadata: { name: g.name }, versions: [] }));
        for (const v of g.versions) {
          let version = present.versions?.find((x) => x.version === v);
          if (!version) (present.versions ??= []).push((version = { version: v, resources: [], freshness: 'Current' } as Versioned));
          const resources = (version.resources ??= []);
          for (const t of ofVersion(g.name, v)) if (!resources.some((r) => r.resource === t.resource)) resources.push(aggregatedResource(t) as never);
        }
      }
      return true;
    }
    case 'APIResourceList': {
      if (!Array.isArray(doc.resources)) return false;
      const have = new Set(doc.resources.map((r) => r.name));
      for (const r of legacyResources(kinds) as { name: string }[]) if (!have.has(r.name)) doc.resources.push(r);
      return true;
    }
    default:
      return false;
  }
}

function addVersions(group: { versions?: Versioned[] }, name: string, versions: string[]): void {
  for (const v of versions) if (!group.versions?.some((x) => x.version === v)) (group.versions ??= []).push({ groupVersion: `${name}/${v}`, version: v });
}
