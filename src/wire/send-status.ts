// Answering a request with a Status: the error's own, or kube's 500 InternalError for anything unexpected.
import type { ServerResponse } from 'node:http';
import { ApiStatusError, failureStatus } from './api-status.js';

/** Answers with the Status of an ApiStatusError (Retry-After from details.retryAfterSeconds), or a 500 InternalError for anything else. */
export function sendError(res: ServerResponse, err: unknown): void {
  const e = err instanceof ApiStatusError ? err : internalError(err instanceof Error ? err.message : String(err));
  const retry = (e.status.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
  if (res.headersSent) { res.end(); return; }
  const body = JSON.stringify(e.status);
  res.writeHead(e.status.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...(retry && retry > 0 ? { 'Retry-After': String(retry) } : {}) });
  res.end(body);
}

/** kube-apiserver's wording for an error it did not expect. */
function internalError(err: string): ApiStatusError {
  return failureStatus(500, 'InternalError', `Internal error occurred: ${err}`, { causes: [{ message: err }] });
}
