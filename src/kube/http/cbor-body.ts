// CBOR bodies as kube-apiserver writes them (KEP-4222, apimachinery runtime/serializer/cbor), read back as the JSON
// value the same answer would have carried: its encoder (cbor/internal/modes/encode.go) writes Go strings and field
// names as CBOR byte strings, []byte as a byte string in tag 22 (base64 in JSON), and the whole item in the
// self-described tag 55799. Decoding is cborg's (a maintained, strict CBOR library); this file only maps its values.
// The sim has its own copy of cborg's use: it shares no code with the client side. Loaded only when an answer is
// CBOR (cbor-media.ts tells), so JSON runs never load cborg.
import { decodeFirst } from 'cborg';

const SELF_DESCRIBED = 55799;
const EXPECTED_BASE64 = 22;

const TAGS = (() => {
  const tags: ((content: () => unknown) => unknown)[] = [];
  tags[SELF_DESCRIBED] = (content) => content();
  tags[EXPECTED_BASE64] = (content) => {
    const v = content();
    return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : v;
  };
  return tags;
})();

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** cborg's value (Maps, for byte-string keys) as JSON's: objects with string keys, byte strings as UTF-8 text. */
function asJson(v: unknown): unknown {
  if (v instanceof Uint8Array) return utf8.decode(v);
  if (Array.isArray(v)) return v.map(asJson);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v) {
      const key = k instanceof Uint8Array ? utf8.decode(k) : k;
      if (typeof key !== 'string') throw new Error(`a map key of type ${typeof key}: Kubernetes objects have string keys only`);
      Object.defineProperty(out, key, { value: asJson(val), enumerable: true, configurable: true, writable: true });
    }
    return out;
  }
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/** The first data item of `bytes` as a JSON value, and what follows it. Throws on a malformed or incomplete item. */
export function decodeFirstCbor(bytes: Uint8Array): [unknown, Uint8Array] {
  const [value, rest] = decodeFirst(bytes, { useMaps: true, tags: TAGS as never, rejectDuplicateMapKeys: true });
  return [asJson(value), rest];
}

/** An error body sent in CBOR as its JSON text; the bytes as UTF-8 when they are not one whole CBOR item. */
export function cborErrorText(body: Buffer): string {
  try {
    return JSON.stringify(decodeCborBody(body));
  } catch {
    // cut at the error-body bound, or not CBOR at all: shown as sent
    return body.toString('utf8');
  }
}

/** One whole body (one data item) as a JSON value. */
export function decodeCborBody(bytes: Uint8Array): unknown {
  const [value, rest] = decodeFirstCbor(bytes);
  if (rest.length > 0) throw new Error(`${rest.length} bytes after the CBOR data item`);
  return value;
}

/**
 * An application/cbor-seq body (a watch) item by item, as chunks arrive: an item split across chunks waits for the
 * rest, one still incomplete past `maxItemBytes` (or at the end of the body) is an error.
 */
export async function* decodeCborSequence(body: AsyncIterable<Uint8Array>, maxItemBytes: number): AsyncGenerator<{ value: unknown; bytes: number }[]> {
  let pending: Buffer = Buffer.alloc(0);
  let lastError: unknown;
  for await (const chunk of body) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
    const batch: { value: unknown; bytes: number }[] = [];
    while (pending.length > 0) {
      let decoded: [unknown, Uint8Array];
      try {
        decoded = decodeFirstCbor(pending);
      } catch (err) {
        // Most likely the item's end has not arrived yet.
        lastError = err;
        break;
      }
      lastError = undefined;
      const [value, rest] = decoded;
      batch.push({ value, bytes: pending.length - rest.length });
      pending = Buffer.from(rest);
    }
    if (batch.length) yield batch;
    if (pending.length > maxItemBytes) throw new Error(`a CBOR watch item past ${maxItemBytes} bytes without ending: ${(lastError as Error)?.message ?? 'too large'}`);
  }
  if (pending.length > 0) throw new Error(`the watch body ended inside a CBOR item: ${(lastError as Error)?.message ?? 'incomplete'}`);
}
