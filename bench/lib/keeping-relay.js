// The floor under the endpoint's watch figures (issue 43's replay row), as a TCP relay: tcp-relay.js's bare relay,
// which passes its target's answers on byte for byte, plus what any endpoint keeping what its client was sent must do
// per watch event (kept-versions.js). Each answer's chunked body is read beside the relay, only to find its lines. No
// trace, no faults, no HTTP server of its own (keeping-proxy.js has one), no per-client books.
import { startRelay } from './tcp-relay.js';
import { keptVersions, lineReader } from './kept-versions.js';

const NEWLINE = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Reads the answers of one connection (HTTP/1.1, one after another, keep-alive) and hands each body line to `line`
 * (a view valid during the call). Only what a watch needs: a chunked body, or one without a body (a 0 Content-Length).
 */
function answerReader(line) {
  let state = 'head';
  let head = Buffer.alloc(0);
  let left = 0; // bytes left in the current chunk
  let sizeText = '';
  const lines = lineReader(line);
  return (b) => {
    let i = 0;
    while (i < b.length) {
      if (state === 'head') {
        const all = head.length ? Buffer.concat([head, b.subarray(i)]) : b.subarray(i);
        const end = all.indexOf(HEAD_END);
        if (end < 0) { head = Buffer.from(all); return; }
        const text = all.toString('latin1', 0, end);
        i += end + 4 - head.length;
        head = Buffer.alloc(0);
        left = Number(/content-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
        state = /transfer-encoding:\s*chunked/i.test(text) ? 'size' : left > 0 ? 'skip' : 'head';
        continue;
      }
      if (state === 'skip') {
        // A body of known length (not a watch's): passed on unread.
        const n = Math.min(left, b.length - i);
        left -= n;
        i += n;
        if (left === 0) state = 'head';
        continue;
      }
      if (state === 'size') {
        const nl = b.indexOf(NEWLINE, i);
        if (nl < 0) { sizeText += b.toString('latin1', i, b.length); return; }
        sizeText += b.toString('latin1', i, nl);
        i = nl + 1;
        left = parseInt(sizeText, 16);
        sizeText = '';
        state = left === 0 ? 'trailer' : 'data';
        continue;
      }
      if (state === 'data') {
        const to = Math.min(b.length, i + left);
        lines.push(b, i, to);
        left -= to - i;
        i = to;
        if (left === 0) { state = 'crlf'; left = 2; }
        continue;
      }
      if (state === 'crlf') {
        const n = Math.min(left, b.length - i);
        left -= n;
        i += n;
        if (left === 0) state = 'size';
        continue;
      }
      // 'trailer': the last chunk's empty trailer line, then the next answer's head.
      const nl = b.indexOf(NEWLINE, i);
      if (nl < 0) return;
      i = nl + 1;
      lines.reset();
      state = 'head';
    }
  };
}

/** Listens on 127.0.0.1 and relays each connection to `target` (an http:// URL), keeping each watch event's object. */
export async function startKeepingRelay(target) {
  const versions = keptVersions();
  const relay = await startRelay(target, () => answerReader(versions.keep));
  return { url: relay.url, kept: versions.kept, events: versions.events, close: relay.close };
}
