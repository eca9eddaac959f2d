// Reading a body that crossed the endpoint, for the trace only: JSON as it is, a Kubernetes protobuf envelope through the
// shared protobuf decoder in src/wire (kubectl and client-go send built-in kinds as protobuf), CBOR (KEP-4222: client-go
// with ClientsPreferCBOR, a server with CBORServingAndStorage) through the client side's decoder, which reads kube's
// own encoding. The bytes are forwarded as they came either way. Undecodable bodies pass through untraced.
import { protobufToJson } from '../wire/protobuf/to-json.js';
import { decodeCborBody } from '../kube/http/cbor-body.js';
import { isCborType } from '../kube/http/cbor-media.js';
import { isProtobufType } from '../kube/http/protobuf-media.js';

export function decodeBody(body: Buffer | undefined, contentType: string | undefined): Record<string, unknown> | undefined {
  if (!body || body.length === 0) return undefined;
  try {
    const v = isProtobufType(contentType) ? protobufToJson(body) : isCborType(contentType) ? decodeCborBody(body) : (JSON.parse(body.toString('utf8')) as unknown);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
