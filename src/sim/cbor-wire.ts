// CBOR on the wire (KEP-4222), behind the CBORServingAndStorage gate: a client whose Accept prefers application/cbor
// gets every answer of a get or list (errors too) as self-described CBOR (tag 55799, the 0xd9d9f7 prefix, as kube's
// CBOR serializer writes it), and a watch asked for as application/cbor-seq gets one such data item per event.
// Clients that never ask (kubectl, the Python client) keep JSON. With the gate off, a client that accepts nothing
// but CBOR gets the 406 kube gives. The JSON the handlers write is re-encoded on its way out (response-reencoder.ts), so every handler
// serves CBOR without knowing it. Encoding and decoding are cborg's (a maintained, strict CBOR library).
import type { ServerResponse } from 'node:http';
import { decode, encode } from 'cborg';
import { notAcceptable } from './status.js';
import { reencodeResponse, type ResponseEncoding } from './response-reencoder.js';

export const CBOR = 'application/cbor';
export const CBOR_SEQ = 'application/cbor-seq';
/** kube's self-described CBOR tag (RFC 8949 §3.4.6). */
const SELF_DESCRIBED = 55799;
const SELF_DESCRIBED_PREFIX = Buffer.from([0xd9, 0xd9, 0xf7]);

/** The media types kube-apiserver serves without CBOR, as its 406 lists them. */
const SERVED_WITHOUT_CBOR = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

/** A JSON value as one self-described CBOR data item. */
export function encodeCbor(value: unknown): Buffer {
  return Buffer.concat([SELF_DESCRIBED_PREFIX, Buffer.from(encode(value))]);
}

/** One CBOR data item (self-described or not) as a JSON value. */
export function decodeCbor(bytes: Uint8Array): unknown {
  // cborg's tag decoders decode their content themselves; the self-described tag only marks the item as CBOR.
  const tags: ((content: () => unknown) => unknown)[] = [];
  tags[SELF_DESCRIBED] = (content) => content();
  return decode(bytes, { tags: tags as never });
}

/** Which wire the Accept header chooses for this request: the first entry the server can serve, in order. */
export function negotiateCbor(accept: string | undefined, watch: boolean, gateOn: boolean): 'cbor' | 'json' {
  const entries = (accept ?? '').split(',').map((p) => p.split(';')[0].trim().toLowerCase()).filter(Boolean);
  if (entries.length === 0) return 'json';
  const cborTypes = watch ? [CBOR_SEQ, CBOR] : [CBOR];
  for (const t of entries) {
    if (cborTypes.includes(t)) { if (gateOn) return 'cbor'; continue; }
    // Anything else the sim answers (JSON, protobuf and Table requests fall back to JSON, wildcards).
    return 'json';
  }
  // Only CBOR was acceptable, and the gate is off.
  throw notAcceptable(SERVED_WITHOUT_CBOR);
}

/** CBOR as the response re-encoder needs it: a whole answer is one item, a watch one item per event. */
const CBOR_ENCODING: ResponseEncoding = {
  bodyType: CBOR,
  watchType: CBOR_SEQ,
  encodeBody: (value) => encodeCbor(value),
  encodeWatchEvent: (event) => ({ bytes: encodeCbor(event) }),
};

/**
 * Makes `res` re-encode what the handler writes: a whole JSON body becomes one CBOR item (Content-Type
 * application/cbor), a watch's JSON lines become a sequence of items (application/cbor-seq).
 */
export function serveAsCbor(res: ServerResponse, watch: boolean): void {
  reencodeResponse(res, watch, CBOR_ENCODING);
}
