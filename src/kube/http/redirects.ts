// Following HTTP redirects as Go's http.Client does — so as kubectl does: up to 10 of them, 301/302/303
// turning a write into a GET without its body, 307/308 repeating the request as it was, and credentials
// (Authorization, Cookie) sent on only while the redirect stays on the first host or a subdomain of it.
import type { Dispatcher } from 'undici';
import { ConnectionError } from '../../informer/errors.js';
import type { RequestHeaders } from './request-headers.js';
import { maskUrlPasswords } from './server-url.js';

/** Go's defaultCheckRedirect: the 11th redirect is an error. */
export const MAX_REDIRECTS = 10;

/** The statuses followed when they carry a Location. */
export const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** The headers Go's shouldCopyHeaderOnRedirect keeps from other hosts. */
const CREDENTIALS = new Set(['authorization', 'www-authenticate', 'cookie', 'cookie2']);

/** Go's isDomainOrSubdomain: `dest` is `initial`'s host or a subdomain of it (never for IPv6 literals). */
export function keepsCredentials(initial: URL, dest: URL): boolean {
  const parent = initial.hostname.toLowerCase();
  const sub = dest.hostname.toLowerCase();
  if (sub === parent) return true;
  if (sub.includes(':') || sub.includes('[')) return false;
  return sub.endsWith(`.${parent}`);
}

type RequestOptions = Dispatcher.RequestOptions & { origin: string; headers?: RequestHeaders };

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** dispatcher.request, following redirects; the answer is the first that is not a redirect (or has no Location). */
export async function requestFollowingRedirects(dispatcher: Dispatcher, first: RequestOptions): Promise<Dispatcher.ResponseData> {
  const initial = new URL(first.path, first.origin);
  let url = initial;
  let opts = first;
  // Once a redirect left the first host, credentials stay dropped even if a later one comes back (Go ≥ 1.22.11).
  let credentialsDropped = false;
  for (let followed = 0; ; followed++) {
    const res = await dispatcher.request(opts);
    const location = header(res.headers.location);
    if (!REDIRECTS.has(res.statusCode) || !location) return res;
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return res; // an unusable Location: the 3xx answer is the answer
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') return res;
    await res.body.dump().catch(() => undefined);
    if (followed >= MAX_REDIRECTS) {
      const verb = opts.method[0] + opts.method.slice(1).toLowerCase();
      throw new ConnectionError(`${verb} "${maskUrlPasswords(next.href)}": stopped after ${MAX_REDIRECTS} redirects`, 'ETOOMANYREDIRECTS');
    }
    const headers: RequestHeaders = { ...opts.headers };
    let { method, body } = opts;
    if (res.statusCode !== 307 && res.statusCode !== 308 && method !== 'GET' && method !== 'HEAD') {
      method = 'GET';
      body = undefined;
      for (const k of Object.keys(headers)) if (/^content-(type|length)$/i.test(k)) delete headers[k];
    }
    if (credentialsDropped || !keepsCredentials(initial, next)) {
      credentialsDropped = true;
      for (const k of Object.keys(headers)) if (CREDENTIALS.has(k.toLowerCase())) delete headers[k];
    }
    opts = { ...opts, origin: next.origin, path: `${next.pathname}${next.search}`, method, body, headers };
    url = next;
  }
}
