// Protobuf on the wire, as kube-apiserver serves built-in kinds to clients that ask (client-go's protobuf content
// config: `Accept: application/vnd.kubernetes.protobuf, application/json`). Negotiation is kube's: the first entry of
// the Accept list the server offers wins (apiserver/pkg/endpoints/handlers/negotiation). A get or list answer (an
// error's Status too) is `k8s\0` + runtime.Unknown; a watch is `;stream=watch`: length-prefixed bare WatchEvents
// whose object.raw is the enveloped object (runtime/serializer/protobuf RawSerializer + framer). The JSON the handlers
// write is re-encoded on its way out (from-json.ts), so handlers serve protobuf without knowing it.
// Where kube and the sim differ: kube encodes every built-in kind; the sim only those src/wire/protobuf has schemas
// for (objectSchema), and answers JSON for the rest, and for any object carrying a field its schemas lack (a JSON
// answer is what a client gets for custom resources from kube too, so clients that ask for protobuf already read it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UnsupportedProtobufError } from '../wire/protobuf/errors.js';
import { jsonToProtobuf, watchEventFrame } from '../wire/protobuf/from-json.js';
import { objectSchema } from '../wire/protobuf/schema.js';

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

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

/**
 * Makes `res` re-encode what the handler writes as protobuf. A whole JSON body that the schemas cannot hold is sent
 * as the JSON it was (Content-Type says so). A watch event that cannot be encoded ends the watch with an ERROR event
 * (a Status naming the field), since the stream's type is fixed by then.
 */
export function serveAsProtobuf(_req: IncomingMessage, res: ServerResponse, watch: boolean): void {
  const origWrite = res.write.bind(res) as Write;
  const origEnd = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const origWriteHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  let json = false;
  let streaming = false;
  let headCode = 200;
  let headHeaders: Record<string, unknown> = {};
  let buffered: Buffer[] = [];
  let pending = '';
  let failed = false;
  const toBuffer = (chunk: unknown): Buffer => (Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  const withType = (type: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(headHeaders)) if (k.toLowerCase() !== 'content-length' && k.toLowerCase() !== 'content-type') out[k] = v;
    out['Content-Type'] = type;
    return out;
  };
  res.writeHead = ((code: number, ...rest: unknown[]) => {
    const headers = ((typeof rest[0] === 'string' ? rest[1] : rest[0]) ?? {}) as Record<string, unknown>;
    const ct = String(headers['Content-Type'] ?? headers['content-type'] ?? res.getHeader('Content-Type') ?? '');
    json = ct.split(';')[0].trim() === 'application/json';
    if (!json) return origWriteHead(code, ...rest);
    headCode = code;
    headHeaders = headers;
    streaming = watch && code === 200;
    // A watch's head goes out now (clients wait for it); a whole body's waits until we know it encodes.
    if (streaming) return origWriteHead(code, withType(WATCH_STREAM));
    return res;
  }) as typeof res.writeHead;
  const frames = (text: string): Buffer => {
    pending += text;
    const out: Buffer[] = [];
    let nl: number;
    while (!failed && (nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line.trim()) continue;
      const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
      try {
        out.push(watchEventFrame(event.type, event.object));
      } catch (err) {
        if (!(err instanceof UnsupportedProtobufError)) throw err;
        failed = true;
        out.push(watchEventFrame('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the sim cannot encode this ${event.type} event as protobuf: ${err.message}`, reason: 'InternalError', code: 500 }));
      }
    }
    return Buffer.concat(out);
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!json) return origWrite(chunk, ...rest);
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (streaming) {
      // After the ERROR event the response has ended; the watch handler's later writes go nowhere.
      if (failed) return false;
      const out = frames(toBuffer(chunk).toString('utf8'));
      if (failed) { origEnd(out); return false; }
      return out.length ? origWrite(out, ...(cb ? [cb] : [])) : (cb?.(), true);
    }
    buffered.push(toBuffer(chunk));
    cb?.();
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const data = typeof chunk === 'function' || chunk === undefined || chunk === null ? undefined : chunk;
    if (!json) return data === undefined ? origEnd(...(typeof chunk === 'function' ? [chunk] : [])) : origEnd(data, ...rest);
    if (streaming) {
      if (failed) return res;
      const out = data === undefined ? Buffer.alloc(0) : frames(toBuffer(data).toString('utf8'));
      return out.length ? origEnd(out) : origEnd();
    }
    if (data !== undefined) buffered.push(toBuffer(data));
    const body = Buffer.concat(buffered);
    buffered = [];
    let encoded: Buffer | undefined;
    try {
      encoded = body.length ? jsonToProtobuf(JSON.parse(body.toString('utf8')) as Record<string, unknown>) : undefined;
    } catch (err) {
      if (!(err instanceof UnsupportedProtobufError)) throw err;
    }
    if (encoded === undefined) {
      origWriteHead(headCode, withType(String(headHeaders['Content-Type'] ?? headHeaders['content-type'] ?? res.getHeader('Content-Type') ?? 'application/json')));
      return origEnd(body);
    }
    origWriteHead(headCode, withType(PROTOBUF));
    return origEnd(encoded);
  }) as typeof res.end;
}
