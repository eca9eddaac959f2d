// A client's write made a dry run on the target (intercept, server-dry-run): dryRun=All in the query of every write
// and, for DELETE and DELETECOLLECTION with a body, in the DeleteOptions body too. kube-apiserver reads DeleteOptions
// from the body whenever there is one and then never looks at the query (apiserver/pkg/endpoints/handlers/delete.go,
// DeleteResource and DeleteCollection), and client-go, controller-runtime, kubectl and the Python client all send one.
// A write whose dry run cannot be guaranteed is not forwarded: the client gets a Status saying why.
import { parse as parseYaml } from 'yaml';
import { ApiStatusError } from '../wire/api-status.js';
import { PROTOBUF_MAGIC } from '../wire/protobuf/envelope.js';
import { WireReader, WireType } from '../wire/protobuf/wire.js';
import type { RequestInfo } from './request-info.js';

export interface DryRunWrite {
  /** The request target with dryRun=All. */
  target: string;
  /** The body to send: the client's, or its DeleteOptions with dryRun ["All"]. */
  body: Buffer | undefined;
  /** Set when the body was re-encoded in another media type (YAML is sent on as JSON). */
  contentType?: string;
}

/** What the trace's `refused` says of a write kwatch could not make a dry run. */
export const DRY_RUN_IMPOSSIBLE = 'dryRun cannot be set in its DeleteOptions body';

/** The write as a dry run, or the Status to answer with when it cannot be made one. */
export function dryRunWrite(info: RequestInfo, target: string, body: Buffer | undefined, contentType: string | undefined): DryRunWrite | ApiStatusError {
  const query = withDryRun(target);
  const deleting = info.verb === 'delete' || info.verb === 'deletecollection';
  if (!deleting || body === undefined || body.length === 0) return { target: query, body };
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  try {
    // kube decodes a body without Content-Type as JSON (its first supported media type).
    if (type === '' || type === 'application/json') return { target: query, body: Buffer.from(JSON.stringify(withDryRunOption(JSON.parse(body.toString('utf8'))))) };
    if (type === 'application/yaml') return { target: query, body: Buffer.from(JSON.stringify(withDryRunOption(parseYaml(body.toString('utf8'), { version: '1.1' })))), contentType: 'application/json' };
    if (type === 'application/vnd.kubernetes.protobuf') return { target: query, body: protobufWithDryRun(body) };
  } catch (err) {
    return refused(400, 'BadRequest', `kwatch endpoint (--writes dry run): the ${info.verb} request's DeleteOptions body could not be read (${(err as Error).message}), so dryRun could not be set in it; not forwarded`);
  }
  return refused(415, 'UnsupportedMediaType', `kwatch endpoint (--writes dry run): a ${info.verb} request's DeleteOptions body in ${JSON.stringify(contentType)} cannot be rewritten to carry dryRun, and kube-apiserver ignores the query's dryRun when a body is sent; not forwarded (send the body as JSON, YAML or protobuf)`);
}

/** The request target with dryRun=All: the target runs defaulting, validation and admission, stores nothing. */
export function withDryRun(target: string): string {
  const q = target.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
  if (params.getAll('dryRun').includes('All')) return target;
  params.append('dryRun', 'All');
  return `${q < 0 ? target : target.slice(0, q)}?${params.toString()}`;
}

/** DeleteOptions with dryRun ["All"] last: any key an older, case-insensitive JSON decoder would read as dryRun goes. */
function withDryRunOption(v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('it is not an object');
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (k.toLowerCase() !== 'dryrun') out[k] = x;
  out.dryRun = ['All'];
  return out;
}

/** DeleteOptions' field number for dryRun (repeated string), in every API version's generated.proto. */
const DELETE_OPTIONS_DRY_RUN = 5;

/**
 * A protobuf DeleteOptions (kube's envelope: `k8s\0`, then runtime.Unknown with raw = 2) with every dryRun value
 * dropped and "All" appended. Other fields are copied byte for byte.
 */
function protobufWithDryRun(body: Buffer): Buffer {
  if (body.length < PROTOBUF_MAGIC.length || PROTOBUF_MAGIC.some((b, i) => body[i] !== b)) throw new Error('it is not a protobuf envelope');
  const unknown = body.subarray(PROTOBUF_MAGIC.length);
  const parts: Buffer[] = [Buffer.from(PROTOBUF_MAGIC)];
  let raw: Uint8Array = new Uint8Array();
  for (const f of fields(unknown, 'runtime.Unknown')) {
    if (f.field === 3 && f.value.length > 0) throw new Error('runtime.Unknown.contentEncoding is set');
    if (f.field === 2) raw = f.value;
    else parts.push(f.bytes);
  }
  const options: Buffer[] = [];
  for (const f of fields(raw, 'DeleteOptions')) if (f.field !== DELETE_OPTIONS_DRY_RUN) options.push(f.bytes);
  options.push(lengthDelimited(DELETE_OPTIONS_DRY_RUN, Buffer.from('All')));
  parts.push(lengthDelimited(2, Buffer.concat(options)));
  return Buffer.concat(parts);
}

interface Field { field: number; wireType: number; bytes: Buffer; value: Uint8Array }

/** A message's fields in order: each with its bytes as sent (tag included) and, when length-delimited, its payload. */
function fields(buf: Uint8Array, at: string): Field[] {
  const reader = new WireReader(buf, at);
  const out: Field[] = [];
  while (!reader.done()) {
    const { field, wireType, offset } = reader.tag();
    let value: Uint8Array = new Uint8Array();
    if (wireType === WireType.LengthDelimited) value = reader.bytes();
    else reader.skip(wireType);
    out.push({ field, wireType, bytes: Buffer.from(buf.subarray(offset, reader.offset)), value });
  }
  return out;
}

function lengthDelimited(field: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | WireType.LengthDelimited), varint(payload.length), payload]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) { out.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
  out.push(n);
  return Buffer.from(out);
}

function refused(code: number, reason: string, message: string): ApiStatusError {
  return new ApiStatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}
