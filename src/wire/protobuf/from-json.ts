// The inverse of to-json.ts: a JSON object to the typed protobuf message its Go type marshals to, driven by the same
// schemas. A JSON field the schema does not know is an UnsupportedProtobufError (the caller answers JSON instead),
// never silently dropped.
import { UnsupportedProtobufError } from './errors.js';
import { PROTOBUF_MAGIC } from './envelope.js';
import { messageSchema, objectSchema, type FieldSchema, type MessageSchema } from './schema.js';

type JsonObject = Record<string, unknown>;

/** Protobuf wire format, write side: a growing list of byte chunks. */
class WireWriter {
  private readonly parts: Uint8Array[] = [];

  varint(v: bigint): void {
    let n = BigInt.asUintN(64, v);
    const out: number[] = [];
    while (n >= 0x80n) { out.push(Number(n & 0x7fn) | 0x80); n >>= 7n; }
    out.push(Number(n));
    this.parts.push(Uint8Array.from(out));
  }

  tag(field: number, wireType: number): void { this.varint(BigInt((field << 3) | wireType)); }

  bytes(field: number, payload: Uint8Array): void {
    this.tag(field, 2);
    this.varint(BigInt(payload.length));
    this.parts.push(payload);
  }

  finish(): Buffer { return Buffer.concat(this.parts); }
}

/** A whole object as kube's protobuf body: `k8s\0`, then runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
export function jsonToProtobuf(obj: JsonObject): Buffer {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const schema = objectSchema(apiVersion, kind);
  if (!schema) throw new UnsupportedProtobufError(`the sim has no protobuf schema for ${kind} in ${apiVersion}`);
  const rest: JsonObject = { ...obj };
  delete rest.apiVersion;
  delete rest.kind;
  return envelope(apiVersion, kind, encodeMessage(schema, rest, kind));
}

export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = new WireWriter();
  typeMeta.bytes(1, Buffer.from(apiVersion));
  typeMeta.bytes(2, Buffer.from(kind));
  const unknown = new WireWriter();
  unknown.bytes(1, typeMeta.finish());
  unknown.bytes(2, raw);
  return Buffer.concat([PROTOBUF_MAGIC, unknown.finish()]);
}

/** One watch event as kube's `;stream=watch` frame: a 4-byte big-endian length, then a bare metav1.WatchEvent. */
export function watchEventFrame(type: string, object: JsonObject): Buffer {
  const rawExtension = new WireWriter();
  rawExtension.bytes(1, jsonToProtobuf(object));
  const event = new WireWriter();
  event.bytes(1, Buffer.from(type));
  event.bytes(2, rawExtension.finish());
  const body = event.finish();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

function encodeMessage(schema: MessageSchema, obj: JsonObject, path: string): Buffer {
  const w = new WireWriter();
  const known = new Set<string>();
  for (const f of schema.fields.values()) {
    if (f.inline) {
      const nested = messageSchema(f.type);
      for (const g of nested.fields.values()) known.add(g.json);
      w.bytes(f.number, encodeMessage(nested, pick(obj, nested), path));
      continue;
    }
    known.add(f.json);
    const v = obj[f.json];
    // A zero metav1.Time (or MicroTime) is JSON null; gogo writes it as an empty message, which decodes back to null.
    if (v === null && (f.type === 'Time' || f.type === 'MicroTime') && !f.repeated && !f.map) { w.bytes(f.number, new Uint8Array()); continue; }
    if (v === undefined || v === null) continue;
    writeField(w, f, v, `${path}.${f.json}`);
  }
  const unknown = Object.keys(obj).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new UnsupportedProtobufError(`${path} (${schema.fullName}) has field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} that the sim has no protobuf schema for`);
  return w.finish();
}

function pick(obj: JsonObject, schema: MessageSchema): JsonObject {
  const names = new Set([...schema.fields.values()].map((f) => f.json));
  return Object.fromEntries(Object.entries(obj).filter(([k]) => names.has(k)));
}

function writeField(w: WireWriter, f: FieldSchema, v: unknown, path: string): void {
  if (f.map) {
    if (typeof v !== 'object' || Array.isArray(v)) throw new UnsupportedProtobufError(`${path}: expected an object`);
    for (const [key, value] of Object.entries(v as JsonObject)) {
      const entry = new WireWriter();
      entry.bytes(1, Buffer.from(key));
      writeValue(entry, { ...f, number: 2, repeated: false, map: false }, value, `${path}[${JSON.stringify(key)}]`);
      w.bytes(f.number, entry.finish());
    }
    return;
  }
  if (f.repeated) {
    if (!Array.isArray(v)) throw new UnsupportedProtobufError(`${path}: expected an array`);
    v.forEach((item, i) => writeValue(w, f, item, `${path}[${i}]`));
    return;
  }
  writeValue(w, f, v, path);
}

function writeValue(w: WireWriter, f: FieldSchema, v: unknown, path: string): void {
  if (!f.scalar) {
    const schema = messageSchema(f.type);
    w.bytes(f.number, encodeMessage(schema, customToMessage(schema.name, v, path), path));
    return;
  }
  const wrong = (): never => { throw new UnsupportedProtobufError(`${path}: ${JSON.stringify(v)} is not a ${f.type}`); };
  switch (f.type) {
    case 'string': if (typeof v !== 'string') wrong(); w.bytes(f.number, Buffer.from(v as string)); return;
    case 'bytes': if (typeof v !== 'string') wrong(); w.bytes(f.number, Buffer.from(v as string, 'base64')); return;
    case 'bool': if (typeof v !== 'boolean') wrong(); w.tag(f.number, 0); w.varint(v ? 1n : 0n); return;
    default: // int32, int64: negatives are sign-extended to 64 bits, as proto's int32 is
      if (typeof v !== 'number' || !Number.isInteger(v)) wrong();
      w.tag(f.number, 0); w.varint(BigInt(v as number));
  }
}

/** The message form of the types whose Go JSON is their own (well-known.ts, read the other way). */
function customToMessage(name: string, v: unknown, path: string): JsonObject {
  switch (name) {
    case 'Time': {
      const ms = typeof v === 'string' ? Date.parse(v) : NaN;
      if (Number.isNaN(ms)) throw new UnsupportedProtobufError(`${path}: ${JSON.stringify(v)} is not an RFC 3339 time`);
      return { seconds: Math.floor(ms / 1000) };
    }
    case 'MicroTime': return microTimeMessage(v, path);
    case 'Quantity': return { string: String(v) };
    case 'IntOrString': return typeof v === 'number' ? { type: 0, intVal: v } : { type: 1, strVal: String(v) };
    case 'FieldsV1': return { Raw: Buffer.from(JSON.stringify(v)).toString('base64') };
    case 'ExtraValue': return { items: v };
    default:
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UnsupportedProtobufError(`${path}: expected an object`);
      return v as JsonObject;
  }
}

/** An RFC 3339 time with up to nanosecond digits as MicroTime's seconds and nanos (Date.parse keeps only milliseconds). */
function microTimeMessage(v: unknown, path: string): JsonObject {
  const m = typeof v === 'string' ? /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i.exec(v) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new UnsupportedProtobufError(`${path}: ${JSON.stringify(v)} is not an RFC 3339 time`);
  const nanos = Number((m[2] ?? '').padEnd(9, '0'));
  return nanos ? { seconds: Math.floor(ms / 1000), nanos } : { seconds: Math.floor(ms / 1000) };
}
