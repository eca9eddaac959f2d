// The handlers write JSON; a client that asked for another medium (CBOR, protobuf) gets it by re-encoding on the way
// out, so no handler knows about media. A whole answer (get, list, write, error) is buffered and encoded once at its
// end; a watch (a 200 whose head goes out at once) is re-encoded line by line, one JSON event per line.
import type { ServerResponse } from 'node:http';

export interface WatchEventJson { type: string; object: Record<string, unknown> }

/** One medium, as the re-encoder needs it. */
export interface ResponseEncoding {
  /** The Content-Type of a re-encoded whole answer. */
  bodyType: string;
  /** The Content-Type of a watch stream. */
  watchType: string;
  /** A whole JSON answer in this medium, or undefined when the medium cannot hold it (the JSON goes out as it was). */
  encodeBody(value: unknown): Buffer | undefined;
  /** One watch event in this medium; `last` ends the stream after it (the event says why). */
  encodeWatchEvent(event: WatchEventJson): { bytes: Buffer; last?: boolean };
}

type Callback = (err?: Error | null) => void;
type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

const toBuffer = (chunk: unknown): Buffer => (Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
const callbackOf = (rest: unknown[]): Callback | undefined => rest.find((r) => typeof r === 'function') as Callback | undefined;

/** The headers a handler gave writeHead, without the length and type the re-encoding changes, plus `type`. */
function withType(headers: Record<string, unknown>, type: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'content-length' && k.toLowerCase() !== 'content-type') out[k] = v;
  out['Content-Type'] = type;
  return out;
}

/** Makes `res` re-encode the JSON its handler writes in `encoding`; anything the handler writes as another type passes. */
export function reencodeResponse(res: ServerResponse, watch: boolean, encoding: ResponseEncoding): void {
  const origWrite = res.write.bind(res) as Write;
  const origEnd = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const origWriteHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  let json = false;
  let streaming = false;
  let headCode = 200;
  let headHeaders: Record<string, unknown> = {};
  let buffered: Buffer[] = [];
  let pending = '';
  /** Set once an event ended the stream: the handler's later writes go nowhere. */
  let stopped = false;
  let ended = false;

  const endOnce = (data?: Buffer, cb?: Callback): ServerResponse => {
    if (ended) { cb?.(); return res; }
    ended = true;
    return origEnd(...(data?.length ? [data] : []), ...(cb ? [cb] : []));
  };

  res.writeHead = ((code: number, ...rest: unknown[]) => {
    const headers = ((typeof rest[0] === 'string' ? rest[1] : rest[0]) ?? {}) as Record<string, unknown>;
    const ct = String(headers['Content-Type'] ?? headers['content-type'] ?? res.getHeader('Content-Type') ?? '');
    json = ct.split(';')[0].trim() === 'application/json';
    if (!json) return origWriteHead(code, ...rest);
    headCode = code;
    headHeaders = headers;
    streaming = watch && code === 200;
    // A watch's head goes out now (clients wait for it); a whole answer's waits until we know the medium holds it.
    if (streaming) return origWriteHead(code, withType(headers, encoding.watchType));
    return res;
  }) as typeof res.writeHead;

  /** Complete watch lines → encoded events; the text after the last newline waits for the rest of its line. */
  const events = (text: string): Buffer => {
    pending += text;
    const out: Buffer[] = [];
    let nl: number;
    while (!stopped && (nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line.trim()) continue;
      const { bytes, last } = encoding.encodeWatchEvent(JSON.parse(line) as WatchEventJson);
      out.push(bytes);
      if (last) stopped = true;
    }
    return Buffer.concat(out);
  };

  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!json) return origWrite(chunk, ...rest);
    const cb = callbackOf(rest);
    if (!streaming) {
      buffered.push(toBuffer(chunk));
      cb?.();
      return true;
    }
    if (stopped) { cb?.(); return false; }
    const out = events(toBuffer(chunk).toString('utf8'));
    const ok = out.length ? origWrite(out, ...(cb ? [cb] : [])) : (cb?.(), true);
    if (!stopped) return ok;
    // The stream ends here, but not from inside this write: the handler may have corked the response around a batch
    // of writes, and newer Node (24; not 20) keeps a corked response's chunks in its own buffer until uncork while
    // end() sends the terminating chunk at once — ending now would put the last frames after the end of the body,
    // where clients never read them. A microtask runs once the handler's synchronous batch, uncork included, is done;
    // a cork still held then is released first, so end() finds every frame already sent.
    queueMicrotask(() => {
      while (res.writableCorked > 0) res.uncork();
      endOnce();
    });
    return false;
  }) as typeof res.write;

  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const data = typeof chunk === 'function' || chunk === undefined || chunk === null ? undefined : chunk;
    if (!json) return data === undefined ? origEnd(...(typeof chunk === 'function' ? [chunk] : [])) : origEnd(data, ...rest);
    const cb = typeof chunk === 'function' ? (chunk as Callback) : callbackOf(rest);
    if (streaming) {
      if (stopped) return endOnce(undefined, cb);
      return endOnce(data === undefined ? undefined : events(toBuffer(data).toString('utf8')), cb);
    }
    if (data !== undefined) buffered.push(toBuffer(data));
    const body = Buffer.concat(buffered);
    buffered = [];
    const encoded = body.length ? encoding.encodeBody(JSON.parse(body.toString('utf8'))) : undefined;
    if (encoded === undefined) {
      // The JSON as it was, under the type the handler gave it.
      origWriteHead(headCode, withType(headHeaders, String(headHeaders['Content-Type'] ?? headHeaders['content-type'] ?? res.getHeader('Content-Type') ?? 'application/json')));
      return endOnce(body, cb);
    }
    origWriteHead(headCode, withType(headHeaders, encoding.bodyType));
    return endOnce(encoded, cb);
  }) as typeof res.end;
}
