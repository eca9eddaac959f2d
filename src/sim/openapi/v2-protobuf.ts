// The v2 document in the protobuf form kubectl asks for (gnostic's openapi_v2.Document, application/com.github.
// proto-openapi.spec.v2@v1.0+protobuf): client-go's discovery client decodes only this form, and a 406 sends it to an
// endpoint that no longer exists, so kubectl's fallback validation needs it. Vendor extensions and defaults travel as
// Any{yaml} — JSON text, which is YAML.
import type { Schema } from './definitions.js';
import type { V2Document } from './documents.js';

/** Encodes one protobuf message: fields appended in order, each as its wire bytes. */
class Message {
  private readonly parts: Buffer[] = [];

  private tag(field: number, wire: number): void { this.varint((field << 3) | wire); }

  private varint(n: number): void {
    const bytes: number[] = [];
    while (n > 0x7f) { bytes.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
    bytes.push(n);
    this.parts.push(Buffer.from(bytes));
  }

  string(field: number, s: string | undefined): this {
    if (s === undefined || s === '') return this;
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }

  strings(field: number, list: readonly string[] | undefined): this {
    for (const s of list ?? []) this.bytes(field, Buffer.from(s, 'utf8'));
    return this;
  }

  bool(field: number, b: boolean | undefined): this {
    if (!b) return this;
    this.tag(field, 0);
    this.varint(1);
    return this;
  }

  message(field: number, m: Message | undefined): this {
    return m ? this.bytes(field, m.encode()) : this;
  }

  private bytes(field: number, b: Buffer): this {
    this.tag(field, 2);
    this.varint(b.length);
    this.parts.push(b);
    return this;
  }

  encode(): Buffer { return Buffer.concat(this.parts); }
}

/** Any{yaml}: a value as YAML text (JSON is YAML). */
const anyValue = (v: unknown) => new Message().string(2, JSON.stringify(v));

/** repeated NamedAny vendor_extension: the x-… keys of an object. */
function vendorExtensions(m: Message, field: number, o: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(o)) if (k.startsWith('x-')) m.message(field, new Message().string(1, k).message(2, anyValue(v)));
}

function schema(s: Schema): Message {
  const m = new Message()
    .string(1, s.$ref).string(2, s.format).string(4, s.description);
  if (s.default !== undefined) m.message(5, anyValue(s.default));
  m.strings(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) m.message(20, anyValue(e));
  if (typeof s.additionalProperties === 'object') m.message(21, new Message().message(1, schema(s.additionalProperties)));
  else if (typeof s.additionalProperties === 'boolean') m.message(21, new Message().bool(2, s.additionalProperties));
  if (s.type) m.message(22, new Message().strings(1, [s.type]));
  if (s.items) m.message(23, new Message().message(1, schema(s.items)));
  for (const a of s.allOf ?? []) m.message(24, schema(a));
  if (s.properties) {
    const props = new Message();
    for (const [name, p] of Object.entries(s.properties)) props.message(1, new Message().string(1, name).message(2, schema(p)));
    m.message(25, props);
  }
  vendorExtensions(m, 31, s);
  return m;
}

interface V2Param { name: string; in: string; description?: string; required?: boolean; type?: string; uniqueItems?: boolean; schema?: Schema }

function parameter(p: V2Param): Message {
  if (p.in === 'body') {
    return new Message().message(1, new Message().string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required).message(5, p.schema && schema(p.schema)));
  }
  // Query and path sub-schemas share their first fields' layout: required, in, description, name; then type.
  const sub = new Message().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name);
  if (p.in === 'query') sub.string(6, p.type).bool(20, p.uniqueItems);
  else sub.string(5, p.type).bool(19, p.uniqueItems);
  const nonBody = new Message().message(p.in === 'query' ? 3 : 4, sub);
  return new Message().message(2, nonBody);
}

const parametersItem = (p: V2Param) => new Message().message(1, parameter(p));

interface V2Op { description?: string; consumes?: string[]; produces?: string[]; schemes?: string[]; tags?: string[]; operationId?: string; parameters?: V2Param[]; responses?: Record<string, { description: string; schema?: Schema }>; [k: string]: unknown }

function operation(o: V2Op): Message {
  const m = new Message().strings(1, o.tags).string(3, o.description).string(5, o.operationId).strings(6, o.produces).strings(7, o.consumes);
  for (const p of o.parameters ?? []) m.message(8, parametersItem(p));
  const responses = new Message();
  for (const [code, r] of Object.entries(o.responses ?? {})) {
    const resp = new Message().string(1, r.description).message(2, r.schema && new Message().message(1, schema(r.schema)));
    responses.message(1, new Message().string(1, code).message(2, new Message().message(1, resp)));
  }
  m.message(9, responses).strings(10, o.schemes);
  vendorExtensions(m, 13, o);
  return m;
}

const METHOD_FIELDS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

/** The document as gnostic's openapi_v2.Document protobuf. */
export function encodeV2Protobuf(doc: V2Document): Buffer {
  const paths = new Message();
  for (const [path, item] of Object.entries(doc.paths)) {
    const pi = new Message();
    for (const [method, field] of Object.entries(METHOD_FIELDS)) if (item[method]) pi.message(field, operation(item[method] as V2Op));
    for (const p of (item.parameters ?? []) as V2Param[]) pi.message(9, parametersItem(p));
    paths.message(2, new Message().string(1, path).message(2, pi));
  }
  const definitions = new Message();
  for (const [name, s] of Object.entries(doc.definitions)) definitions.message(1, new Message().string(1, name).message(2, schema(s)));
  return new Message()
    .string(1, doc.swagger)
    .message(2, new Message().string(1, doc.info.title).string(2, doc.info.version))
    .message(8, paths)
    .message(9, definitions)
    .encode();
}
