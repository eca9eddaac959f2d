// The request path as kube-apiserver sees it: Go's net/http neither resolves dot segments nor accepts a malformed
// escape, and hands handlers req.URL.Path with every escape already decoded (`%2F` is a slash there); apimachinery
// refuses names that are not valid path segments. (WHATWG URL would turn `%2e%2e` into `..` and resolve it, so a
// DELETE of configmaps/%2e%2e would reach the namespace itself.)
import type { ResourceRoute } from './router.js';
import { badRequest } from './status.js';

export interface RequestTarget {
  /** The path exactly as sent: still percent-encoded, dot segments kept. */
  path: string;
  query: URLSearchParams;
}

const MALFORMED_ESCAPE = /%(?![0-9a-fA-F]{2})/;

/** Splits a request-target (origin form, or absolute form as proxies send it) without normalising it; undefined when the path holds a malformed escape such as `%ZZ`, which Go's server refuses before any handler runs. */
export function splitRequestTarget(target: string): RequestTarget | undefined {
  const origin = target.startsWith('/') ? target : target.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/, '') || '/';
  const q = origin.indexOf('?');
  const path = q < 0 ? origin : origin.slice(0, q);
  if (MALFORMED_ESCAPE.test(path)) return undefined;
  return { path, query: new URLSearchParams(q < 0 ? '' : origin.slice(q + 1)) };
}

/** apimachinery's IsValidPathSegmentName: the reasons a name cannot be one path segment (empty when it can). */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/**
 * Refuses a route whose name or namespace is not a valid path segment, with the 400 of kube's storage key functions
 * (`Name parameter invalid: "..": may not be '..'`). kube's key functions check only the name — a namespace like `..`
 * is refused further down, by the storage layer's key check — so the namespace gets the same wording under its own label.
 * Since the path is decoded before it is split, a name can hold a `%` (sent as `%25`) but never a `/`.
 */
export function checkRouteSegments(route: Pick<ResourceRoute, 'namespace' | 'name'>): void {
  // An empty name segment (pods//status): the handlers' ContextBasedNaming.Name refuses it (errEmptyName).
  if (route.name === '') throw badRequest('name must be provided');
  for (const [label, value] of [['Namespace', route.namespace], ['Name', route.name]] as const) {
    if (value === undefined) continue;
    const errs = pathSegmentNameErrors(value);
    // JSON quoting is Go's %q for printable text.
    if (errs.length) throw badRequest(`${label} parameter invalid: ${JSON.stringify(value)}: ${errs.join(';')}`);
  }
}

/**
 * The namespace a route's handler works in. kube keeps an empty namespace segment (`namespaces//configmaps`) and its
 * handlers put "" in the request context (handlers/namer.go reads RequestInfo.Namespace), so: a collection read —
 * list, watch, deletecollection — spans every namespace (registry/generic/registry/store.go NamespaceKeyRootFunc adds
 * no namespace for "", and a watch of one name falls back to that when NamespaceKeyFunc fails); any other verb on a
 * named object is refused by NamespaceKeyFunc; a create keeps "" (handleCreate refuses it as validation does).
 */
export function handlerNamespace(route: Pick<ResourceRoute, 'namespace' | 'name'>, verb: string): string | undefined {
  if (route.namespace !== '') return route.namespace;
  if (route.name !== undefined && verb !== 'watch') throw badRequest('Namespace parameter required.');
  return verb === 'create' ? '' : undefined;
}
