// Resolving resource names (po, pods, deploy, deployments.apps, foos.v1.example.com, all) through
// discovery: on an unknown name with data that was not fresh, invalidate and re-fetch once, as
// kubectl's DeferredDiscoveryRESTMapper does, so a CRD created a minute ago resolves first time.
import type { Connection } from '../http/connection.js';
import { DiscoveryClient, type DiscoveryClientOptions } from './discovery-client.js';
import { resolveInSnapshot, type ResolvedResource, type Resolution } from './rest-mapper.js';
import { UnknownResourceTypeError } from './unknown-resource-error.js';

export type { ResolvedResource, Resolution } from './rest-mapper.js';

export interface ResolveOptions extends DiscoveryClientOptions {
  /** Reuse a discovery client (and its cache state) across resolutions. */
  discovery?: DiscoveryClient;
}

/** Resolves one name to a Resolution (several resources for a category), with the steps taken. */
export async function explainResource(conn: Connection, input: string, opts: ResolveOptions = {}): Promise<Resolution> {
  const discovery = opts.discovery ?? new DiscoveryClient(conn, opts);
  const name = input.trim();
  if (!name) throw new UnknownResourceTypeError(input);
  let found = resolveInSnapshot(await discovery.discover(), name);
  if (!found && !discovery.fresh) {
    discovery.invalidate(`"${name}" is unknown to cached discovery data written by another process`);
    found = resolveInSnapshot(await discovery.discover(), name);
    if (found) found.steps.unshift(`"${name}" was not in the cached discovery data: invalidated the cache and fetched discovery again`);
  }
  if (!found) throw new UnknownResourceTypeError(name);
  return found;
}

/** Resolves one resource name (the first resource when the name is a category). */
export async function resolveResource(conn: Connection, name: string, opts: ResolveOptions = {}): Promise<ResolvedResource> {
  return (await explainResource(conn, name, opts)).resources[0];
}

/** Resolves a comma-separated list ("pods,deploy", "all"), de-duplicated, in the order given. */
export async function resolveResources(conn: Connection, names: string, opts: ResolveOptions = {}): Promise<ResolvedResource[]> {
  const discovery = opts.discovery ?? new DiscoveryClient(conn, opts);
  const out: ResolvedResource[] = [];
  for (const name of names.split(',').map((n) => n.trim()).filter(Boolean)) {
    for (const r of (await explainResource(conn, name, { ...opts, discovery })).resources) {
      if (!out.some((o) => o.group === r.group && o.resource === r.resource)) out.push(r);
    }
  }
  if (out.length === 0) throw new UnknownResourceTypeError(names);
  return out;
}
