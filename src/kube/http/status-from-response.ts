// Builds the Status for a non-2xx answer: the server's own Status body when it sent one, else a
// synthetic Status worded as client-go's NewGenericServerResponse (e.g. APF's plain-text 429).
import type { Status } from '../../informer/types.js';

const GENERIC: Record<number, [string, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** Seconds from a numeric Retry-After header (client-go ignores HTTP-date values). */
export function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return Number(v);
}

export function statusFromResponse(code: number, contentType: string | undefined, body: string, retryAfter?: number): Status {
  if (/json/i.test(contentType ?? '') || body.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(body) as Partial<Status> | null;
      if (parsed && parsed.kind === 'Status') {
        const status = { ...parsed, code: typeof parsed.code === 'number' && parsed.code ? parsed.code : code } as Status;
        if (retryAfter !== undefined && status.details?.retryAfterSeconds === undefined) status.details = { ...status.details, retryAfterSeconds: retryAfter };
        return status;
      }
    } catch {
      // not JSON after all: fall through to the generic Status
    }
  }
  const serverMessage = body.trim().slice(0, 2000);
  let [reason, message] = GENERIC[code] ?? ['Unknown', `the server responded with the status code ${code} but did not return more information`];
  if (code === 403) [reason, message] = ['Forbidden', serverMessage || 'forbidden'];
  else if (code === 415) [reason, message] = ['UnsupportedMediaType', serverMessage];
  else if (!GENERIC[code] && code >= 500) [reason, message] = ['InternalError', `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`];
  const details: NonNullable<Status['details']> = {};
  if (serverMessage) details.causes = [{ reason: 'UnexpectedServerResponse', message: serverMessage }];
  if (retryAfter !== undefined) details.retryAfterSeconds = retryAfter;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}
