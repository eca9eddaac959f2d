// An HTTP/1.1 answer read as it arrives, for the socket client (socket-client.ts): the status line and headers, then
// the body's bytes without its framing (Content-Length, chunked, or up to the connection's end). It works on views of
// the caller's read buffer and keeps none of them past a call: the body pieces of one read are handed out together,
// copied once into a buffer of their size, so the read buffer can be reused for the next read at once.
import { ownedCopy } from './owned-copy.js';

export interface ParsedHead {
  status: number;
  headers: Record<string, string | string[]>;
  /** The connection may carry another request once this body is read. */
  keepAlive: boolean;
}

/** The largest status line and headers accepted (Go's http.Transport allows 1 MB). */
const MAX_HEAD_BYTES = 1 << 20;
/** A chunk-size line longer than this is not one (hex digits and a short extension). */
const MAX_SIZE_LINE = 4096;

const CR = 0x0d;
const LF = 0x0a;

type BodyState = 'length' | 'chunk-size' | 'chunk-data' | 'chunk-data-end' | 'trailers' | 'until-close' | 'done';

export class ResponseParseError extends Error {
  readonly code = 'UND_ERR_SOCKET';
}

export class ResponseParser {
  head: ParsedHead | undefined;
  /** The body has been read to its end (the framing said so). */
  get done(): boolean {
    return this.head !== undefined && this.state === 'done';
  }

  private headBytes: Buffer | undefined;
  private state: BodyState = 'done';
  private remaining = 0;
  private sizeLine = '';
  private trailerLine = 0;
  private readonly pieces: Buffer[] = [];

  constructor(private readonly method: string) {}

  /**
   * Reads `buf`: first the head (then `head` is set), then the body. Returns the body's bytes in this read, in a
   * buffer of their own (undefined when there were none).
   */
  read(buf: Buffer): Buffer | undefined {
    let at = 0;
    if (!this.head) {
      at = this.readHead(buf);
      if (at < 0) return undefined;
    }
    if (at < buf.length && this.state !== 'done') this.readBody(buf, at);
    else if (at < buf.length && this.state === 'done') throw new ResponseParseError('the server sent bytes after the end of its answer');
    return this.takePieces();
  }

  /** The connection ended: an answer read up to the close is complete; any other unfinished one is cut. */
  ended(): void {
    if (this.state === 'until-close') this.state = 'done';
    if (!this.head || this.state !== 'done') throw new ResponseParseError('the server closed the connection before its answer was complete');
  }

  /** Returns where the body begins in `buf`, or -1 while the head is incomplete. */
  private readHead(buf: Buffer): number {
    let joined = this.headBytes ? Buffer.concat([this.headBytes, buf]) : buf;
    const offset = this.headBytes?.length ?? 0;
    /** Bytes of `joined` before the head being read (interim answers skipped). */
    let skipped = 0;
    this.headBytes = undefined;
    for (;;) {
      const found = joined.indexOf('\r\n\r\n', 0, 'latin1');
      if (found < 0) {
        if (joined.length > MAX_HEAD_BYTES) throw new ResponseParseError('the server sent a header larger than 1 MB');
        // Copied: `buf` is the caller's read buffer, reused after this call.
        this.headBytes = ownedCopy(joined);
        return -1;
      }
      const end = found + 4;
      const lines = joined.toString('latin1', 0, found).split('\r\n');
      const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]);
      if (!m) throw new ResponseParseError(`the server did not answer in HTTP/1.1 (${JSON.stringify(lines[0].slice(0, 40))})`);
      const status = Number(m[2]);
      // An interim answer (100 Continue, 103 Early Hints): the real one follows on the same connection.
      if (status >= 100 && status < 200 && status !== 101) {
        joined = joined.subarray(end);
        skipped += end;
        continue;
      }
      const headers: Record<string, string | string[]> = {};
      for (let i = 1; i < lines.length; i++) {
        const colon = lines[i].indexOf(':');
        if (colon <= 0) throw new ResponseParseError('the server sent a malformed header line');
        const name = lines[i].slice(0, colon).trim().toLowerCase();
        const value = lines[i].slice(colon + 1).trim();
        const had = headers[name];
        headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
      }
      this.begin(status, m[1] === '1', headers);
      return skipped + end - offset;
    }
  }

  /** The body's framing, from the head. */
  private begin(status: number, http11: boolean, headers: Record<string, string | string[]>): void {
    const connection = String(headers.connection ?? '').toLowerCase();
    let keepAlive = http11 ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const te = String(headers['transfer-encoding'] ?? '').toLowerCase();
    const length = headers['content-length'];
    if (this.method === 'HEAD' || status === 204 || status === 304) this.state = 'done';
    else if (te !== '') {
      if (!/(^|,)\s*chunked\s*$/.test(te)) throw new ResponseParseError(`the server sent a body in a transfer encoding kwatch does not read (${te})`);
      this.state = 'chunk-size';
    } else if (length !== undefined) {
      if (Array.isArray(length) || !/^\d+$/.test(length)) throw new ResponseParseError('the server sent an invalid Content-Length');
      this.remaining = Number(length);
      this.state = this.remaining === 0 ? 'done' : 'length';
    } else {
      this.state = 'until-close';
      keepAlive = false;
    }
    this.head = { status, headers, keepAlive };
  }

  private readBody(buf: Buffer, from: number): void {
    let at = from;
    while (at < buf.length) {
      switch (this.state) {
        case 'length': {
          const n = Math.min(this.remaining, buf.length - at);
          this.pieces.push(buf.subarray(at, at + n));
          at += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = 'done';
          break;
        }
        case 'until-close':
          this.pieces.push(buf.subarray(at));
          at = buf.length;
          break;
        case 'chunk-size': {
          const nl = buf.indexOf(LF, at);
          const part = buf.toString('latin1', at, nl < 0 ? buf.length : nl);
          this.sizeLine += part;
          if (this.sizeLine.length > MAX_SIZE_LINE) throw new ResponseParseError('the server sent an invalid chunk size');
          if (nl < 0) { at = buf.length; break; }
          at = nl + 1;
          const m = /^([0-9a-fA-F]+)[ \t]*(?:;.*)?\r$/.exec(this.sizeLine);
          this.sizeLine = '';
          if (!m || m[1].length > 12) throw new ResponseParseError('the server sent an invalid chunk size');
          this.remaining = parseInt(m[1], 16);
          this.state = this.remaining === 0 ? 'trailers' : 'chunk-data';
          this.trailerLine = 0;
          break;
        }
        case 'chunk-data': {
          const n = Math.min(this.remaining, buf.length - at);
          this.pieces.push(buf.subarray(at, at + n));
          at += n;
          this.remaining -= n;
          if (this.remaining === 0) { this.state = 'chunk-data-end'; this.remaining = 2; }
          break;
        }
        case 'chunk-data-end': {
          // The CRLF after a chunk's data (split across reads at worst).
          const b = buf[at++];
          if ((this.remaining === 2 && b !== CR) || (this.remaining === 1 && b !== LF)) throw new ResponseParseError('the server sent a chunk longer than its size');
          if (--this.remaining === 0) this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Trailer lines up to an empty one; their content is not used (kube sends none).
          const b = buf[at++];
          if (b === LF) {
            if (this.trailerLine === 0) this.state = 'done';
            this.trailerLine = 0;
          } else if (b !== CR) this.trailerLine++;
          break;
        }
        case 'done':
          throw new ResponseParseError('the server sent bytes after the end of its answer');
      }
    }
  }

  private takePieces(): Buffer | undefined {
    const n = this.pieces.length;
    if (n === 0) return undefined;
    // Memory of its own: the body may wait in a stalled client's response for as long as the client stalls.
    const out = ownedCopy(...this.pieces);
    this.pieces.length = 0;
    return out.length === 0 ? undefined : out;
  }
}
