// A server was reached, but what it answered is not a Kubernetes API response: an HTML page (a login
// portal, a load balancer's error page, a web server at the wrong address), a body that is not JSON, or
// a list whose items are not an array. It is a ConnectionError so the informer treats it as the network
// trouble it usually is (fatal on first contact, retried with backoff after), but it is reported as
// itself, not as "Unable to connect".
import { ConnectionError, StatusError } from '../../informer/errors.js';
import { redactEcho } from './redact.js';
import { statusFromResponse } from './status-from-response.js';

export class UnexpectedAnswerError extends ConnectionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, undefined, options);
  }
}

function isHtml(contentType: string | undefined): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '');
}

/** True for a successful answer that cannot be an API response (an HTML page): the caller hands it to errorForAnswer. */
export function isNotKubernetesAnswer(contentType: string | undefined): boolean {
  return isHtml(contentType);
}

export interface Answer {
  /** The server URL as it may be shown (no password). */
  server: string;
  status: number;
  contentType?: string;
  /** The body as read (cut to a bound). */
  text: string;
  retryAfter?: number;
  /** Credentials to mask should the server echo them back ("invalid bearer token: Bearer …"). */
  secrets?: readonly string[];
}

/** The error for an answer that is not a success: the server's Status (credentials masked), or UnexpectedAnswerError for an HTML page. */
export function errorForAnswer(a: Answer): StatusError | UnexpectedAnswerError {
  if (isHtml(a.contentType)) {
    const type = (a.contentType ?? '').split(';')[0].trim().toLowerCase();
    return new UnexpectedAnswerError(`the server at ${a.server} answered ${a.status} with ${type}, not a Kubernetes API response (is this the API server's address?)`);
  }
  return new StatusError(statusFromResponse(a.status, a.contentType, redactEcho(a.text, a.secrets), a.retryAfter), a.retryAfter, Buffer.byteLength(a.text));
}

/** What `value` is, in words, for a message about a malformed body. */
function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/**
 * A decoded LIST body checked for the shape every consumer relies on: an object whose `items` is an array
 * of objects. `items: null` (or missing) is an empty list, as Go's JSON decoder (so kubectl) reads it.
 */
export function checkListShape<T extends { items?: unknown }>(page: unknown, where: { server: string; path: string }): T {
  const at = `the server at ${where.server} sent a list for ${where.path}`;
  if (page === null || typeof page !== 'object' || Array.isArray(page)) {
    throw new UnexpectedAnswerError(`${at} that is ${describeJsonType(page)}, not an object (not a Kubernetes API response)`);
  }
  const p = page as { items?: unknown };
  if (p.items === null || p.items === undefined) p.items = [];
  if (!Array.isArray(p.items)) throw new UnexpectedAnswerError(`${at} whose "items" is ${describeJsonType(p.items)}, not an array (not a Kubernetes API response)`);
  const bad = p.items.findIndex((item) => item === null || typeof item !== 'object' || Array.isArray(item));
  if (bad >= 0) throw new UnexpectedAnswerError(`${at} whose item ${bad} is ${describeJsonType(p.items[bad])}, not an object (not a Kubernetes API response)`);
  return page as T;
}
