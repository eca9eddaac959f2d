// What the endpoint answered a client, seen from inside its ServerResponse: the status, the content type and (up to a
// bound) the body, whoever wrote it — the forwarder or the fork's sim handlers. The bytes still go out as written.
import type { ServerResponse } from 'node:http';

export interface CapturedResponse {
  status: number;
  contentType: string;
  bytes: number;
  /** The body as the chunks it was written in, or undefined when it was larger than the bound (the trace then says less). */
  chunks: Buffer[] | undefined;
  /** The same, joined (on first use: a LIST body runs to hundreds of MB, and what reads it whole is rare). */
  readonly body: Buffer | undefined;
  /** The response ended before the body was complete (the client went away, the socket broke). */
  aborted: boolean;
}

type WriteArgs = [chunk: unknown, encoding?: unknown, cb?: unknown];

/** Calls `done` once, when the response finished or closed. */
export function captureResponse(res: ServerResponse, maxBytes: number, done: (c: CapturedResponse) => void): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let kept = true;
  let status = 200;
  let contentType = '';
  const origWriteHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
    status = code;
    const headers = rest.find((x) => typeof x === 'object' && x !== null) as Record<string, unknown> | undefined;
    const ct = headers && Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    contentType = String(ct ?? res.getHeader('content-type') ?? '');
    return (origWriteHead as (...a: unknown[]) => ServerResponse).call(this, code, ...rest);
  } as ServerResponse['writeHead'];
  const take = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8';
    // Counted without a copy (a watch keeps nothing); a kept chunk is referenced, not copied: a writer must not change
    // a chunk once written, and a LIST body runs to hundreds of MB.
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk, enc) : (chunk as Uint8Array).byteLength;
    if (!kept) return;
    if (bytes > maxBytes) { kept = false; chunks.length = 0; return; }
    const u = chunk as Uint8Array;
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, enc) : Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));
  };
  const origWrite = res.write;
  res.write = function (this: ServerResponse, ...args: WriteArgs) {
    take(args[0], args[1]);
    return (origWrite as (...a: unknown[]) => boolean).apply(this, args);
  } as ServerResponse['write'];
  const origEnd = res.end;
  res.end = function (this: ServerResponse, ...args: WriteArgs) {
    take(args[0], args[1]);
    return (origEnd as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['end'];
  let reported = false;
  const report = (aborted: boolean) => {
    if (reported) return;
    reported = true;
    if (!contentType) contentType = String(res.getHeader('content-type') ?? '');
    if (status === 200 && res.statusCode !== 200) status = res.statusCode;
    let whole: Buffer | undefined;
    done({
      status, contentType, bytes, aborted,
      chunks: kept ? chunks : undefined,
      get body() {
        if (!kept) return undefined;
        return (whole ??= chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      },
    });
  };
  res.on('finish', () => report(false));
  res.on('close', () => report(!res.writableFinished));
}
