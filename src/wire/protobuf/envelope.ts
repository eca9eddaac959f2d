// The envelope of kube's protobuf bodies: the magic bytes `k8s\0`, then a runtime.Unknown whose typeMeta names the
// object's apiVersion and kind and whose raw field carries the typed message.
import { MalformedProtobufError, UnsupportedProtobufError } from './errors.js';
import { WireReader, WireType } from './wire.js';

export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope { apiVersion: string; kind: string; raw: Uint8Array }

const utf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** The length-delimited fields of a message, by number (runtime.Unknown and TypeMeta have no others). */
function stringFields(buf: Uint8Array, at: string, known: number[]): Map<number, Uint8Array> {
  const reader = new WireReader(buf, at);
  const out = new Map<number, Uint8Array>();
  while (!reader.done()) {
    const { field, wireType, offset } = reader.tag();
    if (!known.includes(field)) throw new UnsupportedProtobufError(`${at} has field ${field} (wire type ${wireType}), which the sim has no schema for`);
    if (wireType !== WireType.LengthDelimited) throw reader.fail(`field ${field} has wire type ${wireType}, expected 2`, offset);
    out.set(field, reader.bytes());
  }
  return out;
}

export function readEnvelope(body: Uint8Array): Envelope {
  if (body.length < PROTOBUF_MAGIC.length || PROTOBUF_MAGIC.some((b, i) => body[i] !== b)) {
    throw new MalformedProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  // runtime.Unknown: typeMeta = 1, raw = 2, contentEncoding = 3, contentType = 4.
  const unknown = stringFields(body.subarray(PROTOBUF_MAGIC.length), 'runtime.Unknown', [1, 2, 3, 4]);
  const contentEncoding = utf8(unknown.get(3) ?? new Uint8Array());
  const contentType = utf8(unknown.get(4) ?? new Uint8Array());
  if (contentEncoding !== '') throw new UnsupportedProtobufError(`runtime.Unknown.contentEncoding ${JSON.stringify(contentEncoding)} is not supported`);
  if (contentType !== '' && contentType !== 'application/vnd.kubernetes.protobuf') {
    throw new UnsupportedProtobufError(`runtime.Unknown.contentType ${JSON.stringify(contentType)} is not supported`);
  }
  // runtime.TypeMeta: apiVersion = 1, kind = 2.
  const typeMeta = stringFields(unknown.get(1) ?? new Uint8Array(), 'runtime.Unknown.typeMeta', [1, 2]);
  const apiVersion = utf8(typeMeta.get(1) ?? new Uint8Array());
  const kind = utf8(typeMeta.get(2) ?? new Uint8Array());
  if (kind === '') throw new MalformedProtobufError("Object 'Kind' is missing in the protobuf envelope (runtime.Unknown.typeMeta.kind)");
  return { apiVersion, kind, raw: unknown.get(2) ?? new Uint8Array() };
}
