// Refuses what a web page could send a sim on the user's machine: a Host that names it by a DNS name (DNS rebinding
// would let a page read Secrets), a foreign Origin (a cross-site form could write), and control-endpoint requests
// without the per-run token (a page could inject faults). The token is checked on the path the router routes
// (an absolute-form target `http://x/_kwatch/faults` routes to the control endpoint too).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { SimApiError } from './api.js';
import { splitRequestTarget } from './request-path.js';

export interface GuardOptions {
  controlToken: string;
  controlPrefix: string;
  /** The Origins of the sim's own pages, from ownOrigins(): a browser sends no other from a page the sim served. */
  ownOrigins: ReadonlySet<string>;
}

/**
 * The sim's own origin, `scheme://host:port` of its URL, in each spelling a page of it could have: its address,
 * localhost, 127.0.0.1 and [::1] on the same port.
 */
export function ownOrigins(serverUrl: string): Set<string> {
  const url = new URL(serverUrl);
  return new Set([url.hostname, 'localhost', '127.0.0.1', '[::1]'].map((host) => new URL(`${url.protocol}//${host}:${url.port}`).origin));
}

/** undefined when the request may go on, else the Status to refuse it with. */
export function checkRequest(req: IncomingMessage, o: GuardOptions): SimApiError | undefined {
  const host = req.headers.host;
  if (!host || !isOwnAddress(host)) return refuse(403, 'Forbidden', `Host ${JSON.stringify(host ?? '')} is not this server's address: name it by IP address or as localhost`);
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, o.ownOrigins)) {
    return refuse(403, 'Forbidden', `requests from the web page at Origin ${JSON.stringify(origin)} are not accepted`);
  }
  const target = req.url ?? '/';
  // An absolute-form target names the server too (it overrides Host): hold it to the same rule.
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(target)?.[1];
  if (authority !== undefined && !isOwnAddress(authority)) return refuse(403, 'Forbidden', `the request target names ${JSON.stringify(authority)}, which is not this server's address`);
  // The path the router will route: a malformed target is refused there before any handler runs.
  const path = splitRequestTarget(target)?.path;
  if (path?.startsWith(o.controlPrefix) && !hasToken(req.headers.authorization, o.controlToken)) {
    return refuse(401, 'Unauthorized', `the control endpoint needs the sim's control token: send "Authorization: Bearer <token>" with the token from the file beside the sim's kubeconfig`);
  }
  return undefined;
}

/**
 * A Host naming the server by IP address or as localhost, whatever the port (a proxy or an ssh tunnel in front of the
 * sim changes the port): DNS rebinding needs a DNS name, so only names other than localhost are refused.
 */
function isOwnAddress(hostHeader: string): boolean {
  let url: URL;
  try { url = new URL(`http://${hostHeader}`); } catch { return false; }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return false;
  const name = url.hostname;
  return name === 'localhost' || isIP(name.replace(/^\[|\]$/g, '')) !== 0;
}

function isOwnOrigin(origin: string, own: ReadonlySet<string>): boolean {
  try {
    return own.has(new URL(origin).origin);
  } catch {
    return false;
  }
}

function hasToken(header: string | undefined, token: string): boolean {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) return false;
  const given = Buffer.from(m[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function refuse(code: number, reason: string, message: string): SimApiError {
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}
