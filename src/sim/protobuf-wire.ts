// Protobuf on the wire, as kube-apiserver serves built-in kinds to clients that ask (client-go's protobuf content
// config: `Accept: application/vnd.kubernetes.protobuf, application/json`). Negotiation is kube's: the first entry of
// the Accept list the server offers wins (apiserver/pkg/endpoints/handlers/negotiation). A get or list answer (an
// error's Status too) is `k8s\0` + runtime.Unknown; a watch is `;stream=watch`: length-prefixed bare WatchEvents
// whose object.raw is the enveloped object (runtime/serializer/protobuf RawSerializer + framer). The JSON the handlers
// write is re-encoded on its way out (response-reencoder.ts, from-json.ts), so handlers serve protobuf without knowing it.
// Where kube and the sim differ: kube encodes every built-in kind; the sim only those src/wire/protobuf has schemas
// for (objectSchema), and answers JSON for the rest, and for any object carrying a field its schemas lack (a JSON
// answer is what a client gets for custom resources from kube too, so clients that ask for protobuf already read it).
import type { ServerResponse } from 'node:http';
import { UnsupportedProtobufError } from '../wire/protobuf/errors.js';
import { jsonToProtobuf, watchEventFrame } from '../wire/protobuf/from-json.js';
import { objectSchema } from '../wire/protobuf/schema.js';
import { reencodeResponse, type ResponseEncoding, type WatchEventJson } from './response-reencoder.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const WATCH_STREAM = `${PROTOBUF};stream=watch`;

/** Whether the Accept header's first entry the sim serves is protobuf (Table requests and wildcards are JSON). */
export function prefersProtobuf(accept: string | undefined): boolean {
  for (const entry of (accept ?? '').split(',')) {
    const [type, ...params] = entry.split(';').map((p) => p.trim().toLowerCase());
    if (!type) continue;
    if (type === PROTOBUF) return !params.some((p) => p.startsWith('as='));
    return false;
  }
  return false;
}

/** Whether the sim can answer this kind in protobuf at all (its schema is known). */
export function servesProtobuf(apiVersion: string, kind: string): boolean {
  return objectSchema(apiVersion, kind) !== undefined;
}

/** A watch event the schemas cannot hold ends the watch with an ERROR event naming the field (its type is fixed by then). */
function encodeWatchEvent(event: WatchEventJson): { bytes: Buffer; last?: boolean } {
  try {
    return { bytes: watchEventFrame(event.type, event.object) };
  } catch (err) {
    if (!(err instanceof UnsupportedProtobufError)) throw err;
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the sim cannot encode this ${event.type} event as protobuf: ${err.message}`, reason: 'InternalError', code: 500 };
    return { bytes: watchEventFrame('ERROR', status), last: true };
  }
}

/** A whole answer the schemas cannot hold goes out as the JSON it was. */
function encodeBody(value: unknown): Buffer | undefined {
  try {
    return jsonToProtobuf(value as Record<string, unknown>);
  } catch (err) {
    if (!(err instanceof UnsupportedProtobufError)) throw err;
    return undefined;
  }
}

const PROTOBUF_ENCODING: ResponseEncoding = { bodyType: PROTOBUF, watchType: WATCH_STREAM, encodeBody, encodeWatchEvent };

/**
 * Makes `res` re-encode what the handler writes as protobuf. A whole JSON body that the schemas cannot hold is sent
 * as the JSON it was (Content-Type says so). A watch event that cannot be encoded ends the watch with an ERROR event
 * (a Status naming the field), since the stream's type is fixed by then.
 */
export function serveAsProtobuf(res: ServerResponse, watch: boolean): void {
  reencodeResponse(res, watch, PROTOBUF_ENCODING);
}
