// CBOR on the wire (KEP-4222), behind the CBORServingAndStorage gate: a client whose Accept prefers application/cbor
// gets every answer of a get or list (errors too) as self-described CBOR (tag 55799, the 0xd9d9f7 prefix, as kube's
// CBOR serializer writes it), and a watch asked for as application/cbor-seq gets one such data item per event.
// Clients that never ask (kubectl, the Python client) keep JSON. With the gate off, a client that accepts nothing
// but CBOR gets the 406 kube gives. The JSON the handlers write is re-encoded on its way out, so every handler
// serves CBOR without knowing it. Encoding and decoding are cborg's (a maintained, strict CBOR library).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decode, encode } from 'cborg';
import { notAcceptable } from './status.js';

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

/**
 * Makes `res` re-encode what the handler writes: a whole JSON body becomes one CBOR item (Content-Type
 * application/cbor), a watch's JSON lines become a sequence of items (application/cbor-seq).
 */
export function serveAsCbor(req: IncomingMessage, res: ServerResponse, watch: boolean): void {
  const origWrite = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const origEnd = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const origWriteHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  let json = false;
  let buffered: Buffer[] = [];
  let pending = '';
  const isJsonType = (headers: unknown): boolean => {
    const h = (headers ?? {}) as Record<string, unknown>;
    const ct = String(h['Content-Type'] ?? h['content-type'] ?? res.getHeader('Content-Type') ?? '');
    return ct.split(';')[0].trim() === 'application/json';
  };
  res.writeHead = ((code: number, ...rest: unknown[]) => {
    const headers = (typeof rest[0] === 'string' ? rest[1] : rest[0]) as Record<string, unknown> | undefined;
    json = isJsonType(headers);
    if (!json) return origWriteHead(code, ...rest);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() !== 'content-length' && k.toLowerCase() !== 'content-type') out[k] = v;
    out['Content-Type'] = watch && code === 200 ? CBOR_SEQ : CBOR;
    return origWriteHead(code, out);
  }) as typeof res.writeHead;
  const toBuffer = (chunk: unknown): Buffer => (Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  /** Watch lines → CBOR items; the text after the last newline waits for the rest of its line. */
  const seq = (text: string): Buffer => {
    pending += text;
    const items: Buffer[] = [];
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim()) items.push(encodeCbor(JSON.parse(line)));
    }
    return Buffer.concat(items);
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!json) return origWrite(chunk, ...rest);
    if (watch && res.statusCode === 200) {
      const out = seq(toBuffer(chunk).toString('utf8'));
      const cb = rest.find((r) => typeof r === 'function');
      return out.length ? origWrite(out, ...(cb ? [cb] : [])) : (cb && (cb as () => void)(), true);
    }
    buffered.push(toBuffer(chunk));
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const data = typeof chunk === 'function' || chunk === undefined || chunk === null ? undefined : chunk;
    if (!json) return data === undefined ? origEnd(...(typeof chunk === 'function' ? [chunk] : [])) : origEnd(data, ...rest);
    if (watch && res.statusCode === 200) {
      const out = data === undefined ? Buffer.alloc(0) : seq(toBuffer(data).toString('utf8'));
      return out.length ? origEnd(out) : origEnd();
    }
    if (data !== undefined) buffered.push(toBuffer(data));
    const body = Buffer.concat(buffered);
    buffered = [];
    return origEnd(body.length ? encodeCbor(JSON.parse(body.toString('utf8'))) : body);
  }) as typeof res.end;
  void req;
}
