// Watch decoder: a chunked NDJSON body → typed WatchEvents, one per line, never dropping a bad line silently.
import { ObjectTooLargeError, StreamCutError, WatchDecodeError } from './errors.js';
import { parseOmittingManagedFields } from './omit-managed-fields.js';
import { WATCH_EVENT_TYPES, type KubeObject, type WatchEvent, type WatchEventType } from './types.js';
import { eachEvent } from './watch-streams.js';

export interface DecodeWatchStreamOptions {
  /**
   * Called once per non-blank line, in order, before it is parsed (so before its event is yielded), with its
   * size in bytes (newline included) and its bytes (without the newline; valid only during the call).
   */
  onLine?(bytes: number, line: Buffer): void;
  /** Leave metadata.managedFields out of the decoded objects (for caches that strip them anyway). */
  omitManagedFields?: boolean;
  /**
   * The longest line (one event, newline excluded) accepted: a line that grows past it fails the stream
   * with ObjectTooLargeError before more of it is buffered. Default: no bound.
   */
  maxLineBytes?: number;
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
 * The events of the lines before a bad one always reach the reader first.
 */
export function decodeWatchStream(body: AsyncIterable<Uint8Array | string>, opts: DecodeWatchStreamOptions = {}): AsyncGenerator<WatchEvent> {
  return eachEvent(decodeWatchBatches(body, opts));
}

/**
 * decodeWatchStream's events, grouped by the chunk of the body that completed their lines (never an empty
 * group). A reader that takes a whole group at once (the reflector) pays the asynchronous hand-over once per
 * chunk rather than once per event, and the stages after it wake once per chunk too. onLine is called for
 * every line of a group before the group is yielded, in order: the group's n-th event is the n-th line.
 */
export async function* decodeWatchBatches(body: AsyncIterable<Uint8Array | string>, opts: DecodeWatchStreamOptions = {}): AsyncGenerator<WatchEvent[]> {
  const onLine = opts.onLine;
  const omit = opts.omitManagedFields === true;
  const maxLine = opts.maxLineBytes ?? Infinity;
  // The unfinished line's bytes so far. A line split across chunks is copied once, into this buffer kept from line
  // to line, rather than kept as copied slices and then joined (two copies and two allocations). Over TLS every
  // 16 KB record boundary splits a line; against the sim, about one line in fifteen spans two chunks.
  const partial = new LineBuffer();
  let batch: WatchEvent[] = [];
  try {
    for await (const chunk of body) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let start = 0;
      let nl = buf.indexOf(NEWLINE, start);
      while (nl !== -1) {
        if (partial.length + (nl - start) > maxLine) throw new ObjectTooLargeError('a watch event', maxLine);
        // A line in the partial buffer is valid until the next append: decodeLine uses it synchronously.
        const line = partial.length > 0 ? partial.finish(buf, start, nl) : buf.subarray(start, nl);
        const event = decodeLine(line, onLine, omit);
        if (event) batch.push(event);
        start = nl + 1;
        nl = buf.indexOf(NEWLINE, start);
      }
      if (start < buf.length) {
        if (partial.length + (buf.length - start) > maxLine) throw new ObjectTooLargeError('a watch event', maxLine);
        // Copied: the body may reuse its chunk buffers once we ask for the next one.
        partial.append(buf, start, buf.length);
      }
      if (batch.length > 0) {
        const full = batch;
        batch = [];
        yield full;
      }
    }
    if (partial.length > 0) {
      const rest = partial.take().toString('utf8');
      if (rest.trim() !== '') throw new StreamCutError(rest);
    }
  } catch (err) {
    // What was decoded before the failure is delivered before it.
    if (batch.length > 0) yield batch;
    throw err;
  }
}

/** The bytes of one unfinished line, in a buffer reused from line to line (one above KEEP_BYTES is not kept). */
class LineBuffer {
  private static readonly KEEP_BYTES = 1 << 20;
  private buf = Buffer.allocUnsafe(0);
  length = 0;

  /** Adds from[start, end). */
  append(from: Buffer, start: number, end: number): void {
    const need = this.length + (end - start);
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2, 16 * 1024));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    from.copy(this.buf, this.length, start, end);
    this.length = need;
  }

  /** The whole line, ending with from[start, end); valid until the next append. The buffer is empty again. */
  finish(from: Buffer, start: number, end: number): Buffer {
    this.append(from, start, end);
    return this.take();
  }

  /** What the buffer holds, as a view valid until the next append; the buffer is empty again. */
  take(): Buffer {
    const line = this.buf.subarray(0, this.length);
    this.length = 0;
    // An unusually long line's buffer is not kept for the next (the view returned still holds it).
    if (this.buf.length > LineBuffer.KEEP_BYTES) this.buf = Buffer.allocUnsafe(0);
    return line;
  }
}

function decodeLine(line: Buffer, onLine: DecodeWatchStreamOptions['onLine'], omitManagedFields: boolean): WatchEvent | undefined {
  const n = line.length;
  if (n === 0) return undefined;
  const first = line[0];
  // Only lines starting with whitespace can be blank; skip the trim for the common case.
  if ((first === 0x20 || first === 0x0d || first === 0x09) && line.toString('utf8').trim() === '') return undefined;
  onLine?.(n + 1, line);
  if (!omitManagedFields) return decodeWatchEventLine(line.toString('utf8'), n + 1);
  let parsed: unknown;
  try {
    parsed = parseOmittingManagedFields(line, eventObject, 1); // one object, one cut (were it not its metadata's, the whole line is parsed)
  } catch (err) {
    throw decodeError(line.toString('utf8'), err);
  }
  return toWatchEvent(parsed, () => line.toString('utf8'), n + 1);
}

const eventObject = (parsed: unknown) => [(parsed as { object?: { metadata?: { managedFields?: unknown } } } | null)?.object];

/** Decodes one NDJSON line (without its newline) into a WatchEvent; throws WatchDecodeError when it is not one. */
export function decodeWatchEventLine(text: string, bytes?: number): WatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw decodeError(text, err);
  }
  return toWatchEvent(parsed, () => text, bytes ?? Buffer.byteLength(text) + 1);
}

function decodeError(text: string, err: unknown): WatchDecodeError {
  return new WatchDecodeError(`unable to decode an event from the watch stream: ${syntaxErrorOf(text, err)}`, clip(text));
}

/** Checks a parsed line is a watch event (client-go's checks and wording). */
function toWatchEvent(parsed: unknown, textOf: () => string, bytes: number): WatchEvent {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WatchDecodeError('unable to decode an event from the watch stream: the line is not a JSON object', clip(textOf()));
  }
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
    throw new WatchDecodeError(`got invalid watch event type: ${JSON.stringify(type ?? null)}`, clip(textOf()));
  }
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw new WatchDecodeError(`unable to decode an event from the watch stream: ${type} event without an object`, clip(textOf()));
  }
  const obj = object as KubeObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  return { type: type as WatchEventType, object: obj, bytes };
}

/** The parse error of the line as sent (not of the text with managedFields cut out, whose positions differ). */
function syntaxErrorOf(text: string, err: unknown): string {
  try {
    JSON.parse(text);
  } catch (original) {
    return (original as Error).message;
  }
  return (err as Error).message;
}

function clip(text: string): string {
  return text.length > MAX_ERROR_LINE_CHARS ? `${text.slice(0, MAX_ERROR_LINE_CHARS)}…` : text;
}
