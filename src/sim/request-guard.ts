// Refuses what a web page could send a sim on the user's machine: a Host that is not the sim's own address (DNS
// rebinding would let a page read Secrets), a foreign Origin (a cross-site form could write), and control-endpoint
// requests without the per-run token (a page could inject faults).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { SimApiError } from './api.js';

export interface GuardOptions {
  /** The address the server listens on, e.g. 127.0.0.1, :: or 0.0.0.0. */
  listenAddress: string;
  port: () => number;
  controlToken: string;
  controlPrefix: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** undefined when the request may go on, else the Status to refuse it with. */
export function checkRequest(req: IncomingMessage, o: GuardOptions): SimApiError | undefined {
  const host = req.headers.host;
  if (!host || !isOwnAddress(host, o)) return refuse(403, 'Forbidden', `Host ${JSON.stringify(host ?? '')} is not this server's address: use 127.0.0.1:${o.port()} or localhost:${o.port()}`);
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try { originHost = new URL(origin).host; } catch { originHost = undefined; }
    if (!originHost || !isOwnAddress(originHost, o)) return refuse(403, 'Forbidden', `requests from the web page at Origin ${JSON.stringify(origin)} are not accepted`);
  }
  if ((req.url ?? '').startsWith(o.controlPrefix) && !hasToken(req.headers.authorization, o.controlToken)) {
    return refuse(401, 'Unauthorized', `the control endpoint needs the sim's control token: send "Authorization: Bearer <token>" with the token from the file beside the sim's kubeconfig`);
  }
  return undefined;
}

function isOwnAddress(hostHeader: string, o: GuardOptions): boolean {
  let url: URL;
  try { url = new URL(`http://${hostHeader}`); } catch { return false; }
  if (url.username || url.password || url.pathname !== '/') return false;
  // URL drops a default port (":80"); a Host without a port means the scheme's default.
  const port = url.port ? Number(url.port) : /:\d+$/.test(hostHeader) ? 80 : undefined;
  if (port === undefined ? o.port() !== 80 && o.port() !== 443 : port !== o.port()) return false;
  const name = url.hostname;
  if (LOOPBACK_NAMES.has(name)) return true;
  const bare = name.replace(/^\[|\]$/g, '');
  if (bare === o.listenAddress) return true;
  // Bound to every interface: any IP literal names this server (rebinding needs a DNS name).
  return (o.listenAddress === '0.0.0.0' || o.listenAddress === '::') && isIP(bare) !== 0;
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
