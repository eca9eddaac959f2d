// Builds kube-apiserver Status error bodies (exact reasons, codes and message formats) as SimApiErrors.
import { SimApiError } from './api.js';
import { goQuote } from './selector-error.js';

export type StatusBody = SimApiError['status'];

/** field.ErrorType strings of apimachinery. */
export type FieldErrorType = 'Forbidden' | 'Required value' | 'Invalid value' | 'Unsupported value' | 'Duplicate value' | 'Too long' | 'Too many';

export interface StatusCause { reason?: string; message: string; field?: string }

/** Names a resource the way Status messages do: `pods`, or `deployments.apps` outside the core group. */
export function qualifiedResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

function fail(code: number, reason: string, message: string, details?: Record<string, unknown>): SimApiError {
  const status: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new SimApiError(status);
}

function resourceDetails(resource: string, group: string, name?: string): Record<string, unknown> {
  const d: Record<string, unknown> = {};
  if (name !== undefined) d.name = name;
  if (group) d.group = group;
  d.kind = resource;
  return d;
}

export function notFound(resource: string, group: string, name: string): SimApiError {
  return fail(404, 'NotFound', `${qualifiedResource(resource, group)} "${name}" not found`, resourceDetails(resource, group, name));
}

/**
 * go-restful's answer for a path under one of its web services (/api/v1, /apis/GROUP/VERSION) that no route matches:
 * kube-apiserver's serviceErrorHandler (apiserver/pkg/server/handler.go) turns CurlyRouter's 404 into this Status via
 * NewGenericServerResponse, whose details are empty.
 */
export function routeNotFound(): SimApiError {
  return fail(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(resource: string, group: string, name: string): SimApiError {
  return fail(409, 'AlreadyExists', `${qualifiedResource(resource, group)} "${name}" already exists`, resourceDetails(resource, group, name));
}

export function conflict(resource: string, group: string, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): SimApiError {
  return fail(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${why}`, resourceDetails(resource, group, name));
}

export function badRequest(message: string): SimApiError {
  return fail(400, 'BadRequest', message);
}

/** One field.Error: `value` is printed as JSON, `goValue` verbatim (kube's %#v rendering of a Go struct or map). */
export interface FieldError {
  field: string; type: FieldErrorType; detail: string; value?: unknown; goValue?: string;
  /** The cause's reason when it is not the type's own (field.TypeInvalid prints "Invalid value" with reason FieldValueTypeInvalid). */
  reason?: string;
}

/** field.ErrorTypes whose message never shows the bad value (apimachinery's ErrorBody). */
const VALUELESS: ReadonlySet<FieldErrorType> = new Set(['Required value', 'Forbidden', 'Too long']);

/** 422 Invalid: `<Kind>.<group> "<name>" is invalid: <field>: <Type>: <detail>` with one cause per field error. */
export function invalid(kind: string, group: string, name: string, errs: FieldError[]): SimApiError {
  const reasons: Record<FieldErrorType, string> = { Forbidden: 'FieldValueForbidden', 'Required value': 'FieldValueRequired', 'Invalid value': 'FieldValueInvalid', 'Unsupported value': 'FieldValueNotSupported', 'Duplicate value': 'FieldValueDuplicate', 'Too long': 'FieldValueTooLong', 'Too many': 'FieldValueTooMany' };
  const texts = errs.map((e) => {
    let body: string = e.type;
    if (VALUELESS.has(e.type)) { /* no value shown */ } else if (e.goValue !== undefined) body += `: ${e.goValue}`;
    else if (typeof e.value === 'string') body += `: ${goQuote(e.value)}`;
    else if (e.value !== undefined) body += `: ${e.value === null ? 'null' : JSON.stringify(e.value)}`;
    if (e.detail) body += `: ${e.detail}`;
    return { field: e.field, reason: e.reason ?? reasons[e.type], message: body };
  });
  const joined = texts.map((t) => `${t.field}: ${t.message}`);
  const summary = joined.length === 1 ? joined[0] : `[${joined.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  // StatusDetails.name is omitempty (apimachinery meta/v1 types.go): an options kind's 422 has none.
  return fail(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    ...(name ? { name } : {}),
    ...(group ? { group } : {}),
    kind,
    causes: texts.map((t) => ({ reason: t.reason, message: t.message, field: t.field })),
  });
}

/** 422 from list/watch option validation (kind ListOptions in group meta.k8s.io). */
export function invalidListOptions(field: string, type: FieldErrorType, detail: string, value?: unknown): SimApiError {
  return invalid('ListOptions', 'meta.k8s.io', '', [{ field, type, detail, value }]);
}

export function expired(message: string, continueToken?: string): SimApiError {
  const e = fail(410, 'Expired', message);
  if (continueToken !== undefined) e.status.metadata = { continue: continueToken };
  return e;
}

export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): SimApiError {
  return fail(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}

export function methodNotAllowed(verb: string, resource: string): SimApiError {
  return fail(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${resource}"`, { kind: resource });
}

export function tooManyRequests(message: string, retryAfterSeconds: number): SimApiError {
  return fail(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function internalError(err: string, retryAfterSeconds?: number): SimApiError {
  return fail(500, 'InternalError', `Internal error occurred: ${err}`, { causes: [{ message: err }], ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
}

export function serviceUnavailable(message: string, retryAfterSeconds?: number): SimApiError {
  return fail(503, 'ServiceUnavailable', message, retryAfterSeconds ? { retryAfterSeconds } : undefined);
}

/** kube's 415 for a body in a media type the handler does not take (handlers/negotiation/errors.go: the list, in order). */
export function unsupportedMediaType(accepted: readonly string[]): SimApiError {
  return fail(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function notAcceptable(message: string): SimApiError {
  return fail(406, 'NotAcceptable', message);
}
