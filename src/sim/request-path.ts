// The request path as kube-apiserver sees it: Go's net/http neither resolves dot segments nor accepts a malformed
// escape, and apimachinery refuses names that are not valid path segments. (WHATWG URL would turn `%2e%2e` into `..`
// and resolve it, so a DELETE of configmaps/%2e%2e would reach the namespace itself.)
import type { ResourceRoute } from './router.js';
import { badRequest } from './status.js';
import { goPathUnescape } from '../wire/go-path-unescape.js';

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

/** Percent-decodes one path segment to UTF-8 text, leniently as Go does (bytes that are not UTF-8 become U+FFFD rather than an error). */
export function decodePathSegment(segment: string): string {
  return goPathUnescape(segment);
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
 */
export function checkRouteSegments(route: Pick<ResourceRoute, 'namespace' | 'name'>): void {
  for (const [label, value] of [['Namespace', route.namespace], ['Name', route.name]] as const) {
    if (value === undefined) continue;
    const errs = pathSegmentNameErrors(value);
    // JSON quoting is Go's %q for printable text.
    if (errs.length) throw badRequest(`${label} parameter invalid: ${JSON.stringify(value)}: ${errs.join(';')}`);
  }
}
