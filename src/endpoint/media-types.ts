// What the endpoint refuses before anything reaches the target or the fork: a client that asks for, or sends, a media
// type no Kubernetes API speaks gets kube-apiserver's 406 or 415 in one clear Status, in every write mode alike.
import { ApiStatusError } from '../wire/api-status.js';
import { parseAccept } from '../wire/accept-header.js';

/** Answer types an API server encodes (kube 1.32: JSON, YAML, protobuf; CBOR behind a feature gate). */
const ANSWER_SUBTYPES = new Set(['json', 'yaml', 'vnd.kubernetes.protobuf', 'cbor', '*']);
/** Body types an API server decodes, patch types included. */
const BODY_TYPES = new Set([
  'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor',
  'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json', 'application/apply-patch+yaml', 'application/apply-patch+cbor',
]);

/** undefined when the request's media types are ones an API server speaks, else the Status to answer with. */
export function refusedMediaType(accept: string | undefined, contentType: string | undefined, hasBody: boolean, method = 'POST'): ApiStatusError | undefined {
  if (accept && accept.trim() !== '') {
    const ok = parseAccept(accept).some((c) => c.q > 0 && (c.type === '*' || (c.type === 'application' && ANSWER_SUBTYPES.has(c.subtype))));
    if (!ok) return status(406, 'NotAcceptable', `kwatch endpoint: Accept ${JSON.stringify(accept)}: only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
  }
  if (hasBody) {
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    // No Content-Type is JSON for a create or an update: kube-apiserver's NegotiateInputSerializerForMediaType takes
    // its first serializer, JSON, for an empty media type (apiserver/pkg/endpoints/handlers/negotiation/negotiate.go;
    // Patroni posts that way). A PATCH names its patch type or the target answers 415 itself.
    if (type === '' && method.toUpperCase() !== 'PATCH') return undefined;
    if (!BODY_TYPES.has(type)) return status(415, 'UnsupportedMediaType', `kwatch endpoint: the body's Content-Type ${JSON.stringify(contentType ?? '')} is not one an API server decodes (application/json, application/yaml, application/vnd.kubernetes.protobuf, or a patch type)`);
  }
  return undefined;
}

function status(code: number, reason: string, message: string): ApiStatusError {
  return new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}
