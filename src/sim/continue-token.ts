// Continue tokens exactly as the etcd3 store encodes them: base64url (no padding) of {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}.
import { badRequest } from './status.js';

export interface ContinuePoint {
  /** Revision of the first page; -1 means "continue at the latest revision". */
  rv: number;
  /** The key (relative to the list's prefix) after which the next page starts, without the trailing NUL. */
  start: string;
}

export function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` })).toString('base64url');
}

/** Decodes a token; throws 400 BadRequest "invalid continue token: …" like the real server. */
export function decodeContinue(token: string): ContinuePoint {
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    if (!/^[A-Za-z0-9_-]*$/.test(token)) throw new Error('bad alphabet');
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw badRequest(`invalid continue token: continue key is not valid: illegal base64 data at input byte 0`);
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.v !== 'meta.k8s.io/v1') {
    throw badRequest('invalid continue token: continue key is not valid: server does not recognize this encoded key');
  }
  if (typeof parsed.rv !== 'number' || parsed.rv === 0 || !Number.isInteger(parsed.rv)) {
    throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof parsed.start !== 'string' || parsed.start === '') {
    throw badRequest('invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  }
  let start = parsed.start.endsWith('\u0000') ? parsed.start.slice(0, -1) : parsed.start;
  // The watch cache strips the prefix without its trailing slash ("/name"); accept both forms.
  if (start.startsWith('/')) start = start.slice(1);
  if (start.split('/').some((seg) => seg === '..' || seg === '.')) {
    throw badRequest('invalid continue token: continue key is not valid: ill-formed key');
  }
  return { rv: parsed.rv, start };
}
