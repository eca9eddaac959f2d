// From a resolved resource and the global flags (-n, -A, -l, --field-selector, NAME) to what a ListerWatcher reads.
import type { Connection } from '../kube/http/connection.js';
import type { ListWatchTarget } from '../kube/lister-watchers/http-lister-watcher.js';
import type { ResolvedResource } from '../kube/discovery/resolve-resource.js';
import type { GlobalFlags } from './flags.js';
import { UserError } from './user-error.js';

/** kubectl's spelling: pods, deployments.apps. */
export function displayName(r: Pick<ResolvedResource, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/**
 * kubectl's two ways to name one object: `TYPE NAME` or `TYPE/NAME`. Returns the resource list and the name;
 * fails as kubectl does when both forms are mixed.
 */
export function splitTypeName(resourceArg: string, nameArg: string | undefined): { resources: string; name?: string } {
  const slash = resourceArg.indexOf('/');
  const mixed = (slash >= 0 && nameArg !== undefined) || (slash < 0 && nameArg?.includes('/'));
  if (mixed) throw new UserError('there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. \'kwatch events resource/<resource_name>\' instead of \'kwatch events resource resource/<resource_name>\')');
  if (slash < 0) return { resources: resourceArg, name: nameArg };
  const type = resourceArg.slice(0, slash);
  const name = resourceArg.slice(slash + 1);
  if (type === '' || name === '' || type.includes(',') || name.includes('/') || name.includes(',')) throw new UserError(`arguments in resource/name form must have a single resource and name: "${resourceArg}"`);
  return { resources: type, name };
}

/** -A lists every namespace; otherwise -n, else the context's namespace. Cluster-scoped resources ignore both. */
export function targetFor(r: ResolvedResource, conn: Connection, flags: Pick<GlobalFlags, 'namespace' | 'all-namespaces' | 'selector' | 'field-selector'>, name?: string): ListWatchTarget {
  const namespace = r.namespaced && !flags['all-namespaces'] ? (flags.namespace ?? conn.namespace) : undefined;
  return { group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced, namespace, labelSelector: flags.selector, fieldSelector: flags['field-selector'], name };
}

/** Fails with kubectl-like wording when the server does not serve `verb` on a resource. */
export function requireVerb(r: ResolvedResource, verb: string): void {
  if (!r.verbs.includes(verb)) throw new UserError(`the server does not allow "${verb}" on ${displayName(r)} (its verbs: ${r.verbs.join(', ') || 'none'})`);
}
