// Watch decoder: a chunked NDJSON body → typed WatchEvents, one per line, never dropping a bad line silently.
import { StreamCutError, WatchDecodeError } from './errors.js';
import { WATCH_EVENT_TYPES, type KubeObject, type WatchEvent, type WatchEventType } from './types.js';

export interface DecodeWatchStreamOptions {
  /** Called once per non-blank line with its size in bytes (newline included), before it is parsed. */
  onLine?(bytes: number): void;
}

const NEWLINE = 0x0a;
/** A WatchDecodeError keeps at most this much of the offending line. */
const MAX_ERROR_LINE_CHARS = 1024;
const EVENT_TYPES: ReadonlySet<string> = new Set(WATCH_EVENT_TYPES);

/**
 * Decodes a watch response body. Lines are split on '\n' at the byte level (a '\n' byte never occurs
 * inside a multi-byte UTF-8 sequence, so characters split across chunks are reassembled before decoding);
 * blank lines are skipped. Each event's `bytes` is its line's size on the wire including the newline.
 *
 * Throws WatchDecodeError for a line that is not JSON, not an object, has an unknown `type` or no `object`
 * (client-go: "unable to decode an event from the watch stream" / "got invalid watch event type"), and
 * StreamCutError when the body ends in the middle of a line. Errors of the body itself pass through.
 */
export async function* decodeWatchStream(body: AsyncIterable<Uint8Array | string>, opts: DecodeWatchStreamOptions = {}): AsyncGenerator<WatchEvent> {
  const onLine = opts.onLine;
  // Bytes of the unfinished line, kept as the chunk slices they arrived in (joined once, when the line ends).
  let partial: Buffer[] = [];
  let partialBytes = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let nl = buf.indexOf(NEWLINE, start);
    while (nl !== -1) {
      let line: Buffer;
      if (partialBytes > 0) {
        partial.push(buf.subarray(start, nl));
        line = Buffer.concat(partial, partialBytes + (nl - start));
        partial = [];
        partialBytes = 0;
      } else {
        line = buf.subarray(start, nl);
      }
      const event = decodeLine(line, onLine);
      if (event) yield event;
      start = nl + 1;
      nl = buf.indexOf(NEWLINE, start);
    }
    if (start < buf.length) {
      // Copy: the body may reuse its chunk buffers once we ask for the next one.
      partial.push(Buffer.from(buf.subarray(start)));
      partialBytes += buf.length - start;
    }
  }
  if (partialBytes > 0) {
    const rest = Buffer.concat(partial, partialBytes).toString('utf8');
    if (rest.trim() !== '') throw new StreamCutError(rest);
  }
}

function decodeLine(line: Buffer, onLine: ((bytes: number) => void) | undefined): WatchEvent | undefined {
  const n = line.length;
  if (n === 0) return undefined;
  const text = line.toString('utf8');
  const first = line[0];
  // Only lines starting with whitespace can be blank; skip the trim for the common case.
  if ((first === 0x20 || first === 0x0d || first === 0x09) && text.trim() === '') return undefined;
  onLine?.(n + 1);
  return decodeWatchEventLine(text, n + 1);
}

/** Decodes one NDJSON line (without its newline) into a WatchEvent; throws WatchDecodeError when it is not one. */
export function decodeWatchEventLine(text: string, bytes?: number): WatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new WatchDecodeError(`unable to decode an event from the watch stream: ${(err as Error).message}`, clip(text));
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WatchDecodeError('unable to decode an event from the watch stream: the line is not a JSON object', clip(text));
  }
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
    throw new WatchDecodeError(`got invalid watch event type: ${JSON.stringify(type ?? null)}`, clip(text));
  }
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw new WatchDecodeError(`unable to decode an event from the watch stream: ${type} event without an object`, clip(text));
  }
  const obj = object as KubeObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  return { type: type as WatchEventType, object: obj, bytes: bytes ?? Buffer.byteLength(text) + 1 };
}

function clip(text: string): string {
  return text.length > MAX_ERROR_LINE_CHARS ? `${text.slice(0, MAX_ERROR_LINE_CHARS)}…` : text;
}
