// From a resolved resource and the global flags (-n, -A, -l, --field-selector, NAME) to what a ListerWatcher reads.
import type { Connection } from '../kube/connection.js';
import type { ListWatchTarget } from '../kube/http-lister-watcher.js';
import type { ResolvedResource } from '../kube/resolve-resource.js';
import type { GlobalFlags } from './flags.js';
import { UserError } from './user-error.js';

/** kubectl's spelling: pods, deployments.apps. */
export function displayName(r: Pick<ResolvedResource, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
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
