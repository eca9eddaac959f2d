// Converts a typed protobuf message to the JSON its Go type marshals to, field by field as the schemas describe.
import { UnsupportedProtobufError } from './errors.js';
import { readEnvelope } from './envelope.js';
import { decodableKinds, messageSchema, objectSchema, type FieldSchema, type MessageSchema } from './schema.js';
import { CUSTOM_JSON } from './well-known.js';
import { toInt32, toInt64, WireReader, WireType } from './wire.js';

type JsonObject = Record<string, unknown>;
/** A field value as read off the wire: a varint, or a length-delimited payload. */
type WireValue = bigint | Uint8Array;

/** Decodes a whole protobuf request body (envelope and object) to the object's JSON, kind and apiVersion first. */
export function protobufToJson(body: Uint8Array): JsonObject {
  const { apiVersion, kind, raw } = readEnvelope(body);
  const schema = objectSchema(apiVersion, kind);
  if (!schema) {
    throw new UnsupportedProtobufError(`the sim cannot decode protobuf bodies of kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)}; it decodes ${decodableKinds().join(', ')} and DeleteOptions`);
  }
  return { kind, apiVersion, ...messageToJson(schema, raw, kind) };
}

/** A message's JSON object, with fields in field-number order; zero values dropped where Go's omitempty would. */
function messageToJson(schema: MessageSchema, buf: Uint8Array, path: string): JsonObject {
  const values = readFields(schema, buf, path);
  const out: JsonObject = {};
  for (const field of schema.fields.values()) {
    const vals = values.get(field.number);
    if (vals === undefined) continue;
    if (field.inline) {
      Object.assign(out, messageValue(messageSchema(field.type), joined(vals), path));
      continue;
    }
    const v = fieldToJson(field, vals, `${path}.${field.json}`);
    if (v !== undefined) out[field.json] = v;
  }
  return out;
}

/** A message's JSON value: its object, or what its Go type's own MarshalJSON gives (Time, Quantity, …). */
function messageValue(schema: MessageSchema, buf: Uint8Array, path: string): unknown {
  const obj = messageToJson(schema, buf, path);
  const custom = CUSTOM_JSON[schema.name];
  return custom ? custom(obj, buf, path) : obj;
}

function readFields(schema: MessageSchema, buf: Uint8Array, path: string): Map<number, WireValue[]> {
  const reader = new WireReader(buf, `${path} (${schema.fullName})`);
  const values = new Map<number, WireValue[]>();
  const unknown: string[] = [];
  while (!reader.done()) {
    const { field, wireType, offset } = reader.tag();
    const f = schema.fields.get(field);
    if (f === undefined) {
      // Keep reading so the error names every field the sim does not know, not just the first.
      reader.skip(wireType);
      unknown.push(`${field} (wire type ${wireType})`);
      continue;
    }
    if (!wireTypeFits(f, wireType)) throw reader.fail(`field ${field} (${f.json}) has wire type ${wireType}, which a ${fieldTypeName(f)} never has`, offset);
    const v = wireType === WireType.Varint ? reader.varint() : reader.bytes();
    const list = values.get(field);
    if (list) list.push(v); else values.set(field, [v]);
  }
  if (unknown.length > 0) {
    throw new UnsupportedProtobufError(`${path} (${schema.fullName}) has field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} that the sim has no schema for; send this object as JSON instead`);
  }
  return values;
}

const VARINT_SCALARS = new Set(['bool', 'int32', 'int64']);

function wireTypeFits(f: FieldSchema, wireType: number): boolean {
  if (f.scalar && VARINT_SCALARS.has(f.type) && !f.map) {
    // Repeated numbers may also come packed into one length-delimited run.
    return wireType === WireType.Varint || (f.repeated && wireType === WireType.LengthDelimited);
  }
  return wireType === WireType.LengthDelimited;
}

function fieldTypeName(f: FieldSchema): string {
  return f.map ? `map<string, ${f.type}>` : `${f.repeated ? 'repeated ' : ''}${f.type}`;
}

/** A field's JSON value, or undefined when Go would omit it. */
function fieldToJson(f: FieldSchema, vals: WireValue[], path: string): unknown {
  if (f.map) return mapToJson(f, vals as Uint8Array[], path);
  if (!f.scalar) {
    const schema = messageSchema(f.type);
    if (f.repeated) return vals.map((v, i) => messageValue(schema, v as Uint8Array, `${path}[${i}]`));
    return messageValue(schema, joined(vals), path);
  }
  if (f.repeated) {
    const items = VARINT_SCALARS.has(f.type) ? vals.flatMap((v) => (typeof v === 'bigint' ? [v] : unpackVarints(v, path))) : vals;
    return items.length > 0 ? items.map((v, i) => scalarToJson(f.type, v, `${path}[${i}]`)) : undefined;
  }
  // A scalar sent more than once: the last one wins, as in every protobuf decoder.
  const v = scalarToJson(f.type, vals[vals.length - 1], path);
  return f.keepZero || !isZero(v) ? v : undefined;
}

/** A singular message sent in several pieces is their merge, which decoding the concatenation gives. */
function joined(vals: WireValue[]): Uint8Array {
  return vals.length === 1 ? (vals[0] as Uint8Array) : Buffer.concat(vals as Uint8Array[]);
}

const mapEntrySchemas = new Map<FieldSchema, MessageSchema>();

/** The implicit message of a map's entries: key = 1, value = 2; both keep zero values (an empty label value is one). */
function mapEntrySchema(f: FieldSchema): MessageSchema {
  let s = mapEntrySchemas.get(f);
  if (!s) {
    const entryField = (number: number, json: string, type: string): FieldSchema => ({ number, json, type, scalar: type === 'string' || type === 'bytes', repeated: false, map: false, keepZero: true, inline: false });
    s = { name: `${f.json} entry`, fullName: `map<string, ${f.type}> entry`, fields: new Map([[1, entryField(1, 'key', 'string')], [2, entryField(2, 'value', f.type)]]) };
    mapEntrySchemas.set(f, s);
  }
  return s;
}

function mapToJson(f: FieldSchema, entries: Uint8Array[], path: string): JsonObject | undefined {
  const schema = mapEntrySchema(f);
  const valueField = schema.fields.get(2)!;
  const out: JsonObject = {};
  for (const entry of entries) {
    const kv = readFields(schema, entry, `${path}{}`);
    const key = kv.has(1) ? (scalarToJson('string', kv.get(1)!.at(-1)!, path) as string) : '';
    // An entry without a value maps its key to the zero value (an empty payload decodes to it for every map type).
    const value = fieldToJson(valueField, kv.get(2) ?? [new Uint8Array()], `${path}[${JSON.stringify(key)}]`);
    // defineProperty: a key such as "__proto__" must become data, never the object's prototype.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function unpackVarints(buf: Uint8Array, path: string): bigint[] {
  const reader = new WireReader(buf, `${path} (packed)`);
  const out: bigint[] = [];
  while (!reader.done()) out.push(reader.varint());
  return out;
}

function scalarToJson(type: string, v: WireValue, path: string): unknown {
  switch (type) {
    case 'string': return Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString('utf8');
    case 'bytes': return Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength).toString('base64');
    case 'bool': return v !== 0n;
    case 'int32': return toInt32(v as bigint);
    case 'int64': {
      const n = toInt64(v as bigint);
      if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new UnsupportedProtobufError(`${path}: int64 value ${n} is beyond what the sim's JSON numbers hold exactly (±2^53)`);
      }
      return Number(n);
    }
    default: throw new Error(`${path}: unknown scalar type ${type}`);
  }
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}
