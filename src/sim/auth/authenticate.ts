// Who sent a request, as kube-apiserver's x509 and token authenticators decide: a client certificate signed by the
// sim's CA names the user (CN) and groups (O); else a bearer token must be one the sim issued (a user's static token
// or a service account token). Anonymous requests are refused (kube with --anonymous-auth=false).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { SimApiError } from '../api.js';

export interface UserInfo {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** Recognises bearer tokens beyond the static ones (service account JWTs): the user, or undefined when unknown or invalid. */
export type TokenAuthenticator = (token: string) => UserInfo | undefined;

export interface TokenUser extends UserInfo {
  token: string;
}

export const AUTHENTICATED = 'system:authenticated';

/** The user behind a request, or a 401 Status. */
export function authenticate(req: IncomingMessage, tokens: readonly TokenUser[], more?: TokenAuthenticator): UserInfo | SimApiError {
  const socket = req.socket as Partial<TLSSocket>;
  // `authorized` is true only when the client's certificate chains to the CA the server was given.
  if (socket.authorized && typeof socket.getPeerCertificate === 'function') {
    const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
    const cn = subject?.CN;
    if (typeof cn === 'string' && cn) {
      const orgs = subject?.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
      return { name: cn, groups: [...orgs, AUTHENTICATED] };
    }
  }
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (m) {
    const given = Buffer.from(m[1]);
    const user = tokens.find((t) => {
      const expected = Buffer.from(t.token);
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (user) return { name: user.name, groups: [...user.groups, AUTHENTICATED] };
    const other = more?.(m[1]);
    if (other) return other;
  }
  return unauthorized();
}

/** kube-apiserver's answer when no authenticator accepts a request. */
export function unauthorized(): SimApiError {
  return new SimApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
}
