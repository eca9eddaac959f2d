// The two ways a protobuf request body can fail to decode; the HTTP layer maps them to kube Status codes.

/** The body is not well-formed protobuf, or not a valid value of its type: the request is at fault (400 BadRequest). */
export class MalformedProtobufError extends Error {}

/**
 * The body may be valid, but names a kind or field the sim has no schema for (415 UnsupportedMediaType). Decoding
 * stops rather than dropping what it does not understand, so nothing a client sent is silently lost.
 */
export class UnsupportedProtobufError extends Error {}
